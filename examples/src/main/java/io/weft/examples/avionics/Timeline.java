package io.weft.examples.avionics;

import io.weft.membership.View;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The views this member installed, with when: the dashboard's timeline of joins and failures. */
final class Timeline
{
    private final long startNanos;
    private final List<Map<String, Object>> events = new ArrayList<>();
    private View current;

    Timeline(final long startNanos)
    {
        this.startNanos = startNanos;
    }

    /** A {@link io.weft.membership.ViewListener}: called on the membership thread, so it only records. */
    synchronized void view(final View view)
    {
        current = view;
        final Map<String, Object> event = new LinkedHashMap<>();
        event.put("seconds", (System.nanoTime() - startNanos) / 1e9);
        event.put("id", view.id());
        event.put("leader", view.leader());
        event.put("members", view.members());
        event.put("joined", view.joined());
        event.put("left", view.left());
        event.put("failed", view.failed());
        events.add(event);
    }

    synchronized View current()
    {
        return current;
    }

    synchronized List<Map<String, Object>> events()
    {
        return List.copyOf(events);
    }
}

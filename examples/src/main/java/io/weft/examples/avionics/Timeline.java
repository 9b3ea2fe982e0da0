package io.weft.examples.avionics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.weft.membership.View;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The views this member installed, with when: the dashboard's timeline of joins and failures. Each view after the
 * first also says, from this member's meters, how long its multicast stopped for the change (wedge to install) and,
 * where this member suspected someone itself, how long after their last heartbeat it did (the failure detection).
 */
final class Timeline
{
    private final long startNanos;
    private final MeterRegistry registry;
    private final List<Map<String, Object>> events = new ArrayList<>();
    private final Since pause = new Since("weft.membership.view.change");
    private final Since silence = new Since("weft.membership.suspicion.silence");
    private View current;

    Timeline(final long startNanos, final MeterRegistry registry)
    {
        this.startNanos = startNanos;
        this.registry = registry;
    }

    /**
     * A {@link io.weft.membership.ViewListener}: called on the membership thread, so it only records; returns what
     * this member measured of the change ("" for none), for the console.
     */
    synchronized String view(final View view)
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
        // the group records its meters before it tells the view listeners: these include this change
        final Optional<Double> silent = silence.mean();
        final Optional<Double> paused = pause.mean();
        silent.ifPresent(ms -> event.put("silenceMillis", ms));
        paused.ifPresent(ms -> event.put("pausedMillis", ms));
        events.add(event);
        return silent.map(ms -> " suspected " + ms + " ms after a heartbeat").orElse("") +
            paused.map(ms -> " paused " + ms + " ms").orElse("");
    }

    synchronized View current()
    {
        return current;
    }

    synchronized List<Map<String, Object>> events()
    {
        return List.copyOf(events);
    }

    /** What a timer of this member's recorded since the last look: the mean of its new records, in milliseconds. */
    private final class Since
    {
        private final String name;
        private long count;
        private double totalMillis;

        Since(final String name)
        {
            this.name = name;
        }

        Optional<Double> mean()
        {
            final Timer t = registry.find(name).timer();
            if (t == null || t.count() == count)
            {
                return Optional.empty();
            }
            final double total = t.totalTime(TimeUnit.MILLISECONDS);
            final double mean = (total - totalMillis) / (t.count() - count);
            count = t.count();
            totalMillis = total;
            return Optional.of(Math.round(mean * 10) / 10.0);
        }
    }
}

package io.weft.membership;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * This member's view of the group, for operators: the view installed here and its size, the members the installed
 * views admitted, saw leave and removed as failed, and how long each view change stopped the multicast here (from
 * this member's wedge to the next view's install). Counted from the agreed views, so every member that installed the
 * same views reads the same counts. Updated once per view.
 */
final class MembershipMeters
{
    private final MeterRegistry registry;
    private final List<Meter> meters;
    private final Timer change;
    // written by the thread that installs a view: the opening thread the first, then the membership thread (started
    // after it); volatile for the registry's readers
    private volatile View installed;
    private volatile long joined;
    private volatile long left;
    private volatile long failed;

    MembershipMeters(final MeterRegistry registry, final Tags tags)
    {
        this.registry = registry;
        this.change = Timer.builder("weft.membership.view.change").tags(tags)
            .description("this member's wedge to its install of the next view: how long its multicast stopped")
            .register(registry);
        this.meters = List.of(change,
            Gauge.builder("weft.membership.view", this, m -> m.installed == null ? -1 : m.installed.id()).tags(tags)
                .description("id of the view installed here (-1 before the first)").register(registry),
            Gauge.builder("weft.membership.members", this, m -> m.installed == null ? 0 : m.installed.members().size())
                .tags(tags).description("members of the view installed here").register(registry),
            counter(tags, "weft.membership.joined", m -> m.joined, "members admitted by the views installed here"),
            counter(tags, "weft.membership.left", m -> m.left,
                "members that left gracefully, by the views installed here"),
            counter(tags, "weft.membership.failed", m -> m.failed,
                "members removed as failed (crashed, cut off or too slow) by the views installed here"));
    }

    private FunctionCounter counter(final Tags tags, final String name,
        final ToDoubleFunction<MembershipMeters> count, final String description)
    {
        return FunctionCounter.builder(name, this, count).tags(tags).description(description).register(registry);
    }

    /**
     * {@code view} was installed here; {@code wedgedNanos} is when this member wedged the view before it
     * ({@link System#nanoTime}), 0 for a member's first view.
     */
    void installed(final View view, final long wedgedNanos)
    {
        if (installed != null) // a joiner's first view counts nothing: it joined, the others count that
        {
            joined += view.joined().size();
            left += view.left().size();
            failed += view.failed().size();
        }
        if (wedgedNanos != 0)
        {
            change.record(System.nanoTime() - wedgedNanos, TimeUnit.NANOSECONDS);
        }
        installed = view;
    }

    /** The group closed: the meters leave the registry. */
    void close()
    {
        meters.forEach(registry::remove);
    }
}

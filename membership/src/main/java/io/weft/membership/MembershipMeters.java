package io.weft.membership;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * This member's view of the group, for operators: the view installed here and its size, the members the installed
 * views admitted, saw leave and removed as failed, and how long each view change stopped the multicast here (from
 * this member's wedge to the next view's install). Counted from the agreed views, so every member that installed the
 * same views reads the same counts. Updated once per view, and once per member this member suspects (how long it had
 * heard nothing from it: the failure detection that comes before the view change).
 */
final class MembershipMeters
{
    private final MeterRegistry registry;
    private final Counter joined;
    private final Counter left;
    private final Counter failed;
    private final Timer change;
    private final Timer silence;
    private final List<Meter> meters;
    // written by the thread that installs a view: the opening thread the first, then the membership thread (started
    // after it); volatile for the registry's readers
    private volatile View installed;

    MembershipMeters(final MeterRegistry registry, final Tags tags)
    {
        this.registry = registry;
        this.joined = Counter.builder("weft.membership.joined").tags(tags)
            .description("members admitted by the views installed here").register(registry);
        this.left = Counter.builder("weft.membership.left").tags(tags)
            .description("members that left gracefully or went after a leave or finish, by the views installed here")
            .register(registry);
        this.failed = Counter.builder("weft.membership.failed").tags(tags)
            .description("members removed as failed (crashed, cut off or too slow) by the views installed here")
            .register(registry);
        this.change = Timer.builder("weft.membership.view.change").tags(tags)
            .description("this member's wedge to its install of the next view: how long its multicast stopped")
            .register(registry);
        this.silence = Timer.builder("weft.membership.suspicion.silence").tags(tags)
            .description("how long this member had heard nothing from a member it suspected, when it suspected it: " +
                "the failure detection before a view change").register(registry);
        this.meters = List.of(joined, left, failed, change, silence,
            Gauge.builder("weft.membership.view", this, m -> m.installed == null ? -1 : m.installed.id()).tags(tags)
                .description("id of the view installed here (-1 before the first)").register(registry),
            Gauge.builder("weft.membership.members", this, m -> m.installed == null ? 0 : m.installed.members().size())
                .tags(tags).description("members of the view installed here").register(registry));
    }

    /**
     * {@code view} was installed here; {@code wedgedNanos} is when this member wedged the view before it
     * ({@link System#nanoTime}), 0 for a member's first view.
     */
    void installed(final View view, final long wedgedNanos)
    {
        if (installed != null) // a joiner's first view counts nothing: it joined, the others count that
        {
            joined.increment(view.joined().size());
            left.increment(view.left().size());
            failed.increment(view.failed().size());
        }
        if (wedgedNanos != 0)
        {
            change.record(System.nanoTime() - wedgedNanos, TimeUnit.NANOSECONDS);
        }
        installed = view;
    }

    /**
     * This member suspected another that it had not heard from for {@code silenceNanos} (-1: not known). On the
     * failure detector's thread or a transport's (the timer takes concurrent records).
     */
    void suspected(final long silenceNanos)
    {
        if (silenceNanos >= 0)
        {
            silence.record(silenceNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The group closed: the meters leave the registry. */
    void close()
    {
        meters.forEach(registry::remove);
    }
}

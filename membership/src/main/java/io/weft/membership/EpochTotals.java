package io.weft.membership;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.weft.predicates.PredicateThread;
import io.weft.smc.SmcTotals;
import io.weft.sst.Sst;

import java.util.List;

/**
 * This member's meters over all its views, registered once: the multicast's ({@link SmcTotals}), the views'
 * ({@link MembershipMeters}), and the table's and predicate thread's counted here ({@code weft.sst.writes},
 * {@code weft.sst.bytes}, {@code weft.predicates.passes|triggers|busy}, tagged with the member id). Every view has a
 * table and a predicate thread of its own, whose counts start at zero. When a view's epoch closes, its final counts
 * join the sums of the closed views, so a meter never goes back and keeps one series for the member's whole life
 * (per-view meters reset at every view change and named a new series per view).
 */
final class EpochTotals
{
    /** What is counted. */
    enum Count
    {
        WRITES, BYTES, PASSES, TRIGGERS, BUSY_NANOS
    }

    private static final Count[] COUNTS = Count.values();

    /** Sums of the closed views, and the open view's table and thread (null between views). */
    private record Counts(long[] closed, Sst sst, PredicateThread predicates)
    {
        long total(final Count count)
        {
            return sst == null ? closed[count.ordinal()] : closed[count.ordinal()] + live(count);
        }

        private long live(final Count count)
        {
            return switch (count)
            {
                case WRITES -> sst.writesPosted();
                case BYTES -> sst.bytesPushed();
                case PASSES -> predicates.passes();
                case TRIGGERS -> predicates.triggers();
                case BUSY_NANOS -> predicates.busyNanos();
            };
        }
    }

    private final MeterRegistry registry;
    private final List<Meter> meters;
    private final SmcTotals smc;
    private final MembershipMeters membership;
    // replaced whole (never changed in place): a reader sees a view's counts either live or folded, never both
    private volatile Counts counts = new Counts(new long[COUNTS.length], null, null);

    EpochTotals(final MeterRegistry registry, final int memberId)
    {
        final Tags tags = Tags.of("member", String.valueOf(memberId));
        this.registry = registry;
        this.smc = new SmcTotals(registry, tags);
        this.membership = new MembershipMeters(registry, tags);
        this.meters = List.of(
            counter(tags, "weft.sst.writes", Count.WRITES, "one-sided writes posted (one per target of each push)"),
            FunctionCounter.builder("weft.sst.bytes", this, t -> t.total(Count.BYTES)).tags(tags).baseUnit("bytes")
                .description("bytes pushed to other members").register(registry),
            counter(tags, "weft.predicates.passes", Count.PASSES, "passes over all predicates"),
            counter(tags, "weft.predicates.triggers", Count.TRIGGERS, "triggers fired"),
            FunctionCounter.builder("weft.predicates.busy", this, t -> t.total(Count.BUSY_NANOS) / 1e9).tags(tags)
                .baseUnit("seconds").description("time spent in passes that fired a trigger").register(registry));
    }

    private Meter counter(final Tags tags, final String name, final Count count, final String description)
    {
        return FunctionCounter.builder(name, this, t -> t.total(count)).tags(tags).description(description)
            .register(registry);
    }

    /** The multicast's meters. */
    SmcTotals smc()
    {
        return smc;
    }

    /** The views' meters. */
    MembershipMeters membership()
    {
        return membership;
    }

    /** The group closed: its meters leave the registry, so that a group opened again registers its own. */
    void close()
    {
        meters.forEach(registry::remove);
        smc.close();
        membership.close();
    }

    /** {@code count} over every view so far, the open one included. */
    long total(final Count count)
    {
        return counts.total(count);
    }

    /** From now on the totals include the counts of a new view's {@code sst} and {@code predicates}. */
    synchronized void open(final Sst sst, final PredicateThread predicates)
    {
        counts = new Counts(folded(), sst, predicates);
    }

    /** The view of {@code sst} closed: its final counts join the closed views' (nothing if it is not the open one). */
    synchronized void closed(final Sst sst)
    {
        if (counts.sst == sst)
        {
            counts = new Counts(folded(), null, null);
        }
    }

    private long[] folded()
    {
        final long[] sums = new long[COUNTS.length];
        for (final Count count : COUNTS)
        {
            sums[count.ordinal()] = counts.total(count);
        }
        return sums;
    }
}

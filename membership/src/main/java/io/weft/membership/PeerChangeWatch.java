package io.weft.membership;

import io.weft.sst.Column;
import io.weft.sst.Sst;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The condition of a predicate that wakes the membership thread when another member's row shows a membership change:
 * a leave or a finish announced, a suspicion, a wedge, a proposal or a commit. Every push that lands here wakes the
 * predicate thread (or its host), whose pass then sees the change: the membership thread, which otherwise parks
 * between its own events, steps at once instead of at its next timed check.
 * <p>
 * It hashes the flags and counts of the other rows ({@code 5 + rows} longs each, acquire loads: 40 ns a hash at 3
 * members, 200 ns at 8) and is true once each time the hash moves. It hashes when the passes since its last call fired
 * nothing, and otherwise on every {@value #BUSY_STRIDE}th call: under load a pass does not pay for it, and a thread
 * only sleeps after a pass that fired nothing, so the pass after that one (the last before the sleep) hashes.
 * Called by the passes alone, one at a time (the predicate thread, its host's thread, or an invoker's owner).
 */
final class PeerChangeWatch implements BooleanSupplier
{
    static final int BUSY_STRIDE = 64;

    private final Sst sst;
    private final LongSupplier triggers;
    private final int me;
    private final Column[] flags;
    private final Column suspected;
    private long seen;
    private long triggersSeen;
    private int skipped;

    /** {@code triggers}: the triggers the passes fired so far ({@link io.weft.predicates.PredicateThread#triggers}). */
    PeerChangeWatch(final Sst sst, final MembershipColumns columns, final LongSupplier triggers)
    {
        this.sst = sst;
        this.triggers = triggers;
        this.me = sst.myRank();
        this.flags = new Column[] {columns.leaving, columns.finished, columns.wedged, columns.numChanges,
            columns.numCommitted};
        this.suspected = columns.suspected;
        this.seen = hash();
    }

    @Override
    public boolean getAsBoolean()
    {
        final long fired = triggers.getAsLong();
        final boolean busy = fired != triggersSeen;
        triggersSeen = fired;
        if (busy && ++skipped < BUSY_STRIDE)
        {
            return false;
        }
        skipped = 0;
        final long now = hash();
        if (now == seen)
        {
            return false;
        }
        seen = now;
        return true;
    }

    private long hash()
    {
        long h = 1;
        final int rows = sst.rows();
        for (int r = 0; r < rows; r++)
        {
            if (r == me)
            {
                continue;
            }
            for (final Column c : flags)
            {
                h = 31 * h + sst.counter(r, c);
            }
            for (int i = 0; i < rows; i++)
            {
                h = 31 * h + sst.counter(r, suspected, i);
            }
        }
        return h;
    }
}

package io.weft.membership;

import io.weft.sst.Column;
import io.weft.sst.Sst;

import java.util.function.BooleanSupplier;

/**
 * The condition of a predicate that wakes the membership thread when another member's row shows a membership change:
 * a leave or a finish announced, a suspicion, a wedge, a proposal or a commit. Every push that lands here wakes the
 * predicate thread (or its host), whose pass then sees the change: the membership thread, which otherwise parks
 * between its own events, steps at once instead of at its next timed check.
 * <p>
 * It reads the flags and counts of the other rows ({@code 5 + rows} longs each, acquire loads) on every pass, and
 * holds their hash; true once each time the hash moves. Predicate thread only.
 */
final class PeerChangeWatch implements BooleanSupplier
{
    private final Sst sst;
    private final int me;
    private final Column[] flags;
    private final Column suspected;
    private long seen;

    PeerChangeWatch(final Sst sst, final MembershipColumns columns)
    {
        this.sst = sst;
        this.me = sst.myRank();
        this.flags = new Column[] {columns.leaving, columns.finished, columns.wedged, columns.numChanges,
            columns.numCommitted};
        this.suspected = columns.suspected;
        this.seen = hash();
    }

    @Override
    public boolean getAsBoolean()
    {
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

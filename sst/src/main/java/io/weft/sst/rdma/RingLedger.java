package io.weft.sst.rdma;

import io.weft.sst.FailureListener;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Per target, what this member's flushes owe it: the writes flushed to it ({@link RdmaEndpoint#posted} at its last
 * flush) and how many of them are known complete and, where targets are rung over the control channel, rung. A flush
 * waits until the flushes before it are rung ({@link RdmaTransport#flush}); a target whose owed writes make no progress
 * for {@code FLUSH_TIMEOUT_NANOS} fails rather than holding the flushes for good. Used under the transport's lock only.
 */
final class RingLedger
{
    static final long FLUSH_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final RdmaEndpoint endpoint;
    private final boolean[] frozen;
    private final FailureListener failures;
    /** Whether targets are rung over the control channel: writes that wake their targets themselves need no ring. */
    private final boolean ringsTargets;
    private final Consumer<boolean[]> ring;
    /** Per target: {@link RdmaEndpoint#posted} at its last flush; a ring is owed up to there. */
    private final long[] flushedTo;
    /**
     * Per target: {@link RdmaEndpoint#completed} when it was last rung (where writes wake their targets themselves,
     * when their completions were last counted).
     */
    private final long[] rungTo;
    /** Per target: when its owed ring last came closer (a completion), for the stall bound. */
    private final long[] progressedAt;
    private final boolean[] ringNow;
    /** How often {@link #advance} found completions advanced (and rang, where it rings): progress of the waits. */
    private long advances;

    /**
     * @param frozen the transport's frozen flags, which a stalled target sets here.
     * @param ring   rings the flagged targets over the control channel (when the endpoint does not wake them).
     */
    RingLedger(final RdmaEndpoint endpoint, final boolean[] frozen, final FailureListener failures,
        final Consumer<boolean[]> ring)
    {
        this.endpoint = endpoint;
        this.frozen = frozen;
        this.failures = failures;
        this.ringsTargets = !endpoint.wakesTargets();
        this.ring = ring;
        this.flushedTo = new long[frozen.length];
        this.rungTo = new long[frozen.length];
        this.progressedAt = new long[frozen.length];
        this.ringNow = new boolean[frozen.length];
    }

    /** A flush asked for the completion of every write posted to {@code t} so far: a ring is owed up to there. */
    void flushed(final int t, final long now)
    {
        if (flushedTo[t] == rungTo[t])
        {
            progressedAt[t] = now; // newly owed: its stall bound starts here
        }
        flushedTo[t] = endpoint.posted(t);
    }

    /** Where {@link #flushed} last left target {@code t}: what a later flush waits to see rung. */
    long flushedTo(final int t)
    {
        return flushedTo[t];
    }

    /** Whether the writes to live target {@code t} up to {@code mark} are still to be rung. */
    boolean owes(final int t, final long mark)
    {
        return !frozen[t] && rungTo[t] < mark;
    }

    /** Whether a ring is owed to any of {@code targets} (null: every target) that has not failed. */
    boolean owes(final int[] targets)
    {
        final int n = targets == null ? frozen.length : targets.length;
        for (int i = 0; i < n; i++)
        {
            final int t = targets == null ? i : targets[i];
            if (owes(t, flushedTo[t]))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Rings each live target whose completions have advanced past its last ring while a ring is owed to it (a
     * prefix of the flushed writes is visible there: pushes to one target land in order); fails a target whose owed
     * writes made no progress for {@code FLUSH_TIMEOUT_NANOS}. Where writes wake their targets themselves it only
     * counts the completions, which the next flush waits for. Returns whether a ring (a completion) is still owed.
     */
    boolean advance(final long now)
    {
        boolean owed = false;
        boolean advanced = false;
        for (int t = 0; t < frozen.length; t++)
        {
            if (frozen[t] || rungTo[t] >= flushedTo[t])
            {
                continue;
            }
            final long completed = endpoint.completed(t);
            if (completed > rungTo[t])
            {
                rungTo[t] = completed;
                progressedAt[t] = now;
                ringNow[t] = ringsTargets;
                advanced = true;
            }
            else if (now - progressedAt[t] > FLUSH_TIMEOUT_NANOS)
            {
                frozen[t] = true; // its writes stay incomplete: a failure, rather than a hang
                failures.onMemberFailure(t, "rdma writes to it not completed within " +
                    TimeUnit.NANOSECONDS.toSeconds(FLUSH_TIMEOUT_NANOS) + " s");
                continue;
            }
            owed |= rungTo[t] < flushedTo[t];
        }
        if (advanced)
        {
            if (ringsTargets)
            {
                ring.accept(ringNow);
            }
            advances++;
        }
        return owed;
    }

    /** How often {@link #advance} found completions advanced: a poll that moves this on has made progress. */
    long advances()
    {
        return advances;
    }
}

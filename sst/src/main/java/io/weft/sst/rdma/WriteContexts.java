package io.weft.sst.rdma;

/**
 * The operation contexts of writes in flight, each naming its target, so that a completion (or an error) is
 * accounted to the write it completes. A context is taken from a free list and returns to it only when its write
 * completes: a write that stays in flight (to a peer that died) keeps its context however many writes follow, and
 * its error is accounted to that peer, not to whichever write took the slot next. A target holds at most its share
 * of the contexts, so that writes to a peer that died cannot take those the live peers need (the peer that holds
 * its share is the one whose writes wait, and fail after a bound).
 * <p>
 * A target's completed count is the prefix of its writes that all completed, not how many completions came: a
 * reliable-datagram provider may complete a target's writes out of order, and a flush that waits for the writes
 * posted before it must not return on a later write's completion while an earlier one is still in flight.
 * Not thread-safe; allocates nothing.
 */
final class WriteContexts
{
    private final int[] free;
    private final int[] target;
    private final long[] sequence; // context -> the index of its write among its target's
    private final boolean[] done;  // per target, a ring of perTargetLimit: completed past that target's prefix
    private final long[] postedTo;
    private final long[] completedTo;
    private final int perTargetLimit;
    private int freeCount;

    /** {@code capacity} contexts for writes to ranks below {@code targets}, at most {@code perTargetLimit} each. */
    WriteContexts(final int capacity, final int targets, final int perTargetLimit)
    {
        this.perTargetLimit = perTargetLimit;
        free = new int[capacity];
        target = new int[capacity];
        sequence = new long[capacity];
        done = new boolean[targets * perTargetLimit];
        postedTo = new long[targets];
        completedTo = new long[targets];
        for (int i = 0; i < capacity; i++)
        {
            free[i] = capacity - 1 - i; // context 0 first
            target[i] = -1;
        }
        freeCount = capacity;
    }

    /**
     * A free context for the next write to {@code targetRank}, or -1 if every one is in flight or the target holds
     * its share; {@link #posted} takes it.
     */
    int peek(final int targetRank)
    {
        return freeCount == 0 || outstanding(targetRank) >= perTargetLimit ? -1 : free[freeCount - 1];
    }

    /** The write with context {@link #peek} to {@code targetRank} was posted. */
    void posted(final int targetRank)
    {
        final int c = free[--freeCount];
        target[c] = targetRank;
        sequence[c] = postedTo[targetRank]++;
    }

    /**
     * The write with {@code context} completed (or failed): returns its target and frees the context; -1 for a context
     * not in flight (a provider's stray completion), which changes nothing.
     */
    int completed(final int context)
    {
        final int t = target[context];
        if (t < 0)
        {
            return -1;
        }
        target[context] = -1;
        free[freeCount++] = context;
        // peek keeps a target's writes past its prefix below perTargetLimit, so their ring places are distinct
        final int ring = t * perTargetLimit;
        done[ring + (int)(sequence[context] % perTargetLimit)] = true;
        int next;
        while (done[next = ring + (int)(completedTo[t] % perTargetLimit)])
        {
            done[next] = false;
            completedTo[t]++;
        }
        return t;
    }

    /** Writes in flight. */
    int outstanding()
    {
        return free.length - freeCount;
    }

    /** Writes to {@code targetRank} past its completed prefix: in flight, or completed after one that is. */
    int outstanding(final int targetRank)
    {
        return targetRank < postedTo.length ? (int)(postedTo[targetRank] - completedTo[targetRank]) : 0;
    }

    /** Writes posted to {@code targetRank} so far. */
    long postedTo(final int targetRank)
    {
        return postedTo[targetRank];
    }

    /** The writes to {@code targetRank} that completed (or failed) with every write posted to it before them. */
    long completedTo(final int targetRank)
    {
        return completedTo[targetRank];
    }
}

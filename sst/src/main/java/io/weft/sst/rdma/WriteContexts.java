package io.weft.sst.rdma;

/**
 * The operation contexts of writes in flight, each naming its target, so that a completion (or an error) is
 * accounted to the write it completes. A context is taken from a free list and returns to it only when its write
 * completes: a write that stays in flight (to a peer that died) keeps its context however many writes follow, and
 * its error is accounted to that peer, not to whichever write took the slot next. A target holds at most its share
 * of the contexts, so that writes to a peer that died cannot take those the live peers need (the peer that holds
 * its share is the one whose writes wait, and fail after a bound). Not thread-safe; allocates nothing.
 */
final class WriteContexts
{
    private final int[] free;
    private final int[] target;
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
        postedTo[targetRank]++;
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
        completedTo[t]++;
        free[freeCount++] = context;
        return t;
    }

    /** Writes in flight. */
    int outstanding()
    {
        return free.length - freeCount;
    }

    /** Writes in flight to {@code targetRank}. */
    int outstanding(final int targetRank)
    {
        return targetRank < postedTo.length ? (int)(postedTo[targetRank] - completedTo[targetRank]) : 0;
    }

    /** Writes posted to {@code targetRank} so far. */
    long postedTo(final int targetRank)
    {
        return postedTo[targetRank];
    }

    /** Writes to {@code targetRank} completed (or failed) so far. */
    long completedTo(final int targetRank)
    {
        return completedTo[targetRank];
    }
}

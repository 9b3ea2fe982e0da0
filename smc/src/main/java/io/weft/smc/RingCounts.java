package io.weft.smc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A {@link SenderRing}'s counts, grouped by the thread that writes them, each group on cache lines of its own: the
 * claimer's (next index, claimed slots, the acknowledgement bound) change at every claim, the predicate thread's
 * (nulls due) at every receive pass, and as fields of one object they shared lines with each other and with the
 * fields both threads only read (wedged, waiter): every pass then missed in the cache on a line the claimer had
 * just written. One array, 64 bytes between the groups and at both ends.
 */
final class RingCounts
{
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int NEXT_INDEX = 8;
    private static final int CLAIMED_SLOTS = 9;
    private static final int ACKNOWLEDGED_BY_ALL = 10;
    private static final int PENDING_NULLS = 19;
    private static final int KNOWN_NEXT = 20;

    private final long[] counts = new long[29];

    RingCounts()
    {
        counts[ACKNOWLEDGED_BY_ALL] = -1;
        counts[PENDING_NULLS] = -1;
    }

    // ---- the claimer's, under the claims' lock; read by the predicate thread too --------------------------------

    long nextIndex()
    {
        return (long)COUNT.getAcquire(counts, NEXT_INDEX);
    }

    long claimedSlots()
    {
        return (long)COUNT.getAcquire(counts, CLAIMED_SLOTS);
    }

    /**
     * Release stores, not volatile ones: the lock orders the claims, and lock-free readers (the send and flow
     * predicates) need only see a slot's header before the counts that show it. A volatile store is a full fence on
     * x86, which waits until the message just built has reached the other cores.
     */
    void advance(final long nextIndex, final long claimedSlots)
    {
        COUNT.setRelease(counts, NEXT_INDEX, nextIndex);
        COUNT.setRelease(counts, CLAIMED_SLOTS, claimedSlots);
    }

    /**
     * The lowest acknowledgement counter of the members when last read: a lower bound of every member's (the
     * counters only grow), so a claim whose slot it covers reads no other member's row, whose lines their owners
     * keep writing.
     */
    long acknowledgedByAll()
    {
        return (long)COUNT.getAcquire(counts, ACKNOWLEDGED_BY_ALL);
    }

    /** Racing writers (the claimer, the flow predicate) may store an older bound: still a bound. */
    void acknowledgedByAll(final long bound)
    {
        COUNT.setRelease(counts, ACKNOWLEDGED_BY_ALL, bound);
    }

    // ---- the predicate thread's, plain ---------------------------------------------------------------------------

    /** The highest index the other senders' progress asks my nulls to cover; -1 if none yet. */
    long pendingNulls()
    {
        return counts[PENDING_NULLS];
    }

    void pendingNulls(final long upTo)
    {
        counts[PENDING_NULLS] = upTo;
    }

    /** A lower bound of {@link #nextIndex()} as last read here: below it no null is due (the claimer's line unread). */
    long knownNext()
    {
        return counts[KNOWN_NEXT];
    }

    void knownNext(final long next)
    {
        counts[KNOWN_NEXT] = next;
    }
}

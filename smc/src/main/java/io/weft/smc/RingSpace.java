package io.weft.smc;

/**
 * The records of a sender's ring still in flight, and the bytes they hold: where each record lies, the byte where its
 * reservation began (the previous record's end: a padding mark between them must stay readable as long as the record
 * after it), and the global sequence number every member must acknowledge before its bytes are used again. Records
 * are freed oldest first, by the claimer, once acknowledged. Written under the claims' lock; the publisher reads the
 * entries of records whose ready mark it acquired.
 */
final class RingSpace
{
    private final long capacity;
    private final int maxRecords;
    /** Entries per array: a power of two, so that a record's entry is a mask, not a division. */
    private final int mask;
    private final long[] from;
    private final long[] at;
    private final long[] last;
    private long head;
    /** {@code head}'s place in the ring, kept as it moves: no division per claim. */
    private long headInRing;
    private long freed;

    RingSpace(final long capacity, final int maxRecords)
    {
        this.capacity = capacity;
        this.maxRecords = maxRecords;
        final int entries = entries(maxRecords);
        this.mask = entries - 1;
        this.from = new long[entries];
        this.at = new long[entries];
        this.last = new long[entries];
    }

    /** Entries the per-record arrays need for {@code maxRecords}: the power of two at or above it. */
    static int entries(final int maxRecords)
    {
        return Integer.highestOneBit(Math.max(1, maxRecords - 1)) << 1;
    }

    /** The index of record {@code slot}'s entries in arrays of {@link #entries} entries. */
    int entry(final long slot)
    {
        return (int)slot & mask;
    }

    /**
     * Where record {@code slot} (the next one) of {@code extent} bytes would lie with the records from
     * {@link #freed()} still held, or -1 if it does not fit: one that does not fit before the ring's end takes the
     * next lap's start.
     */
    long place(final long slot, final int extent)
    {
        return fits(slot, freed, extent);
    }

    private long fits(final long slot, final long oldestHeld, final int extent)
    {
        if (slot - oldestHeld >= maxRecords)
        {
            return -1;
        }
        final long left = capacity - headInRing;
        final long v = left < extent ? head + left : head;
        final long tail = oldestHeld < slot ? from[entry(oldestHeld)] : head;
        return v + extent - tail <= capacity ? v : -1;
    }

    /**
     * Records record {@code slot}, placed at {@code v}, which every member must acknowledge up to {@code need};
     * returns its offset in the ring.
     */
    long take(final long slot, final long v, final int extent, final long need)
    {
        final int e = entry(slot);
        from[e] = head;
        at[e] = v;
        last[e] = need;
        final long inRing = v == head ? headInRing : 0;
        head = v + extent;
        headInRing = inRing + extent == capacity ? 0 : inRing + extent;
        return inRing;
    }

    /** Record {@code slot}, the newest, keeps only {@code extent} bytes: the rest goes back to the ring. */
    void shrink(final long slot, final int extent)
    {
        final long v = at[entry(slot)];
        final long end = headInRing == 0 ? capacity : headInRing; // head's offset before it wrapped to 0
        headInRing = end - (head - v) + extent;
        head = v + extent;
    }

    /** The end of the newest record: where the next reservation begins. */
    long head()
    {
        return head;
    }

    /** {@link #head()}'s offset in the ring. */
    long headInRing()
    {
        return headInRing;
    }

    /** The oldest record still held. */
    long freed()
    {
        return freed;
    }

    /** Frees the oldest record held: every member acknowledged it. */
    void free()
    {
        freed++;
    }

    long at(final long slot)
    {
        return at[entry(slot)];
    }

    long from(final long slot)
    {
        return from[entry(slot)];
    }

    /** The acknowledgement record {@code slot} waits for. */
    long need(final long slot)
    {
        return last[entry(slot)];
    }

    /**
     * The acknowledgement that frees room for record {@code slot} of {@code extent} bytes: that of the newest record
     * which must be freed first; -1 if it fits now. If it cannot fit however many are freed, all of them. The records
     * held start at non-decreasing positions, so the oldest one that may stay is found by bisection.
     */
    long needFor(final long slot, final int extent)
    {
        final long left = capacity - headInRing;
        final long tail = (left < extent ? head + left : head) + extent - capacity; // held bytes must start here
        long lo = Math.max(freed, slot - maxRecords + 1);
        long hi = slot;
        while (lo < hi)
        {
            final long mid = (lo + hi) >>> 1;
            if (from(mid) >= tail)
            {
                hi = mid;
            }
            else
            {
                lo = mid + 1;
            }
        }
        return lo == freed ? -1 : need(lo - 1);
    }
}

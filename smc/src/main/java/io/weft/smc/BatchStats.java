package io.weft.smc;

/**
 * Allocation-free batch-size histogram in power-of-two buckets (1, 2-3, 4-7, ... ), single writer (the predicate
 * thread). Readers get a consistent-enough snapshot for reporting.
 */
public final class BatchStats
{
    /** Buckets of the histogram: bucket i counts batches of 2^i to 2^(i+1) - 1 messages, the last one all larger. */
    public static final int BUCKETS = 20;
    private final long[] buckets = new long[BUCKETS];
    private volatile long count;
    private volatile long total;
    private volatile long max;

    /** Made by the engine's meters only. */
    BatchStats()
    {
    }

    void record(final long size)
    {
        if (size <= 0)
        {
            return;
        }
        buckets[Math.min(BUCKETS - 1, 63 - Long.numberOfLeadingZeros(size))]++;
        count = count + 1;
        total = total + size;
        if (size > max)
        {
            max = size;
        }
    }

    /** Batches recorded. */
    public long count()
    {
        return count;
    }

    /** Messages in all recorded batches. */
    public long total()
    {
        return total;
    }

    /** The largest batch. */
    public long max()
    {
        return max;
    }

    /** Mean batch size. */
    public double mean()
    {
        final long c = count;
        return c == 0 ? 0 : (double)total / c;
    }

    /** Batches whose size was in [2^i, 2^(i+1)). */
    public long bucket(final int i)
    {
        return buckets[i];
    }

    /** "1:n 2-3:n 4-7:n ..." up to the largest non-empty bucket. */
    public String describe()
    {
        int last = -1;
        for (int i = 0; i < BUCKETS; i++)
        {
            if (buckets[i] != 0)
            {
                last = i;
            }
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i <= last; i++)
        {
            final long lo = 1L << i;
            final long hi = (1L << (i + 1)) - 1;
            sb.append(i == 0 ? "" : " ").append(lo == hi ? String.valueOf(lo) : lo + "-" + hi).append(':')
                .append(buckets[i]);
        }
        return sb.toString();
    }
}

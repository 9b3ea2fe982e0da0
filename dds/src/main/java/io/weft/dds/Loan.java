package io.weft.dds;

import io.weft.smc.Claim;

import java.lang.foreign.MemorySegment;

/**
 * A slot lent by {@link DataWriter#loan}: build the sample in place at {@link #offset()} of {@link #segment()} (at
 * most {@link #capacity()} bytes), then {@link #commit} it, or {@link #abort} it. Zero copy: the bytes written here
 * are the bytes every subscriber reads. Reused per thread: do not keep it past the commit.
 */
public final class Loan
{
    private final Claim claim = new Claim();
    private final java.util.concurrent.atomic.AtomicLong written;

    Loan(final java.util.concurrent.atomic.AtomicLong written)
    {
        this.written = written;
    }

    Claim claim()
    {
        return claim;
    }

    public MemorySegment segment()
    {
        return claim.segment();
    }

    public long offset()
    {
        return claim.offset();
    }

    public int capacity()
    {
        return claim.capacity();
    }

    /** Writes the sample of {@code length} bytes to the topic. */
    public void commit(final int length)
    {
        claim.commit(length);
        written.incrementAndGet();
    }

    /** Gives the slot back unsent. */
    public void abort()
    {
        claim.abort();
    }
}

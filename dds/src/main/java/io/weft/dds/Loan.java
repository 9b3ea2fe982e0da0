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
    private final Topic<?> topic;
    private final int keyEnd;

    Loan(final Topic<?> topic, final java.util.concurrent.atomic.AtomicLong written)
    {
        this.topic = topic;
        this.written = written;
        this.keyEnd = topic.config().key() == null ? 0 : topic.config().key().end();
    }

    Claim claim()
    {
        return claim;
    }

    /** {@return the memory of the lent slot; the sample goes at {@link #offset()}} */
    public MemorySegment segment()
    {
        return claim.segment();
    }

    /** {@return where in {@link #segment()} the sample starts} */
    public long offset()
    {
        return claim.offset();
    }

    /** {@return the most bytes the sample may take in this slot} */
    public int capacity()
    {
        return claim.capacity();
    }

    /**
     * Writes the sample of {@code length} bytes to the topic.
     *
     * @param length the sample's bytes written at {@link #offset()}, 0 to {@link #capacity()}.
     * @throws IllegalArgumentException the topic keeps its history per key and the sample ends before its key (the
     *                                  slot is given back unsent).
     * @throws IllegalStateException    the view the loan was made in ended, and its view change gave up waiting for
     *                                  this commit (2 s): the sample was not sent ({@link DataWriter#write} writes it
     *                                  again in the new view by itself).
     */
    public void commit(final int length)
    {
        if (!tryCommit(length))
        {
            throw new IllegalStateException(topic + ": the sample was written after the view it was lent in had " +
                "ended (a view change waits at most 2 s for open loans); it was NOT sent: write it again");
        }
    }

    /** {@link #commit}, returning false where a view change gave up waiting for this loan: nothing was sent. */
    boolean tryCommit(final int length)
    {
        if (length >= 0 && length < keyEnd) // a negative length is the claim's to refuse
        {
            claim.abort();
            throw new IllegalArgumentException(topic + ": a sample of " + length + " bytes ends before its key " +
                "(bytes " + topic.config().key().offset() + ".." + (keyEnd - 1) + ", weft.dds.topics[].key); not " +
                "written");
        }
        if (!claim.tryCommit(length))
        {
            return false;
        }
        written.incrementAndGet();
        return true;
    }

    /** Gives the slot back unsent. */
    public void abort()
    {
        claim.abort();
    }
}

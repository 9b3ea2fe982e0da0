package io.weft.smc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A delivered message, read in place in the shared state table. A flyweight: valid only during the callback that
 * received it; copy what you keep ({@link #copyTo}). Reusing it is what keeps delivery allocation-free.
 */
public final class Message
{
    MemorySegment segment;
    long offset;
    int length;
    int senderId;
    int senderRank;
    long index;
    long seq;
    long timestampNanos;

    /** Made by the engine only, one per delivering thread, filled again for each message. */
    Message()
    {
    }

    /** {@return the node id of the sender} */
    public int senderId()
    {
        return senderId;
    }

    /** {@return the sender's position among the subgroup's senders} */
    public int senderRank()
    {
        return senderRank;
    }

    /** {@return the sender's message index: 0, 1, 2, ... per sender, counting nulls} */
    public long index()
    {
        return index;
    }

    /** {@return position in the subgroup's total order ({@code index * senders + senderRank}); -1 in unordered mode} */
    public long seq()
    {
        return seq;
    }

    /** {@return {@code System.nanoTime()} at commit in the sender's process: meaningful only where the sender runs} */
    public long timestampNanos()
    {
        return timestampNanos;
    }

    /** {@return the payload's length in bytes} */
    public int length()
    {
        return length;
    }

    /** {@return the table segment holding the payload at {@link #offset()}: read it in place, never keep it} */
    public MemorySegment segment()
    {
        return segment;
    }

    /** {@return where the payload starts in {@link #segment()}} */
    public long offset()
    {
        return offset;
    }

    /**
     * Byte {@code i} of the payload (bounds-checked).
     *
     * @param i the byte's position in the payload, from 0.
     * @return the byte.
     * @throws IndexOutOfBoundsException if {@code i} is outside the payload's {@link #length()}.
     */
    public byte byteAt(final int i)
    {
        if (i < 0 || i >= length)
        {
            throw new IndexOutOfBoundsException("byte " + i + " of a " + length + "-byte message");
        }
        return segment.get(ValueLayout.JAVA_BYTE, offset + i);
    }

    /**
     * Copies the payload into {@code dst} at {@code dstOffset}.
     *
     * @param dst       where the {@link #length()} payload bytes go.
     * @param dstOffset where in {@code dst} they start.
     * @throws IndexOutOfBoundsException if they do not fit in {@code dst} from {@code dstOffset}.
     */
    public void copyTo(final byte[] dst, final int dstOffset)
    {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, dst, dstOffset, length);
    }

    /** {@return a copy of the payload (allocates: convenience for code off the hot path)} */
    public byte[] bytes()
    {
        final byte[] copy = new byte[length];
        copyTo(copy, 0);
        return copy;
    }

    void wrap(final MemorySegment segment, final long offset, final int length, final int senderId,
        final int senderRank, final long index, final long seq, final long timestampNanos)
    {
        this.segment = segment;
        this.offset = offset;
        this.length = length;
        this.senderId = senderId;
        this.senderRank = senderRank;
        this.index = index;
        this.seq = seq;
        this.timestampNanos = timestampNanos;
    }
}

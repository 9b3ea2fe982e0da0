package io.weft.smc;

import java.lang.foreign.MemorySegment;

/** The messages of one delivery pass. {@link #get(int)} repositions one reused {@link Message} flyweight. */
public final class MessageBatch
{
    private final Message message = new Message();
    private final int[] senderRank;
    private final int[] senderId;
    private final long[] index;
    private final long[] seq;
    private final long[] offset;
    private final int[] length;
    private final long[] timestamp;
    private MemorySegment segment;
    private int size;

    MessageBatch(final int capacity)
    {
        senderRank = new int[capacity];
        senderId = new int[capacity];
        index = new long[capacity];
        seq = new long[capacity];
        offset = new long[capacity];
        length = new int[capacity];
        timestamp = new long[capacity];
    }

    /** Messages in this batch. */
    public int size()
    {
        return size;
    }

    /** Message {@code i} of this batch; the returned flyweight is the same object for every call. */
    public Message get(final int i)
    {
        if (i < 0 || i >= size)
        {
            throw new IndexOutOfBoundsException("message " + i + " of a batch of " + size);
        }
        message.wrap(segment, offset[i], length[i], senderId[i], senderRank[i], index[i], seq[i], timestamp[i]);
        return message;
    }

    boolean isFull()
    {
        return size == index.length;
    }

    void reset(final MemorySegment segment)
    {
        this.segment = segment;
        size = 0;
    }

    void add(final Message m)
    {
        senderRank[size] = m.senderRank;
        senderId[size] = m.senderId;
        index[size] = m.index;
        seq[size] = m.seq;
        offset[size] = m.offset;
        length[size] = m.length;
        timestamp[size] = m.timestampNanos;
        size++;
    }
}

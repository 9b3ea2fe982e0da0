package io.weft.dds;

import java.lang.foreign.MemorySegment;

/**
 * A {@link Flyweight} of a fixed length: keeps the wrapped segment and offset, and refuses a slot shorter than the
 * layout. Subclasses define the field offsets and accessors over {@link #segment} at {@link #offset}.
 */
public abstract class FixedFlyweight implements Flyweight
{
    private final int length;
    protected MemorySegment segment;
    protected long offset;

    protected FixedFlyweight(final int length)
    {
        this.length = length;
    }

    /** Wraps a buffer of its own (for a writer that fills one sample after the other). */
    protected final void allocate()
    {
        wrap(MemorySegment.ofArray(new byte[length]), 0, length);
    }

    @Override
    public final void wrap(final MemorySegment segment, final long offset, final int length)
    {
        if (length < this.length)
        {
            throw new IllegalArgumentException(getClass().getSimpleName() + " takes " + this.length + " bytes, not " +
                length);
        }
        this.segment = segment;
        this.offset = offset;
    }

    @Override
    public final MemorySegment segment()
    {
        return segment;
    }

    @Override
    public final long offset()
    {
        return offset;
    }

    @Override
    public final int encodedLength()
    {
        return length;
    }
}

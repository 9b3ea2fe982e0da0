package io.weft.dds;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A {@link Flyweight} of a fixed length: keeps the wrapped segment and offset, and refuses a slot shorter than the
 * layout. Subclasses name their field offsets and read and write the fields with {@link #getLong}, {@link #putLong}
 * and the like, in network byte order (big-endian: the order a keyed topic reads its key in, and the same bytes
 * whatever the host):
 *
 * <pre>{@code
 * public final class Position extends FixedFlyweight {
 *     static final int LATITUDE = 0, LONGITUDE = 8, LENGTH = 16;
 *     public Position() { super(LENGTH); }
 *     public double latitude() { return getDouble(LATITUDE); }
 *     public Position latitude(double v) { putDouble(LATITUDE, v); return this; }
 * }
 * }</pre>
 */
public abstract class FixedFlyweight implements Flyweight
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfDouble DOUBLE =
        ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final int length;
    /** The wrapped segment (null until wrapped). */
    protected MemorySegment segment;
    /** Where in {@link #segment} the sample starts. */
    protected long offset;

    /** A flyweight of samples of exactly {@code length} bytes. */
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

    /** The 4-byte field at {@code field} bytes into the sample. */
    protected final int getInt(final int field)
    {
        return segment.get(INT, offset + field);
    }

    /** Sets the 4-byte field at {@code field} bytes into the sample. */
    protected final void putInt(final int field, final int value)
    {
        segment.set(INT, offset + field, value);
    }

    /** The 8-byte field at {@code field} bytes into the sample. */
    protected final long getLong(final int field)
    {
        return segment.get(LONG, offset + field);
    }

    /** Sets the 8-byte field at {@code field} bytes into the sample. */
    protected final void putLong(final int field, final long value)
    {
        segment.set(LONG, offset + field, value);
    }

    /** The 8-byte IEEE 754 field at {@code field} bytes into the sample. */
    protected final double getDouble(final int field)
    {
        return segment.get(DOUBLE, offset + field);
    }

    /** Sets the 8-byte IEEE 754 field at {@code field} bytes into the sample. */
    protected final void putDouble(final int field, final double value)
    {
        segment.set(DOUBLE, offset + field, value);
    }
}

package io.weft.dds;

import java.lang.foreign.MemorySegment;

/**
 * A sample type with a fixed layout (most extend {@link FixedFlyweight}, which keeps the segment and offset) read and written in place (field accessors at named offsets over a segment),
 * for {@link Codecs#flyweight}. Implementations keep the wrapped segment and offset and define their fields:
 *
 * <pre>{@code
 * final class Position implements Flyweight {
 *     static final int LATITUDE = 0, LONGITUDE = 8, LENGTH = 16;
 *     private MemorySegment segment; private long offset;
 *     public void wrap(MemorySegment s, long o, int length) { segment = s; offset = o; }
 *     public MemorySegment segment() { return segment; }
 *     public long offset() { return offset; }
 *     public int encodedLength() { return LENGTH; }
 *     double latitude() { return segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + LATITUDE); }
 *     Position latitude(double v) { segment.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + LATITUDE, v); return this; }
 * }
 * }</pre>
 */
public interface Flyweight
{
    /** Makes this flyweight a view of {@code length} bytes at {@code offset} of {@code segment}. */
    void wrap(MemorySegment segment, long offset, int length);

    MemorySegment segment();

    long offset();

    /** How many bytes of the wrapped segment the sample occupies. */
    int encodedLength();
}

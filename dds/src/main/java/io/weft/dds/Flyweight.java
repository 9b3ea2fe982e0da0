package io.weft.dds;

import java.lang.foreign.MemorySegment;

/**
 * A sample type with a fixed layout, read and written in place (field accessors at named offsets over a segment),
 * for {@link Codecs#flyweight}. Implementations keep the wrapped segment and offset; most extend
 * {@link FixedFlyweight}, which does that and has typed field accessors (see its example).
 */
public interface Flyweight
{
    /** Makes this flyweight a view of {@code length} bytes at {@code offset} of {@code segment}. */
    void wrap(MemorySegment segment, long offset, int length);

    /** The segment last wrapped. */
    MemorySegment segment();

    /** Where in {@link #segment()} the sample starts. */
    long offset();

    /** How many bytes of the wrapped segment the sample occupies. */
    int encodedLength();
}

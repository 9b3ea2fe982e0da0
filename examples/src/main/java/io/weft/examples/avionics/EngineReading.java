package io.weft.examples.avionics;

import io.weft.dds.Flyweight;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Engine telemetry (topic {@code engine}): a fixed layout whose first 4 bytes, the engine number, are the topic's
 * key (KEEP_LAST per engine). Big-endian, as the key is read.
 */
public final class EngineReading implements Flyweight
{
    static final int ENGINE = 0;
    static final int SEQUENCE = 4;
    static final int N1_PERCENT = 12;
    static final int EGT_CELSIUS = 20;
    static final int LENGTH = 28;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private long offset;

    static EngineReading allocate()
    {
        final EngineReading e = new EngineReading();
        e.wrap(MemorySegment.ofArray(new byte[LENGTH]), 0, LENGTH);
        return e;
    }

    @Override
    public void wrap(final MemorySegment segment, final long offset, final int length)
    {
        if (length < LENGTH)
        {
            throw new IllegalArgumentException("an engine reading takes " + LENGTH + " bytes, not " + length);
        }
        this.segment = segment;
        this.offset = offset;
    }

    @Override
    public MemorySegment segment()
    {
        return segment;
    }

    @Override
    public long offset()
    {
        return offset;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    public int engine()
    {
        return segment.get(INT, offset + ENGINE);
    }

    /** Readings of this engine before this one. */
    public long sequence()
    {
        return segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + SEQUENCE);
    }

    public double n1Percent()
    {
        return segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + N1_PERCENT);
    }

    public double egtCelsius()
    {
        return segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + EGT_CELSIUS);
    }

    EngineReading set(final int engine, final long sequence, final double n1Percent, final double egtCelsius)
    {
        segment.set(INT, offset + ENGINE, engine);
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + SEQUENCE, sequence);
        segment.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + N1_PERCENT, n1Percent);
        segment.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + EGT_CELSIUS, egtCelsius);
        return this;
    }

    @Override
    public String toString()
    {
        return String.format("engine %d #%d N1 %.1f%% EGT %.0fC", engine(), sequence(), n1Percent(), egtCelsius());
    }
}

package io.weft.examples.avionics;

import io.weft.dds.FixedFlyweight;

/**
 * Engine telemetry (topic {@code engine}): a fixed layout whose first 4 bytes, the engine number, are the topic's
 * key (KEEP_LAST per engine). Big-endian, as the key is read.
 */
public final class EngineReading extends FixedFlyweight
{
    static final int ENGINE = 0;
    static final int SEQUENCE = 4;
    static final int N1_PERCENT = 12;
    static final int EGT_CELSIUS = 20;
    static final int LENGTH = 28;

    public EngineReading()
    {
        super(LENGTH);
    }

    /** One over a buffer of its own, for writing. */
    static EngineReading forWriting()
    {
        final EngineReading f = new EngineReading();
        f.allocate();
        return f;
    }

    public int engine()
    {
        return getInt(ENGINE);
    }

    /** Readings of this engine before this one. */
    public long sequence()
    {
        return getLong(SEQUENCE);
    }

    public double n1Percent()
    {
        return getDouble(N1_PERCENT);
    }

    public double egtCelsius()
    {
        return getDouble(EGT_CELSIUS);
    }

    EngineReading set(final int engine, final long sequence, final double n1Percent, final double egtCelsius)
    {
        putInt(ENGINE, engine);
        putLong(SEQUENCE, sequence);
        putDouble(N1_PERCENT, n1Percent);
        putDouble(EGT_CELSIUS, egtCelsius);
        return this;
    }

    @Override
    public String toString()
    {
        return String.format("engine %d #%d N1 %.1f%% EGT %.0fC", engine(), sequence(), n1Percent(), egtCelsius());
    }
}

package io.weft.examples.avionics;

import io.weft.dds.FixedFlyweight;

/** A position update (topic {@code position}): a fixed layout read and written in place. */
public final class Position extends FixedFlyweight
{
    static final int SEQUENCE = 0;
    static final int LATITUDE = 8;
    static final int LONGITUDE = 16;
    static final int ALTITUDE_FEET = 24;
    static final int HEADING = 32;
    static final int LENGTH = 40;

    public Position()
    {
        super(LENGTH);
    }

    /** One over a buffer of its own, for writing. */
    static Position forWriting()
    {
        final Position f = new Position();
        f.allocate();
        return f;
    }

    public long sequence()
    {
        return getLong(SEQUENCE);
    }

    public double latitude()
    {
        return getDouble(LATITUDE);
    }

    public double longitude()
    {
        return getDouble(LONGITUDE);
    }

    public double altitudeFeet()
    {
        return getDouble(ALTITUDE_FEET);
    }

    public double heading()
    {
        return getDouble(HEADING);
    }

    Position set(final long sequence, final double latitude, final double longitude, final double altitudeFeet,
        final double heading)
    {
        putLong(SEQUENCE, sequence);
        putDouble(LATITUDE, latitude);
        putDouble(LONGITUDE, longitude);
        putDouble(ALTITUDE_FEET, altitudeFeet);
        putDouble(HEADING, heading);
        return this;
    }

    @Override
    public String toString()
    {
        return String.format("position #%d %.4f %.4f %.0fft hdg %.0f", sequence(), latitude(), longitude(),
            altitudeFeet(), heading());
    }
}

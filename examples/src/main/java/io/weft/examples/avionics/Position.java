package io.weft.examples.avionics;

import io.weft.dds.FixedFlyweight;

import java.lang.foreign.ValueLayout;

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
        return segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + SEQUENCE);
    }

    public double latitude()
    {
        return segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + LATITUDE);
    }

    public double longitude()
    {
        return segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + LONGITUDE);
    }

    public double altitudeFeet()
    {
        return segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + ALTITUDE_FEET);
    }

    public double heading()
    {
        return segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + HEADING);
    }

    Position set(final long sequence, final double latitude, final double longitude, final double altitudeFeet,
        final double heading)
    {
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + SEQUENCE, sequence);
        segment.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + LATITUDE, latitude);
        segment.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + LONGITUDE, longitude);
        segment.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + ALTITUDE_FEET, altitudeFeet);
        segment.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset + HEADING, heading);
        return this;
    }

    @Override
    public String toString()
    {
        return String.format("position #%d %.4f %.4f %.0fft hdg %.0f", sequence(), latitude(), longitude(),
            altitudeFeet(), heading());
    }
}

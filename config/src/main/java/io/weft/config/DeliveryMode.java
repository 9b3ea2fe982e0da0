package io.weft.config;

import java.util.Locale;

/** How a subgroup delivers. */
public enum DeliveryMode
{
    /** Atomic multicast: one total order at every member, delivered once stable (received by every member). */
    ORDERED,
    /** Raw: delivered on receipt, FIFO per sender, no stability wait, no nulls. */
    UNORDERED;

    public String configName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    public static DeliveryMode parse(final String key, final String value)
    {
        for (final DeliveryMode mode : values())
        {
            if (mode.configName().equals(value))
            {
                return mode;
            }
        }
        throw new WeftConfigException(key, value, "must be one of ordered, unordered");
    }
}

package io.weft.config;

/** How a subgroup delivers. */
public enum DeliveryMode implements ConfigChoice
{
    /** Atomic multicast: one total order at every member, delivered once stable (received by every member). */
    ORDERED,
    /** Raw: delivered on receipt, FIFO per sender, no stability wait, no nulls. */
    UNORDERED;

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static DeliveryMode parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

package io.weft.config;

/** What a DDS topic promises its subscribers (Spindle, section 4.6): each level adds to the one before. */
public enum QosLevel implements ConfigChoice
{
    /** Delivered on receipt, FIFO per publisher, discarded after the callback (raw mode). */
    UNORDERED,
    /** One total order at every member, delivered once stable, discarded after the callback. */
    ATOMIC_MULTICAST,
    /** Ordered; every member also keeps the last {@code history} samples in memory; a late joiner receives them. */
    VOLATILE_STORAGE,
    /** Ordered; every member appends each sample to its log before it counts it persisted; replayed on restart. */
    LOGGED_STORAGE;

    /** Whether every member of the domain stores the topic (so that any member can hand it to a joiner). */
    public boolean stored()
    {
        return this == VOLATILE_STORAGE || this == LOGGED_STORAGE;
    }

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static QosLevel parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

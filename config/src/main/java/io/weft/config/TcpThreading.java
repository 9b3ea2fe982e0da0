package io.weft.config;

/**
 * Which threads of a tcp member read the sockets and run the predicates.
 */
public enum TcpThreading implements ConfigChoice
{
    /** A selector thread reads and a predicate thread runs the triggers: reads overlap triggers, a wake-up between. */
    SEPARATE,
    /**
     * The selector thread runs the predicate passes between its reads: no wake-up between an arriving push and the
     * trigger it enables, two threads fewer per member. A delivery callback then delays this member's reads.
     */
    MERGED,
    /** {@link #MERGED} where {@link Cores#scarce() cores are scarce}, else {@link #SEPARATE}. */
    AUTO;

    /** Whether the selector thread runs the predicates on this host. */
    public boolean merged()
    {
        return this == MERGED || (this == AUTO && Cores.scarce());
    }

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static TcpThreading parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

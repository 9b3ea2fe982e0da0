package io.weft.config;

/**
 * Which threads of a tcp or rdma member run the predicates: a predicate thread of their own, or the transport's thread
 * (the tcp selector thread between its reads, the rdma progress thread between its polls of the completion queue).
 */
public enum TransportThreading implements ConfigChoice
{
    /**
     * The transport's thread reads (polls) and a predicate thread runs the triggers: reads overlap triggers, a wake-up
     * between.
     */
    SEPARATE,
    /**
     * The transport's thread runs the predicate passes between its reads (polls): no wake-up between an arriving push
     * and the trigger it enables, one thread fewer per member. A delivery callback then delays this member's reads.
     */
    MERGED,
    /** {@link #MERGED} where {@link Cores#scarce() cores are scarce}, else {@link #SEPARATE}. */
    AUTO;

    /** Whether the transport's thread runs the predicates on this host. */
    public boolean merged()
    {
        return this == MERGED || (this == AUTO && Cores.scarce());
    }

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static TransportThreading parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

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
    /** {@link #MERGED} when the host has fewer than {@link #MERGE_BELOW_CORES} cores, else {@link #SEPARATE}. */
    AUTO;

    /** Below this many cores a member's hot threads outnumber them and every hand-off is a context switch. */
    public static final int MERGE_BELOW_CORES = 4;

    /** Whether the selector thread runs the predicates on this host. */
    public boolean merged()
    {
        return this == MERGED || (this == AUTO && Runtime.getRuntime().availableProcessors() < MERGE_BELOW_CORES);
    }

    public static TcpThreading parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

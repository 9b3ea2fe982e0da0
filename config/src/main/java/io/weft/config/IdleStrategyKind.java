package io.weft.config;

/** How the predicate thread waits when a pass over its predicates found no work. */
public enum IdleStrategyKind implements ConfigChoice
{
    /** Spin forever: lowest latency, burns a core. Only for dedicated cores. */
    BUSY_SPIN,
    /** Spin, then yield forever: never sleeps, still burns a core under contention. */
    YIELDING,
    /** Spin, then yield, then park until woken (the default): a quiet member costs almost nothing. */
    BACKOFF;

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static IdleStrategyKind parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

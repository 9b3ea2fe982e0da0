package io.weft.config;

/** Whether the predicate thread yields its core after a pass that did work (weft.idle.yield-after-work). */
public enum YieldAfterWork implements ConfigChoice
{
    /**
     * Yield after every pass that fired a trigger: where the hot threads of the group outnumber the cores, the thread
     * that just acknowledged or delivered lets the thread waiting for that (another member's, or this member's
     * application) run now instead of at the end of its time slice; and the next pass finds a larger batch. With no
     * other runnable thread on the core, a yield returns at once.
     */
    ALWAYS,
    /** Go straight on to the next pass. */
    NEVER,
    /** {@link #ALWAYS} where {@link Cores#scarce() cores are scarce}, else {@link #NEVER}. */
    AUTO;

    /** Whether the predicate thread yields after a pass that did work on this host. */
    public boolean yields()
    {
        return this == ALWAYS || (this == AUTO && Cores.scarce());
    }

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static YieldAfterWork parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

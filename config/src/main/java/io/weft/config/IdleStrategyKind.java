package io.weft.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How the predicate thread waits when a pass over its predicates found no work. */
public enum IdleStrategyKind
{
    /** Spin forever: lowest latency, burns a core. Only for dedicated cores. */
    BUSY_SPIN,
    /** Spin, then yield forever: never sleeps, still burns a core under contention. */
    YIELDING,
    /** Spin, then yield, then park until woken (the default): a quiet member costs almost nothing. */
    BACKOFF;

    public String configName()
    {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static IdleStrategyKind parse(final String key, final String value)
    {
        for (final IdleStrategyKind kind : values())
        {
            if (kind.configName().equals(value))
            {
                return kind;
            }
        }
        throw new WeftConfigException(key, value, "must be one of " +
            Arrays.stream(values()).map(IdleStrategyKind::configName).collect(Collectors.joining(", ")));
    }
}

package io.weft.config;

import java.time.Duration;

/**
 * Idle strategy of the predicate thread: after a pass with no work it spins {@code maxSpins} times, then yields
 * {@code maxYields} times, then parks until a doorbell rings (a push arrives or the application sends).
 *
 * @param strategy  busy-spin, yielding or backoff.
 * @param maxSpins  passes that spin before yielding.
 * @param maxYields passes that yield before parking.
 * @param maxPark   upper bound of one park: a safety net so that a lost doorbell costs latency, never liveness.
 * @param yieldAfterWork whether a pass that did work is followed by {@link Thread#yield()}.
 */
public record IdleConfig(IdleStrategyKind strategy, int maxSpins, int maxYields, Duration maxPark,
    YieldAfterWork yieldAfterWork)
{
    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public IdleConfig
    {
        WeftConfigException.check(yieldAfterWork != null, "weft.idle.yield-after-work", null, "must be set");
        WeftConfigException.check(strategy != null, "weft.idle.strategy", null, "must be set");
        WeftConfigException.check(maxSpins >= 0 && maxSpins <= 1_000_000, "weft.idle.max-spins", maxSpins,
            "must be in 0..1000000");
        WeftConfigException.check(maxYields >= 0 && maxYields <= 1_000_000, "weft.idle.max-yields", maxYields,
            "must be in 0..1000000");
        WeftConfigException.check(maxPark != null && maxPark.toNanos() >= 1_000 &&
            maxPark.compareTo(Duration.ofHours(1)) <= 0,
            "weft.idle.max-park", maxPark, "must be a duration between 1us and 1h");
    }
}

package io.weft.config;

import java.time.Duration;

/**
 * Failure-detection timing. Used by the membership layer; declared now so that files written today stay valid.
 *
 * @param heartbeatInterval how often a member bumps and pushes its heartbeat counter.
 * @param failureTimeout    how long a silent heartbeat is tolerated before the member is suspected.
 */
public record FailureConfig(Duration heartbeatInterval, Duration failureTimeout)
{
    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public FailureConfig
    {
        WeftConfigException.check(heartbeatInterval != null && heartbeatInterval.toMillis() >= 1 &&
            heartbeatInterval.compareTo(Duration.ofMinutes(1)) <= 0, "weft.failure.heartbeat-interval",
            heartbeatInterval, "must be a duration between 1ms and 1m");
        WeftConfigException.check(failureTimeout != null &&
            failureTimeout.compareTo(heartbeatInterval.multipliedBy(2)) >= 0 &&
            failureTimeout.compareTo(Duration.ofMinutes(10)) <= 0, "weft.failure.failure-timeout", failureTimeout,
            "must be at least twice weft.failure.heartbeat-interval (" + heartbeatInterval + ") and at most 10m");
    }
}

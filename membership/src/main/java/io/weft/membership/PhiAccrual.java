package io.weft.membership;

/**
 * Suspicion level of one member from the arrival times of its heartbeats (Hayashibara et al.'s phi accrual
 * detector, with the logistic approximation of the normal distribution that Akka uses): phi is -log10 of the
 * probability that a heartbeat arrives later than the current silence, given the mean and standard deviation of the
 * intervals seen so far (exponentially weighted). A jittery member earns a wider margin; a steady one a tighter one.
 */
final class PhiAccrual
{
    private static final double WEIGHT = 0.1;

    private final double minStdDevMillis;
    private double mean;
    private double variance;

    PhiAccrual(final double expectedIntervalMillis, final double minStdDevMillis)
    {
        this.mean = expectedIntervalMillis;
        this.variance = (expectedIntervalMillis / 4) * (expectedIntervalMillis / 4);
        this.minStdDevMillis = minStdDevMillis;
    }

    /** A heartbeat arrived {@code intervalMillis} after the previous one. */
    void sample(final double intervalMillis)
    {
        final double delta = intervalMillis - mean;
        mean += WEIGHT * delta;
        variance = (1 - WEIGHT) * (variance + WEIGHT * delta * delta);
    }

    /** phi after {@code silenceMillis} without a heartbeat. */
    double phi(final double silenceMillis)
    {
        final double std = Math.max(Math.sqrt(variance), minStdDevMillis);
        final double y = (silenceMillis - mean) / std;
        // clamped so that a very long silence reads as a large finite phi (about 323), not infinity
        final double e = Math.max(Math.exp(-y * (1.5976 + 0.070566 * y * y)), Double.MIN_VALUE);
        return silenceMillis > mean ? -Math.log10(e / (1.0 + e)) : -Math.log10(1.0 - 1.0 / (1.0 + e));
    }

    double mean()
    {
        return mean;
    }
}

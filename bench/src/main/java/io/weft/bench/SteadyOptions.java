package io.weft.bench;

import picocli.CommandLine.Option;

import java.time.Duration;

/** The steady-state method's options, the same for {@code bench}, {@code bench ablation} and {@code bench compare}. */
final class SteadyOptions
{
    @Option(names = "--warmup", defaultValue = "4s", description = "Warm-up before the window: 4s, 500ms, PT4S (default ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--measure", defaultValue = "10s", description = "The measurement window (default ${DEFAULT-VALUE}).")
    Duration measure;

    @Option(names = "--runs", defaultValue = "3", description = "Runs of every row; medians and min-max (default ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--verbose", description = "Print every member's output.")
    boolean verbose;

    /** What is wrong with these options, or null. */
    String validate()
    {
        if (warmup.isNegative() || measure.isNegative() || measure.isZero() || measure.toHours() >= 1)
        {
            return "--warmup must be >= 0 and --measure in (0, 1h), were " + warmup + " and " + measure;
        }
        if (runs < 1 || runs > 50)
        {
            return "--runs must be in 1..50, was " + runs;
        }
        return null;
    }
}

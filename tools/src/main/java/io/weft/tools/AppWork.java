package io.weft.tools;

import picocli.CommandLine.Option;

/**
 * Application work that a member program stands in for by busy-waiting: after each send (a slow sender) and in each
 * delivery callback (a slow consumer). The options of {@code mc-member}, {@code bench} and {@code bench-member}.
 */
public final class AppWork
{
    private static final long MAX_MICROS = 10_000_000; // 10 s of work per message is a stalled member, not a load

    @Option(names = "--delay-us", defaultValue = "0",
        description = "Busy-wait this long after each send (a slow sender).")
    long delayMicros;

    @Option(names = "--callback-us", defaultValue = "0",
        description = "Busy-wait this long in every delivery callback.")
    long callbackMicros;

    public long delayMicros()
    {
        return delayMicros;
    }

    public long delayNanos()
    {
        return delayMicros * 1000;
    }

    public long callbackMicros()
    {
        return callbackMicros;
    }

    public long callbackNanos()
    {
        return callbackMicros * 1000;
    }

    /** What is wrong with the options, or null. */
    public String problem()
    {
        final String delay = outOfRange("--delay-us", delayMicros);
        return delay != null ? delay : outOfRange("--callback-us", callbackMicros);
    }

    private static String outOfRange(final String option, final long micros)
    {
        return micros < 0 || micros > MAX_MICROS ? option + " must be in 0.." + MAX_MICROS + ", was " + micros : null;
    }

    /** Holds the calling thread for {@code nanos} (none when 0), as application work on that thread would. */
    public static void busy(final long nanos)
    {
        if (nanos > 0)
        {
            final long until = System.nanoTime() + nanos;
            while (System.nanoTime() < until)
            {
                Thread.onSpinWait();
            }
        }
    }
}

package io.weft.examples.kv;

import java.util.Arrays;
import java.util.Locale;

/**
 * INFO's instantaneous rates, as Redis keeps them: commands processed, bytes read from clients and bytes written to
 * them, each a rate per second over its last {@value #SAMPLES} samples, taken every {@value #PERIOD_MS} ms (Redis's
 * serverCron) by the event loop's timer ({@link KvServer}). Synchronized: taken on the timer, read by INFO, cleared
 * by CONFIG RESETSTAT; ten times a second costs nothing.
 */
final class InstantaneousRates
{
    static final int SAMPLES = 16;
    static final long PERIOD_MS = 100;
    private static final int OPS = 0;
    private static final int INPUT = 1;
    private static final int OUTPUT = 2;

    private final double[][] rates = new double[3][SAMPLES];
    private final long[] last = new long[3];
    private long lastNanos = Long.MIN_VALUE;
    private int next;

    /** A sample at {@code nanos} ({@link System#nanoTime}) of the totals so far; the first one sets the base. */
    synchronized void sample(final long nanos, final long ops, final long input, final long output)
    {
        final long[] now = {ops, input, output};
        if (lastNanos != Long.MIN_VALUE && nanos - lastNanos > 0)
        {
            for (int m = 0; m < 3; m++)
            {
                rates[m][next] = (now[m] - last[m]) * 1e9 / (nanos - lastNanos);
            }
            next = (next + 1) % SAMPLES;
        }
        System.arraycopy(now, 0, last, 0, 3);
        lastNanos = nanos;
    }

    /** CONFIG RESETSTAT: no samples; the next one sets the base again. */
    synchronized void reset()
    {
        for (final double[] m : rates)
        {
            Arrays.fill(m, 0);
        }
        lastNanos = Long.MIN_VALUE;
        next = 0;
    }

    /** INFO's lines: commands a second, and kilobytes (1,024 bytes) a second in and out, as Redis writes them. */
    synchronized String lines()
    {
        return "instantaneous_ops_per_sec:" + (long)mean(OPS) + "\r\ninstantaneous_input_kbps:" +
            String.format(Locale.ROOT, "%.2f", mean(INPUT) / 1024) + "\r\ninstantaneous_output_kbps:" +
            String.format(Locale.ROOT, "%.2f", mean(OUTPUT) / 1024) + "\r\n";
    }

    /** Redis's mean: the sum over all {@value #SAMPLES} places, those not yet sampled as 0. */
    private double mean(final int metric)
    {
        double sum = 0;
        for (final double rate : rates[metric])
        {
            sum += rate;
        }
        return sum / SAMPLES;
    }
}

package io.weft.bench.peers;

import org.HdrHistogram.Histogram;

import java.util.Locale;

/** The BENCH line a peer member prints, in the same fields as Weft's bench members. */
public final class PeerResult
{
    private PeerResult()
    {
    }

    static String json(final int member, final boolean complete, final long delivered, final double seconds,
        final int size, final Histogram latency, final String hash, final String check)
    {
        final boolean any = latency.getTotalCount() > 0;
        return String.format(Locale.ROOT, "BENCH {\"member\":%d,\"complete\":%b,\"delivered\":%d,\"seconds\":%.3f," +
                "\"delivered_msgs_per_sec\":%.3f,\"mb_per_sec\":%.3f,\"latency_p50_us\":%d,\"latency_p99_us\":%d," +
                "\"latency_p999_us\":%d,\"hash\":\"%s\",\"check\":\"%s\"}", member, complete, delivered, seconds,
            delivered / seconds, delivered * (double)size / seconds / 1e6,
            any ? latency.getValueAtPercentile(50) : 0, any ? latency.getValueAtPercentile(99) : 0,
            any ? latency.getValueAtPercentile(99.9) : 0, hash, check);
    }

    /**
     * Waits until {@code deadlineNanos}: the fixed-rate pacing of latency runs, shared by every system. Parks for all
     * but the last 50 us, then spins: a yielding pacer would keep a core busy and slow everyone's other threads.
     */
    public static void pace(final long deadlineNanos)
    {
        long left;
        while ((left = deadlineNanos - System.nanoTime()) > 50_000)
        {
            java.util.concurrent.locks.LockSupport.parkNanos(left - 50_000);
        }
        while (System.nanoTime() < deadlineNanos)
        {
            Thread.onSpinWait();
        }
    }
}

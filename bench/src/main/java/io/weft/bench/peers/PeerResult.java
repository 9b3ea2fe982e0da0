package io.weft.bench.peers;

import org.HdrHistogram.Histogram;

import java.util.Locale;

/** The BENCH line a peer member prints, in the same fields as Weft's bench members. */
final class PeerResult
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

    /** Busy-waits (yielding) until {@code deadlineNanos}: the fixed-rate pacing of latency runs. */
    static void pace(final long deadlineNanos)
    {
        while (System.nanoTime() < deadlineNanos)
        {
            Thread.yield();
        }
    }
}

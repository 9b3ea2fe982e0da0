package io.weft.bench.steady;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The steady-state method of a member process, the same for every system. A member prints {@code READY} once it is
 * connected; the coordinator answers every member with one {@code GO <t0>}, an instant on the host's monotonic clock
 * ({@link System#nanoTime()} is CLOCK_MONOTONIC on Linux, shared by every process), so all members share one
 * time line: warm-up from t0, the measurement window after it, and senders go on for {@link #TAIL_NANOS} more so
 * that every receiver's window is full of traffic. A clock thread samples the delivered count at the window's edges:
 * the delivery path only bumps a counter, with no clock read per message.
 */
public final class SteadyClock
{
    /** Senders keep sending this long after the window, so late receivers still measure under full load. */
    public static final long TAIL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private static final VarHandle DELIVERED;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            DELIVERED = lookup.findVarHandle(SteadyClock.class, "delivered", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final long t0;
    private final long measureStart;
    private final long measureEnd;
    private final long stopAt;
    private final Recorder latency = new Recorder(3);
    private final Recorder peerLatency = new Recorder(3);
    private final CountDownLatch windowOpened = new CountDownLatch(1);
    private final CountDownLatch windowDone = new CountDownLatch(1);
    @SuppressWarnings("unused") // through DELIVERED: one writer (the delivery thread), read by the clock thread
    private long delivered;
    private Histogram windowLatency;
    private Histogram windowPeerLatency;
    private long windowCount;
    private long windowNanos;

    SteadyClock(final long t0, final long warmupNanos, final long measureNanos)
    {
        this.t0 = t0;
        this.measureStart = t0 + warmupNanos;
        this.measureEnd = measureStart + measureNanos;
        this.stopAt = measureEnd + TAIL_NANOS;
        Thread.ofPlatform().daemon(true).name("steady-clock").start(this::sampleWindow);
    }

    /** Prints READY, waits for the coordinator's {@code GO <t0>} on standard input and starts the clock. */
    public static SteadyClock awaitGo(final long warmupNanos, final long measureNanos) throws IOException
    {
        System.out.println("READY");
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        final String line = in.readLine();
        if (line == null || !line.startsWith("GO "))
        {
            throw new IOException("expected 'GO <t0>' from the bench coordinator, got " + line);
        }
        return new SteadyClock(Long.parseLong(line.substring(3).trim()), warmupNanos, measureNanos);
    }

    /** Whether a sender should go on: until the window and its tail are over. */
    public boolean sending()
    {
        return System.nanoTime() < stopAt;
    }

    /** Waits until message {@code i} of a fixed-rate sender is due ({@code intervalNanos} apart from t0). */
    public void pace(final long i, final long intervalNanos)
    {
        parkUntil(sendAt(i, intervalNanos));
    }

    /** When message {@code i} is due at one message every {@code intervalNanos}. */
    public long sendAt(final long i, final long intervalNanos)
    {
        return t0 + i * intervalNanos;
    }

    /** Whether {@code nanos}, an instant of {@link System#nanoTime()}, lies in the measurement window. */
    public boolean inWindow(final long nanos)
    {
        return nanos - measureStart >= 0 && nanos - measureEnd < 0;
    }

    /** The instant every sender stops. */
    public long stopAt()
    {
        return stopAt;
    }

    /** Counts one delivered data message (single writer: the delivering thread). */
    public void delivered()
    {
        add(1);
    }

    /** Counts {@code n} units (messages, rounds or bytes; single writer). */
    public void add(final long n)
    {
        // release store: no fence on the delivery path; the clock thread's acquire load sees a recent count
        DELIVERED.setRelease(this, (long)DELIVERED.get(this) + n);
    }

    /**
     * Records a latency in nanoseconds. Warm-up samples are recorded too, and discarded when the window opens: the
     * recording path is then compiled before the window, not inside it (recording only in the window put a C2
     * compilation and a deoptimization of the delivery callback in the window's first half second).
     */
    public void latency(final long nanos)
    {
        latency.recordValue(Math.max(0, nanos));
    }

    /** Records the latency of another sender's message, from its send to its delivery here (as {@link #latency}). */
    public void peerLatency(final long nanos)
    {
        peerLatency.recordValue(Math.max(0, nanos));
    }

    /**
     * Whether the clock thread has opened the window: warm-up samples discarded, the start count taken. A sample
     * recorded after {@link #inWindow} turns true but before this may still be discarded with the warm-up's (the clock
     * thread wakes late on a busy host).
     */
    public boolean windowOpened()
    {
        return windowOpened.getCount() == 0;
    }

    /** Whether the window is over and sampled ({@link #awaitWindow} without waiting). */
    public boolean windowOver()
    {
        return windowDone.getCount() == 0;
    }

    /** Waits until the measurement window has been sampled; false if that did not happen in time. */
    public boolean awaitWindow(final long timeoutNanos) throws InterruptedException
    {
        return windowDone.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void sampleWindow()
    {
        parkUntil(measureStart);
        latency.reset(); // the warm-up's samples
        peerLatency.reset();
        final long startCount = (long)DELIVERED.getAcquire(this);
        final long startNanos = System.nanoTime();
        windowOpened.countDown();
        parkUntil(measureEnd);
        final long endCount = (long)DELIVERED.getAcquire(this);
        final long endNanos = System.nanoTime();
        windowLatency = latency.getIntervalHistogram();
        windowPeerLatency = peerLatency.getIntervalHistogram();
        windowCount = endCount - startCount;
        windowNanos = endNanos - startNanos;
        windowDone.countDown();
    }

    /**
     * The member's {@code BENCH} line: the window's rate, latency percentiles (microseconds, from nanosecond
     * samples) of its own messages ({@code latency_*}) and of the other senders' ({@code peer_latency_*}), the
     * delivery check of {@code deliveries}, and {@code extra} JSON fields (each ending with a comma).
     */
    public String report(final int member, final int size, final long sent, final Deliveries deliveries,
        final String extra)
    {
        final double seconds = windowNanos / 1e9;
        return String.format(Locale.ROOT, "BENCH {\"member\":%d,\"window_s\":%.3f,\"delivered_in_window\":%d," +
                "\"delivered_msgs_per_sec\":%.1f,\"mb_per_sec\":%.3f,%s,%s,\"sent\":%d,\"delivered_total\":%d,%s" +
                "\"hash\":\"%s\",\"check\":\"%s\"}", member, seconds, windowCount,
            seconds > 0 ? windowCount / seconds : 0, seconds > 0 ? windowCount * (double)size / seconds / 1e6 : 0,
            percentiles("latency", windowLatency), percentiles("peer_latency", windowPeerLatency), sent,
            deliveries.delivered(), extra, Long.toHexString(deliveries.hash()), deliveries.check().replace('"', '\''));
    }

    /** {@code <name>_p50_us}, p99, p99.9 and {@code <name>_samples} of a window's histogram (zeros if none). */
    private String percentiles(final String name, final Histogram window)
    {
        final Histogram h = windowOver() ? window : new Histogram(3); // not sampled: no samples
        final boolean any = h.getTotalCount() > 0;
        return String.format(Locale.ROOT, "\"%1$s_p50_us\":%2$.2f,\"%1$s_p99_us\":%3$.2f,\"%1$s_p999_us\":%4$.2f," +
                "\"%1$s_samples\":%5$d", name, any ? h.getValueAtPercentile(50) / 1e3 : 0,
            any ? h.getValueAtPercentile(99) / 1e3 : 0, any ? h.getValueAtPercentile(99.9) / 1e3 : 0,
            h.getTotalCount());
    }

    /**
     * Parks until {@code deadline}, never spinning: pacing must not take a core from the systems measured (spinning the
     * last 50 us before each send took half a core at 10k msgs/s on a 2-core host). A late wake-up sends late; the
     * latency is measured from the actual send, and the schedule's absolute instants keep the rate.
     */
    public static void parkUntil(final long deadline)
    {
        long left;
        while ((left = deadline - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(left);
        }
    }
}

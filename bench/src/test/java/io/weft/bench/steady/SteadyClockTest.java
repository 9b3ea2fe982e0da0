package io.weft.bench.steady;

import io.weft.testkit.Await;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a member's {@code BENCH} line reports of its window: own-delivery latency and, when asked, the others'. */
@Timeout(30)
class SteadyClockTest
{
    private static final long AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    @Test
    void peerLatencyTimesTheOtherSendersMessagesOnlyWhenAsked()
    {
        final SteadyRun.Report paced = window(true);
        assertEquals(2, paced.get("latency_samples"), "member 0's own messages");
        assertEquals(3, paced.get("peer_latency_samples"), "members 1 and 2's messages");
        assertTrue(paced.get("peer_latency_p50_us") >= AGE_NANOS / 1e3, "from their send instants: " + paced);
        assertTrue(paced.get("latency_p50_us") >= AGE_NANOS / 1e3, "from their send instants: " + paced);

        final SteadyRun.Report flatOut = window(false);
        assertEquals(2, flatOut.get("latency_samples"));
        assertEquals(0, flatOut.get("peer_latency_samples"), "flat out: no clock read for the others' messages");
        assertEquals(0, flatOut.get("peer_latency_p50_us"));
    }

    /**
     * Member 0 of three senders delivers 2 messages of its own and 3 of the others inside a measurement window (of a
     * second: a busy host may hold this thread back for a while between the window's opening and the deliveries).
     */
    private static SteadyRun.Report window(final boolean peerLatency)
    {
        final SteadyClock clock = new SteadyClock(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(20),
            TimeUnit.SECONDS.toNanos(1));
        final Deliveries deliveries = new Deliveries(0, 3, 3);
        deliveries.clock(clock, peerLatency);
        // the clock thread's opening, not the instant: it may wake late and discard what came before as warm-up
        Await.until(clock::windowOpened, "the window opens");
        final int[] senders = {0, 1, 2, 0, 1};
        final long[] next = new long[3];
        for (final int sender : senders)
        {
            final UnsafeBuffer b = new UnsafeBuffer(new byte[64]);
            Payload.write(b, 0, 64, Payload.KIND_DATA, sender, next[sender]++, System.nanoTime() - AGE_NANOS);
            deliveries.onMessage(b, 0, 64);
        }
        Await.until(clock::windowOver, "the window closes");
        assertEquals("ok", deliveries.check());
        return SteadyRun.parse(clock.report(0, 64, 2, deliveries, ""));
    }
}

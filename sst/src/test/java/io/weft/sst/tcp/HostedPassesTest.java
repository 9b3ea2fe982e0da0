package io.weft.sst.tcp;

import io.weft.config.TcpOptions;
import io.weft.config.TransportThreading;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.predicates.PredicateKind;
import io.weft.predicates.PredicateThread;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code weft.transport.tcp.threading = merged}: the selector thread runs the predicate passes between its reads.
 * Real tcp tables on loopback, two members in one JVM.
 */
@Timeout(90)
class HostedPassesTest
{
    private static final SstLayout LAYOUT = SstLayout.builder().counter("ping").counter("pong").counter("seq")
        .bytes("payload", 4096).build();
    private static final Column PING = LAYOUT.column("ping");
    private static final Column PONG = LAYOUT.column("pong");
    private static final Column SEQ = LAYOUT.column("seq");
    private static final Column PAYLOAD = LAYOUT.column("payload");


    @Test
    void theSelectorThreadRunsThePassesAndReadsOnWithoutThem() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 2).tcpThreading(TransportThreading.MERGED).build();
        final List<Sst> tables = openTwo(config);
        try (PredicateThread p0 = hosted("m0", tables.get(0), config);
            PredicateThread p1 = hosted("m1", tables.get(1), config))
        {
            final Sst s0 = tables.get(0);
            final Sst s1 = tables.get(1);
            final List<String> threads = new CopyOnWriteArrayList<>();
            p1.register("echo", PredicateKind.RECURRENT, () -> s1.counter(0, PING) > s1.counter(1, PONG), () ->
            {
                threads.add(Thread.currentThread().getName());
                s1.setCounter(PONG, s1.counter(0, PING));
                s1.push(PONG, s1.others());
            });
            p0.start();
            p1.start();
            assertTrue(p1.thread().getName().startsWith("weft-tcp-"), p1.thread().getName());
            for (int i = 1; i <= 2_000; i++)
            {
                s0.setCounter(PING, i);
                s0.push(PING, s0.others());
                final long ping = i;
                Await.until(() -> s0.counter(1, PONG) == ping, "pong " + i);
            }
            assertTrue(threads.stream().allMatch(n -> n.equals(p1.thread().getName())), threads.toString());

            p1.close(); // unhosts: the passes stop, the selector thread reads on
            s0.setCounter(PING, 5_000);
            s0.push(PING, s0.others());
            Await.until(() -> s1.counter(0, PING) == 5_000, "a push applied after the passes stopped");
            assertEquals(2_000, s1.counter(1, PONG), "no pass ran after close");
        }
        finally
        {
            tables.forEach(Sst::close);
        }
    }

    /**
     * A pass that runs longer than a heartbeat interval (a slow delivery callback) keeps the selector thread from
     * reading: the failure detector must not take the silence it causes for the peers' silence.
     */
    @Test
    void aLongPassIsNoEvidenceAgainstThePeers() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 2).tcpThreading(TransportThreading.MERGED).build();
        final long interval = config.failure().heartbeatInterval().toNanos();
        final List<Sst> tables = openTwo(config);
        try (PredicateThread p1 = hosted("m1", tables.get(1), config))
        {
            final Sst s0 = tables.get(0);
            final Sst s1 = tables.get(1);
            final CountDownLatch inPass = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            p1.register("slow", PredicateKind.ONE_TIME, () -> s1.counter(0, PING) == 1, () ->
            {
                inPass.countDown();
                awaitUninterruptibly(release);
            });
            p1.start();
            s0.setCounter(PING, 1);
            s0.push(PING, s0.others());
            assertTrue(inPass.await(20, TimeUnit.SECONDS), "the slow trigger ran");
            final long heardBefore = s1.lastHeardNanos(0);
            final long deadline = System.nanoTime() + 3 * interval;
            Await.until(() -> System.nanoTime() > deadline, "three heartbeat intervals into the pass");
            final long heard = s1.lastHeardNanos(0);
            release.countDown();
            assertTrue(System.nanoTime() - heard < 2 * interval, "last heard " +
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - heard) + " ms ago during a pass of " +
                TimeUnit.NANOSECONDS.toMillis(3 * interval) + " ms (before it: " + heardBefore + ")");
        }
        finally
        {
            tables.forEach(Sst::close);
        }
    }

    /**
     * Both members push far more than the send buffers and the socket buffers hold, from their passes, at once. A pass waiting for room must read meanwhile: otherwise each selector thread waits for the other to read,
     * and after the failure timeout each takes the other for frozen.
     */
    @Test
    void passesPushingIntoEachOthersFullBuffersKeepReading() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 2)
            .tcp(new TcpOptions(TcpOptions.MIN_SEND_BUFFER, 64 * 1024, true, TransportThreading.MERGED)).build();
        final List<Sst> tables = openTwo(config);
        final List<String> failures = new CopyOnWriteArrayList<>();
        tables.forEach(t -> t.addFailureListener((rank, reason) -> failures.add(rank + ": " + reason)));
        final int rounds = 8;
        final int pushesPerPass = 64; // 64 x 4 KiB per pass: four times the send buffer
        final List<PredicateThread> threads = new ArrayList<>();
        try
        {
            for (final Sst s : tables)
            {
                final PredicateThread p = hosted("m" + s.myRank(), s, config);
                threads.add(p);
                final long[] sent = {0};
                p.register("flood", PredicateKind.RECURRENT, () -> sent[0] < (long)rounds * pushesPerPass, () ->
                {
                    for (int i = 0; i < pushesPerPass; i++)
                    {
                        s.setCounter(SEQ, ++sent[0]);
                        s.push(PAYLOAD, s.others());
                        s.push(SEQ, s.others());
                    }
                });
            }
            threads.forEach(PredicateThread::start);
            final long total = (long)rounds * pushesPerPass;
            Await.until(() -> tables.get(0).counter(1, SEQ) == total && tables.get(1).counter(0, SEQ) == total,
                () -> "every push of both members to arrive (" + tables.get(0).counter(1, SEQ) + " and " +
                    tables.get(1).counter(0, SEQ) + " of " + total + ")");
            assertEquals(List.of(), failures);
        }
        finally
        {
            threads.forEach(PredicateThread::close);
            tables.forEach(Sst::close);
        }
    }

    /** The predicate thread of {@code sst} as a member builds it: on the transport's pass host when there is one. */
    private PredicateThread hosted(final String name, final Sst sst, final WeftConfig config)
    {
        return new PredicateThread(name, config.idle(), sst.doorbell(), sst.passHost());
    }

    private static List<Sst> openTwo(final WeftConfig config) throws Exception
    {
        return Async.openAll(config, member -> Sst.open(member, LAYOUT));
    }

    private static void awaitUninterruptibly(final CountDownLatch latch)
    {
        try
        {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}

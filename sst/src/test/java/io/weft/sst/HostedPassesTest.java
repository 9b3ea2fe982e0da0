package io.weft.sst;

import io.weft.config.RdmaOptions;
import io.weft.config.TcpOptions;
import io.weft.config.TransportThreading;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.predicates.PredicateKind;
import io.weft.predicates.PredicateThread;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code threading = merged}: the tcp selector thread runs the predicate passes between its reads, the rdma progress
 * thread between its polls. Real tables on loopback (rdma: libfabric's {@code tcp;ofi_rxm}), two members in one JVM.
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


    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"TCP", "RDMA"})
    void theTransportThreadRunsThePassesAndReadsOnWithoutThem(final TransportKind kind) throws Exception
    {
        final WeftConfig config = merged(kind);
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
            assertTrue(p1.thread().getName().startsWith("weft-" + kind.configName() + "-"), p1.thread().getName());
            for (int i = 1; i <= 2_000; i++)
            {
                s0.setCounter(PING, i);
                s0.push(PING, s0.others());
                final long ping = i;
                Await.until(() -> s0.counter(1, PONG) == ping, "pong " + i);
            }
            assertTrue(threads.stream().allMatch(n -> n.equals(p1.thread().getName())), threads.toString());

            p1.close(); // unhosts: the passes stop, the transport's thread reads on
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
     * A pass that runs longer than the failure timeout (a slow delivery callback) keeps the transport's thread from
     * reading (polling): the silence it causes is not the peers', and no member fails. Over tcp this thread hears the
     * beats, so it says "now" while a pass runs long; over rdma the beats go to the control channel's own thread. A
     * push to the member in the pass lands once the pass ends (over rdma its write completes only then).
     */
    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"TCP", "RDMA"})
    void aPassLongerThanTheFailureTimeoutIsNoEvidenceAgainstAnyone(final TransportKind kind) throws Exception
    {
        final WeftConfig config = merged(kind);
        final long interval = config.failure().heartbeatInterval().toNanos();
        final long pass = config.failure().failureTimeout().toNanos() + 2 * interval;
        final List<Sst> tables = openTwo(config);
        final List<String> failures = new CopyOnWriteArrayList<>();
        tables.forEach(t -> t.addFailureListener((rank, reason) -> failures.add(rank + ": " + reason)));
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
            final long deadline = System.nanoTime() + pass;
            // beats keep both members heard while the pass runs; member 0 pushes again meanwhile
            final long beatMillis = Math.max(1, config.failure().heartbeatInterval().toMillis());
            s0.setCounter(PING, 2);
            s0.push(PING, s0.others());
            long worst = 0;
            while (System.nanoTime() < deadline)
            {
                s0.beat(s0.others());
                s1.beat(s1.others());
                final long now = System.nanoTime();
                worst = Math.max(worst, Math.max(now - s1.lastHeardNanos(0), now - s0.lastHeardNanos(1)));
                Thread.sleep(beatMillis); // the failure detector's beat period, not a wait for a condition
            }
            release.countDown();
            assertTrue(worst < 2 * interval + TimeUnit.MILLISECONDS.toNanos(beatMillis), "a member went unheard for " +
                TimeUnit.NANOSECONDS.toMillis(worst) + " ms during a pass of " + TimeUnit.NANOSECONDS.toMillis(pass) +
                " ms");
            Await.until(() -> s1.counter(0, PING) == 2, "the push made during the pass");
            assertEquals(List.of(), failures);
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

    /** Two members whose transport's thread runs the passes. */
    private static WeftConfig merged(final TransportKind kind)
    {
        Assumptions.assumeTrue(kind != TransportKind.RDMA || io.weft.sst.rdma.RdmaTransport.libfabricInstalled(),
            "skipped: libfabric1 is not installed");
        return TestGroups.builder(kind, 2).tcpThreading(TransportThreading.MERGED)
            .rdma(new RdmaOptions("tcp;ofi_rxm").withThreading(TransportThreading.MERGED)).build();
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

package io.weft.tools;

import io.weft.config.IdleConfig;
import io.weft.config.IdleStrategyKind;
import io.weft.config.TransportThreading;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.config.YieldAfterWork;
import io.weft.predicates.PassInvoker;
import io.weft.predicates.PredicateKind;
import io.weft.predicates.PredicateThread;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An idle member's predicate passes, parked on its transport's doorbell, cost under 5% of a core, and a push from
 * another member process still wakes them: run by a predicate thread of their own, by the tcp selector thread or the
 * rdma progress thread ({@code threading = merged}) or by an application thread in invoker mode. The park bound is an
 * hour, so only the doorbell (or, for the rdma progress thread, its next poll) can wake them in time. Until 2026-11-29
 * a merged tcp selector thread rang nobody when it hosted no passes: passes in invoker mode, and every rdma member's
 * passes (the rdma control channel is a tcp table, merged where cores are scarce) slept until
 * {@code weft.idle.max-park} (100 ms by default) after a push landed. Over libfabric an rdma member is now woken by
 * its own progress thread, which reaps the remote CQ data of a peer's write, or runs the passes itself.
 */
@Timeout(120)
class PredicateWakeTest
{
    static final SstLayout LAYOUT = SstLayout.builder().counter("value").counter("echo").build();
    static final Column VALUE = LAYOUT.column("value");
    static final Column ECHO = LAYOUT.column("echo");
    private static final IdleConfig IDLE = new IdleConfig(IdleStrategyKind.BACKOFF, 200, 50, Duration.ofHours(1),
        YieldAfterWork.AUTO);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}, threading {1}, invoker {2}")
    @CsvSource({"SHM, AUTO, false", "TCP, MERGED, false", "TCP, SEPARATE, false", "TCP, MERGED, true",
        "RDMA, MERGED, false", "RDMA, SEPARATE, false", "RDMA, MERGED, true"})
    void idlePassesAreCheapAndAPushFromAnotherProcessWakesThem(final TransportKind kind, final TransportThreading threading,
        final boolean invoker) throws Exception
    {
        final WeftConfig.Builder builder = TestGroups.builder(kind, 2).tcpThreading(threading);
        if (kind == TransportKind.RDMA)
        {
            builder.rdma(RdmaTransportTest.rdma("tcp;ofi_rxm").withThreading(threading));
        }
        final WeftConfig group = builder.build();
        final Path file = TestGroups.write(group, dir);
        final Path go = dir.resolve("go");
        final PassInvoker passInvoker = invoker ? new PassInvoker("m0", IDLE) : null;
        final AtomicBoolean stop = new AtomicBoolean();
        try (Members members = new Members(group))
        {
            final MemberProcess other = members.add(MemberProcess.start("m1", dir, PushLaterMember.class,
                file.toString(), "1", go.toString()));
            try (Sst sst = Sst.open(group.forMember(0), LAYOUT);
                PredicateThread thread = new PredicateThread("m0", IDLE, sst.doorbell(),
                    invoker ? passInvoker.hostFor(sst.doorbell()) : sst.passHost()))
            {
                final CountDownLatch fired = new CountDownLatch(1);
                thread.register("echo", PredicateKind.ONE_TIME, () -> sst.counter(1, VALUE) == 42, () ->
                {
                    sst.setCounter(ECHO, 42);
                    sst.push(ECHO, sst.others());
                    fired.countDown();
                });
                thread.start();
                final Thread owner = invoker ? Thread.ofPlatform().name("m0-invoker").daemon(true).start(() ->
                    passInvoker.invokeUntil(stop::get, System.nanoTime() + TimeUnit.MINUTES.toNanos(2))) : null;
                try
                {
                    other.awaitOutput("open", Duration.ofSeconds(30));
                    Thread.sleep(200); // past the spin and yield phases

                    final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
                    final long tid = (invoker ? owner : thread.thread()).threadId();
                    final long cpu0 = mx.getThreadCpuTime(tid);
                    final long wall0 = System.nanoTime();
                    Thread.sleep(2000);
                    final double share = (double)(mx.getThreadCpuTime(tid) - cpu0) / (System.nanoTime() - wall0);
                    // the rdma progress thread polls its completion queue every 200 us when idle (a peer's write
                    // lands only while it polls): about 10% of a core here with or without the passes (measured over
                    // one run: 228 ms separate, 254 ms merged); hosting them must not make it a spinning loop (a core)
                    final double bound = kind == TransportKind.RDMA && threading.merged() && !invoker ? 0.5 : 0.05;
                    assertTrue(share < bound, "idle passes used " + share * 100 + "% of a core");

                    Files.createFile(go);
                    assertTrue(fired.await(20, TimeUnit.SECONDS), "the push did not wake the parked passes");
                    assertEquals(0, other.awaitExit(Duration.ofSeconds(30)), other.output());
                    assertTrue(other.output().contains("echoed"), other.output());
                }
                finally
                {
                    stop.set(true);
                    if (owner != null)
                    {
                        sst.doorbell().ring();
                        owner.join(10_000);
                    }
                }
            }
        }
    }
}

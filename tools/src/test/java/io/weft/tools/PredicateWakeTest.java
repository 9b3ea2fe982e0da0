package io.weft.tools;

import io.weft.config.IdleConfig;
import io.weft.config.IdleStrategyKind;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.config.YieldAfterWork;
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
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An idle member's predicate thread, parked on its transport's doorbell, costs under 5% of a core, and a push from
 * another member process still wakes it. The park bound is an hour, so only the doorbell can wake it in time.
 */
@Timeout(120)
class PredicateWakeTest
{
    static final SstLayout LAYOUT = SstLayout.builder().counter("value").counter("echo").build();
    static final Column VALUE = LAYOUT.column("value");
    static final Column ECHO = LAYOUT.column("echo");

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void idlePredicateThreadIsCheapAndAPushFromAnotherProcessWakesIt(final TransportKind kind) throws Exception
    {
        final WeftConfig group = TestGroups.config(kind, 2);
        final Path file = TestGroups.write(group, dir);
        final Path go = dir.resolve("go");
        try (Members members = new Members(group))
        {
            final MemberProcess other = members.add(MemberProcess.start("m1", dir, PushLaterMember.class,
                file.toString(), "1", go.toString()));
            try (Sst sst = Sst.open(group.forMember(0), LAYOUT);
                PredicateThread thread = new PredicateThread("m0", new IdleConfig(IdleStrategyKind.BACKOFF, 200, 50,
                    Duration.ofHours(1), YieldAfterWork.AUTO), sst.doorbell(), sst.passHost()))
            {
                final CountDownLatch fired = new CountDownLatch(1);
                thread.register("echo", PredicateKind.ONE_TIME, () -> sst.counter(1, VALUE) == 42, () ->
                {
                    sst.setCounter(ECHO, 42);
                    sst.push(ECHO, sst.others());
                    fired.countDown();
                });
                thread.start();
                other.awaitOutput("open", Duration.ofSeconds(30));
                Thread.sleep(200); // past the spin and yield phases

                final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
                final long tid = thread.thread().threadId();
                final long cpu0 = mx.getThreadCpuTime(tid);
                final long wall0 = System.nanoTime();
                Thread.sleep(2000);
                final double share = (double)(mx.getThreadCpuTime(tid) - cpu0) / (System.nanoTime() - wall0);
                assertTrue(share < 0.05, "idle predicate thread used " + share * 100 + "% of a core");

                Files.createFile(go);
                assertTrue(fired.await(20, TimeUnit.SECONDS), "the push did not wake the parked predicate thread");
                assertEquals(0, other.awaitExit(Duration.ofSeconds(30)), other.output());
                assertTrue(other.output().contains("echoed"), other.output());
            }
        }
    }
}

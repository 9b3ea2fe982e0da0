package io.weft.predicates;

import io.weft.config.IdleConfig;
import io.weft.config.IdleStrategyKind;
import io.weft.config.ParkingDoorbell;
import io.weft.config.YieldAfterWork;
import io.weft.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class PredicateThreadTest
{
    private PredicateThread thread;

    @AfterEach
    void close()
    {
        if (thread != null)
        {
            thread.close();
        }
    }

    private PredicateThread start(final Duration maxPark)
    {
        create(maxPark).start();
        return thread;
    }

    private PredicateThread create(final Duration maxPark)
    {
        thread = new PredicateThread("t", new IdleConfig(IdleStrategyKind.BACKOFF, 100, 10, maxPark,
            YieldAfterWork.AUTO),
            new ParkingDoorbell());
        return thread;
    }

    @Test
    void oneTimeFiresExactlyOnceAndIsRemoved() throws InterruptedException
    {
        start(Duration.ofMillis(10));
        final AtomicInteger fired = new AtomicInteger();
        final AtomicInteger passesAfter = new AtomicInteger();
        final PredicateHandle once = thread.register("once", PredicateKind.ONE_TIME, () -> true, fired::incrementAndGet);
        // a recurrent witness proves many passes ran after the one-time predicate fired
        thread.register("witness", PredicateKind.RECURRENT, () -> fired.get() > 0 && passesAfter.get() < 1000,
            passesAfter::incrementAndGet);
        Await.until(() -> passesAfter.get() >= 1000, "1000 passes");
        assertEquals(1, fired.get());
        assertTrue(once.isRemoved());
    }

    @Test
    void recurrentFiresOnEveryPassWhileTrue() throws InterruptedException
    {
        start(Duration.ofMillis(10));
        final AtomicBoolean on = new AtomicBoolean(true);
        final AtomicInteger fired = new AtomicInteger();
        thread.register("rec", PredicateKind.RECURRENT, on::get, () ->
        {
            if (fired.incrementAndGet() == 500)
            {
                on.set(false);
            }
        });
        Await.until(() -> fired.get() >= 500, "500 firings");
        // once false it never fires again: a later one-time marker proves further passes happened
        final CountDownLatch later = new CountDownLatch(1);
        thread.register("marker", PredicateKind.ONE_TIME, () -> true, later::countDown);
        assertTrue(later.await(10, TimeUnit.SECONDS));
        assertEquals(500, fired.get());
    }

    @Test
    void transitionFiresOnlyOnFalseToTrueEdges() throws InterruptedException
    {
        start(Duration.ofMillis(10));
        final AtomicBoolean value = new AtomicBoolean(false);
        final AtomicInteger fired = new AtomicInteger();
        final AtomicLong evaluations = new AtomicLong();
        thread.register("edge", PredicateKind.TRANSITION, () ->
        {
            evaluations.incrementAndGet();
            return value.get();
        }, fired::incrementAndGet);
        for (int edge = 1; edge <= 5; edge++)
        {
            final long seen = evaluations.get();
            value.set(true);
            thread.wake();
            final int expected = edge;
            Await.until(() -> fired.get() == expected, "edge " + edge);
            // stays true for many evaluations: no extra firing
            Await.until(() -> evaluations.get() > seen + 50, "evaluations while true");
            assertEquals(edge, fired.get());
            final long seenTrue = evaluations.get();
            value.set(false);
            Await.until(() -> evaluations.get() > seenTrue + 5, "evaluations after false");
        }
        assertEquals(5, fired.get());
    }

    @Test
    void triggersMayRegisterAndRemovePredicatesDuringAPass() throws InterruptedException
    {
        // registered before start so that all of them join the same first pass, in this order
        create(Duration.ofMillis(10));
        final List<String> log = new CopyOnWriteArrayList<>();
        final AtomicInteger victimRuns = new AtomicInteger();
        final PredicateHandle[] victim = new PredicateHandle[1];
        final CountDownLatch chained = new CountDownLatch(1);
        // "killer" comes first in the pass and removes "victim", which is later in the same pass: victim never runs
        thread.register("killer", PredicateKind.ONE_TIME, () -> true, () ->
        {
            victim[0].remove();
            log.add("killer");
            thread.register("chained", PredicateKind.ONE_TIME, () -> true, () ->
            {
                log.add("chained");
                chained.countDown();
            });
        });
        victim[0] = thread.register("victim", PredicateKind.RECURRENT, () -> true, victimRuns::incrementAndGet);
        // a recurrent predicate that removes itself on its third firing
        final AtomicInteger selfRuns = new AtomicInteger();
        final PredicateHandle[] self = new PredicateHandle[1];
        self[0] = thread.register("self", PredicateKind.RECURRENT, () -> true, () ->
        {
            if (selfRuns.incrementAndGet() == 3)
            {
                self[0].remove();
            }
        });
        thread.start();
        assertTrue(chained.await(10, TimeUnit.SECONDS));
        final CountDownLatch later = new CountDownLatch(1);
        thread.register("marker", PredicateKind.ONE_TIME, () -> true, later::countDown);
        assertTrue(later.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("killer", "chained"), log);
        assertEquals(0, victimRuns.get(), "victim ran after its removal earlier in the same pass");
        assertEquals(3, selfRuns.get());
    }

    @Test
    void throwingTriggerIsReportedAndTheThreadKeepsRunning() throws InterruptedException
    {
        start(Duration.ofMillis(10));
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        thread.errorHandler(errors::add);
        thread.register("boom", PredicateKind.ONE_TIME, () -> true, () ->
        {
            throw new IllegalStateException("boom");
        });
        final CountDownLatch after = new CountDownLatch(1);
        thread.register("after", PredicateKind.ONE_TIME, () -> true, after::countDown);
        assertTrue(after.await(10, TimeUnit.SECONDS));
        assertEquals(1, errors.size());
        assertEquals("boom", errors.getFirst().getMessage());
    }

    @Test
    void idleThreadUsesUnderFivePercentOfACoreAndARingStillWakesIt() throws InterruptedException
    {
        // max-park of an hour: only the doorbell can wake the thread during this test
        start(Duration.ofHours(1));
        final AtomicBoolean flag = new AtomicBoolean();
        final CountDownLatch fired = new CountDownLatch(1);
        thread.register("flag", PredicateKind.ONE_TIME, flag::get, fired::countDown);
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final long tid = thread.thread().threadId();
        Await.until(thread::isAsleep, "the idle thread reaches its park phase");
        final long cpu0 = mx.getThreadCpuTime(tid);
        final long wall0 = System.nanoTime();
        Thread.sleep(2000);
        final long cpu = mx.getThreadCpuTime(tid) - cpu0;
        final long wall = System.nanoTime() - wall0;
        final double share = (double)cpu / wall;
        assertTrue(share < 0.05, "idle predicate thread used " + share * 100 + "% of a core");

        flag.set(true);
        thread.wake();
        assertTrue(fired.await(10, TimeUnit.SECONDS), "a ring did not wake the parked thread");
        // the pass that fired the trigger counts it when the pass ends
        Await.until(() -> thread.triggers() >= 1, "triggers counted");
        assertTrue(thread.passes() >= 1);
        assertTrue(thread.busyNanos() > 0);
    }

    @Test
    void closeStopsTheThread() throws InterruptedException
    {
        start(Duration.ofHours(1));
        thread.close();
        assertTrue(thread.awaitTermination(5, TimeUnit.SECONDS));
        assertFalse(thread.thread().isAlive());
    }
}

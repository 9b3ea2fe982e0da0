package io.weft.predicates;

import io.weft.config.IdleConfig;
import io.weft.config.IdleStrategyKind;
import io.weft.config.ParkingDoorbell;
import io.weft.config.YieldAfterWork;
import io.weft.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Invoker mode: a predicate thread's passes run in the application's {@code invoke()} calls, on one thread. */
@Timeout(60)
class PassInvokerTest
{
    private static final IdleConfig IDLE = new IdleConfig(IdleStrategyKind.BACKOFF, 10, 2, Duration.ofMillis(5),
        YieldAfterWork.NEVER);

    private final PassInvoker invoker = new PassInvoker("member 7", IDLE);

    private PredicateThread hosted(final String name)
    {
        return hosted(name, invoker, new ParkingDoorbell());
    }

    /** View {@code name} whose passes {@code on} runs, woken by {@code doorbell}. */
    private PredicateThread hosted(final String name, final PassInvoker on, final io.weft.config.Doorbell doorbell)
    {
        return new PredicateThread(name, IDLE, doorbell, on.hostFor(doorbell));
    }

    /** An invoker that parks at once when idle, for up to 30 s: only a wake-up ends its park in a test's time. */
    private static PassInvoker parkingLong(final String name)
    {
        return new PassInvoker(name, new IdleConfig(IdleStrategyKind.BACKOFF, 0, 0, Duration.ofSeconds(30),
            YieldAfterWork.NEVER));
    }

    @Test
    void triggersRunOnTheInvokingThreadAndOnlyWhenInvoked() throws Exception
    {
        final PredicateThread view = hosted("v0");
        final AtomicInteger fired = new AtomicInteger();
        final AtomicReference<Thread> on = new AtomicReference<>();
        final AtomicReference<String> role = new AtomicReference<>();
        view.register("count", PredicateKind.RECURRENT, () -> fired.get() < 3, () ->
        {
            fired.incrementAndGet();
            on.set(Thread.currentThread());
            role.set(ProtocolThread.role());
        });
        assertEquals(0, invoker.invoke(), "nothing is hosted before start");
        view.start();
        Thread.sleep(50); // no thread of its own: nothing may fire between calls
        assertEquals(0, fired.get());
        assertEquals(1, invoker.invoke());
        assertEquals(1, invoker.invoke());
        assertEquals(1, invoker.invoke());
        assertEquals(0, invoker.invoke(), "the condition no longer holds");
        assertEquals(3, fired.get());
        assertSame(Thread.currentThread(), on.get());
        assertSame(Thread.currentThread(), view.thread());
        assertTrue(view.isPredicateThread());
        assertTrue(role.get().startsWith("invoker thread of member 7"), role.get());
        assertNull(ProtocolThread.role(), "outside a pass the owner is an application thread: its sends may wait");
        view.close();
    }

    @Test
    void anotherThreadIsRefusedOnceTheFirstOwnsIt() throws Exception
    {
        final PredicateThread view = hosted("v0");
        view.start();
        invoker.invoke();
        assertTrue(invoker.waitsHere());
        final CompletableFuture<Throwable> other = new CompletableFuture<>();
        Thread.ofPlatform().start(() ->
        {
            try
            {
                invoker.invoke();
                other.complete(null);
            }
            catch (final Throwable ex)
            {
                other.complete(ex);
            }
        });
        final Throwable refused = other.get(10, TimeUnit.SECONDS);
        assertTrue(refused instanceof IllegalStateException, String.valueOf(refused));
        assertTrue(refused.getMessage().contains("belongs to thread " + Thread.currentThread().getName()),
            refused.getMessage());
        view.close();
    }

    @Test
    void aWaitTakesTheInvokerWhileNobodyOwnsIt() throws Exception
    {
        final CompletableFuture<Boolean> waiter = new CompletableFuture<>();
        final Thread other = Thread.ofPlatform().start(() -> waiter.complete(invoker.waitsHere()));
        assertTrue(waiter.get(10, TimeUnit.SECONDS), "nobody ran the passes: the waiting thread must");
        other.join(10_000);
        assertSame(other, invoker.owner());
        assertFalse(invoker.waitsHere(), "owned by the other thread: a wait here blocks as usual");
        assertThrows(IllegalStateException.class, invoker::invoke);
    }

    @Test
    void invokeFromInsideAPassIsRefused()
    {
        final PredicateThread view = hosted("v0");
        final AtomicReference<Throwable> inside = new AtomicReference<>();
        final AtomicInteger mayInvoke = new AtomicInteger();
        view.errorHandler(inside::set);
        view.register("reenter", PredicateKind.ONE_TIME, () -> true, () ->
        {
            mayInvoke.set(invoker.waitsHere() ? 1 : -1);
            invoker.invoke();
        });
        view.start();
        invoker.invoke();
        assertEquals(-1, mayInvoke.get(), "a callback may not wait by invoking");
        assertTrue(inside.get() instanceof IllegalStateException, String.valueOf(inside.get()));
        assertTrue(inside.get().getMessage().contains("from inside a pass"), inside.get().getMessage());
        view.close();
    }

    @Test
    void theNextViewTakesOverWhicheverUnhostsFirst()
    {
        final PredicateThread v0 = hosted("v0");
        final PredicateThread v1 = hosted("v1");
        final AtomicInteger firedV0 = new AtomicInteger();
        final AtomicInteger firedV1 = new AtomicInteger();
        v0.register("a", PredicateKind.RECURRENT, () -> true, firedV0::incrementAndGet);
        v1.register("b", PredicateKind.RECURRENT, () -> true, firedV1::incrementAndGet);
        v0.start();
        invoker.invoke();
        v1.start(); // installed before the last view closes
        v0.close(); // must not unhost v1
        invoker.invoke();
        assertEquals(1, firedV0.get());
        assertEquals(1, firedV1.get());
        v1.close();
        assertEquals(0, invoker.invoke(), "no view: no pass");
    }

    @Test
    void unhostFromAnotherThreadWaitsForTheRunningPass() throws Exception
    {
        final PredicateThread view = hosted("v0");
        final CompletableFuture<Void> inPass = new CompletableFuture<>();
        final CompletableFuture<Void> release = new CompletableFuture<>();
        view.register("slow", PredicateKind.ONE_TIME, () -> true, () ->
        {
            inPass.complete(null);
            release.join();
        });
        view.start();
        final Thread owner = Thread.ofPlatform().start(invoker::invoke);
        inPass.get(10, TimeUnit.SECONDS);
        final CompletableFuture<Boolean> stopped = CompletableFuture.supplyAsync(() ->
            invokerHostStopped(view));
        Thread.sleep(100);
        assertFalse(stopped.isDone(), "close returned while a pass was running");
        release.complete(null);
        assertTrue(stopped.get(10, TimeUnit.SECONDS));
        owner.join(10_000);
    }

    private static boolean invokerHostStopped(final PredicateThread view)
    {
        view.close();
        return true;
    }

    @Test
    void invokeUntilRunsPassesUntilDoneOrTheDeadline()
    {
        final PredicateThread view = hosted("v0");
        final AtomicInteger fired = new AtomicInteger();
        view.register("count", PredicateKind.RECURRENT, () -> fired.get() < 1000, fired::incrementAndGet);
        view.start();
        assertTrue(invoker.invokeUntil(() -> fired.get() == 1000, System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
        final long start = System.nanoTime();
        assertFalse(invoker.invokeUntil(() -> false, start + TimeUnit.MILLISECONDS.toNanos(30)));
        final long took = System.nanoTime() - start;
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(30), "returned before the deadline: " + took + " ns");
        final int before = fired.get();
        view.register("more", PredicateKind.ONE_TIME, () -> true, fired::incrementAndGet);
        final long again = System.nanoTime();
        invoker.invokeUntil(again + TimeUnit.MILLISECONDS.toNanos(30)); // no condition: passes until the deadline
        assertTrue(System.nanoTime() - again >= TimeUnit.MILLISECONDS.toNanos(30), "returned before the deadline");
        assertEquals(before + 1, fired.get(), "the passes ran while it waited");
        view.close();
    }

    @Test
    void aParkedOwnerWakesWhenTheDoorbellRings() throws Exception
    {
        final ParkingDoorbell doorbell = new ParkingDoorbell();
        final PassInvoker slow = parkingLong("member 8");
        final PredicateThread view = hosted("v0", slow, doorbell);
        final AtomicInteger pending = new AtomicInteger();
        view.register("take", PredicateKind.RECURRENT, () -> pending.get() > 0, pending::decrementAndGet);
        view.start();
        final Thread owner = Thread.ofPlatform().start(() ->
            slow.invokeUntil(() -> pending.get() < 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(20)));
        Await.until(view::isAsleep, "the owner parks, for up to max-park (30 s), unless rung");
        pending.incrementAndGet();
        doorbell.ring();
        Await.until(() -> pending.get() == 0, Duration.ofSeconds(10),
            "the ring to wake the parked owner within 10 s (max-park is 30 s)");
        pending.set(-1);
        doorbell.ring();
        owner.join(10_000);
        assertFalse(owner.isAlive());
        view.close();
    }

    /**
     * A view's doorbell may live in its table, which closes once the view is unhosted (shm): an owner asleep on it
     * must leave it before {@code unhost} returns and not touch it afterwards. Chaos on shm in invoker mode found an
     * owner that woke after the close and failed with "Already closed".
     */
    @Test
    void anOwnerAsleepOnAViewsDoorbellLeavesItBeforeUnhostReturns() throws Exception
    {
        final ClosableDoorbell doorbell = new ClosableDoorbell();
        final PassInvoker slow = parkingLong("member 10");
        final PredicateThread view = hosted("v0", slow, doorbell);
        view.start();
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final AtomicInteger steps = new AtomicInteger();
        final Thread owner = Thread.ofPlatform().start(() ->
        {
            try
            {
                for (int idle = 0; steps.incrementAndGet() < 200 || doorbell.closed.get() == 0; )
                {
                    idle = slow.invokeOrIdle(idle);
                }
            }
            catch (final Throwable t)
            {
                failed.set(t);
            }
        });
        Await.until(view::isAsleep, Duration.ofSeconds(10), "the owner to park on the doorbell");
        view.close(); // unhosts: the owner, asleep for up to 30 s, must be out of the doorbell when this returns
        doorbell.closed.set(1);
        owner.join(10_000);
        assertFalse(owner.isAlive(), "the owner did not go on after the view closed");
        assertNull(failed.get(), () -> "the owner touched the closed view's doorbell: " + failed.get());
    }

    /** A doorbell that fails every use once closed, as a closed table's memory does. */
    private static final class ClosableDoorbell implements io.weft.config.Doorbell
    {
        final AtomicInteger closed = new AtomicInteger();
        private final ParkingDoorbell inner = new ParkingDoorbell();

        private void check()
        {
            if (closed.get() != 0)
            {
                throw new IllegalStateException("Already closed");
            }
        }

        @Override
        public int prepareToSleep()
        {
            check();
            return inner.prepareToSleep();
        }

        @Override
        public void sleep(final int ticket, final long maxNanos)
        {
            check();
            inner.sleep(ticket, maxNanos);
        }

        @Override
        public void awake()
        {
            check();
            inner.awake();
        }

        @Override
        public void ring()
        {
            check();
            inner.ring();
        }
    }

    @Test
    void handedOverWorkRunsOnTheOwnerInViewsAndBetweenThem() throws Exception
    {
        final ParkingDoorbell doorbell = new ParkingDoorbell();
        final PassInvoker slow = parkingLong("member 9");
        final PredicateThread view = hosted("v0", slow, doorbell);
        view.start();
        final AtomicInteger stop = new AtomicInteger();
        final Thread owner = Thread.ofPlatform().name("the-owner").start(() ->
            slow.invokeUntil(() -> stop.get() > 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
        final AtomicReference<Thread> ranOn = new AtomicReference<>();
        final AtomicReference<String> role = new AtomicReference<>();
        Await.until(view::isAsleep, "the owner parks on the doorbell, for up to max-park (30 s)");
        final long start = System.nanoTime();
        slow.handOver(() ->
        {
            ranOn.set(Thread.currentThread());
            role.set(ProtocolThread.role());
        }).get(10, TimeUnit.SECONDS);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "the hand-over woke the parked owner");
        assertSame(owner, ranOn.get());
        // a protocol thread (a send that would wait is refused), named as the membership's work: a trim is
        assertTrue(role.get().startsWith("membership thread's work handed to the invoker thread of member 9"),
            role.get());

        view.close(); // between views: nothing hosted, handed-over work still runs
        slow.handOver(() -> ranOn.set(null)).get(10, TimeUnit.SECONDS);
        assertNull(ranOn.get());
        final java.util.concurrent.Future<Void> failing = slow.handOver(() ->
        {
            throw new IllegalStateException("a callback failed");
        });
        final java.util.concurrent.ExecutionException ex =
            assertThrows(java.util.concurrent.ExecutionException.class, () -> failing.get(10, TimeUnit.SECONDS));
        assertEquals("a callback failed", ex.getCause().getMessage());
        assertTrue(owner.isAlive(), "what the work throws goes to its future, not to the owner");
        stop.set(1);
        owner.join(10_000);
        assertFalse(owner.isAlive());
    }
}

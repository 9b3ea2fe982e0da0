package io.weft.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** {@link Async#openAll}: what it opened, and that a failed open leaves nothing open behind it. */
@Timeout(30)
class AsyncTest
{
    /** Stands for a member: records whether it was closed. */
    private static final class Opened implements AutoCloseable
    {
        final int rank;
        volatile boolean closed;

        Opened(final int rank)
        {
            this.rank = rank;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }

    @Test
    void returnsWhatEveryOpenerOpenedInOrder() throws Exception
    {
        final List<Opened> opened = Async.openAll(List.<Supplier<Opened>>of(() -> new Opened(0), () -> new Opened(1)));
        assertEquals(List.of(0, 1), opened.stream().map(o -> o.rank).toList());
        assertFalse(opened.get(0).closed || opened.get(1).closed);
    }

    @Test
    void aFailedOpenClosesTheOthersAndIsThrown()
    {
        final Opened first = new Opened(0);
        final Opened third = new Opened(2);
        final ExecutionException failure = assertThrows(ExecutionException.class, () -> Async.openAll(
            List.<Supplier<Opened>>of(() -> first, () -> { throw new IllegalStateException("port in use"); },
                () -> third)));
        assertEquals("port in use", failure.getCause().getMessage());
        assertTrue(first.closed && third.closed, "the members that opened are closed");
    }

    @Test
    void anOpenPastTheDeadlineIsClosedWhenItCompletes() throws Exception
    {
        final CountDownLatch release = new CountDownLatch(1);
        final Opened first = new Opened(0);
        final Opened late = new Opened(1);
        final Exception failure = assertThrows(Exception.class,
            () -> Async.openAll(openers(first, late, release), Duration.ofMillis(200)));
        assertInstanceOf(TimeoutException.class, failure);
        assertTrue(first.closed, "the member that opened in time is closed");
        assertFalse(late.closed, "still opening");
        release.countDown();
        Await.until(() -> late.closed, Duration.ofSeconds(10), "the late member to be closed once it opened");
    }

    @Test
    void anInterruptedOpenStopsWaitingAndClosesTheLateMembersWhenTheyOpen() throws Exception
    {
        final CountDownLatch release = new CountDownLatch(1);
        final Opened first = new Opened(0);
        final Opened late = new Opened(1);
        final Thread caller = Thread.currentThread();
        final AtomicReference<Throwable> interrupterFailed = new AtomicReference<>();
        Thread.ofPlatform().start(() ->
        {
            try
            {
                Await.until(() -> caller.getState() == Thread.State.TIMED_WAITING, Duration.ofSeconds(10),
                    "openAll to wait for the late member");
            }
            catch (final Throwable t)
            {
                interrupterFailed.set(t); // reported below; without the interrupt the class's time bound would hide it
            }
            caller.interrupt();
        });
        // the class's 30 s time bound fails this if openAll waits out its 60 s deadline after the interrupt
        final Exception failure = assertThrows(Exception.class, () -> Async.openAll(openers(first, late, release)));
        if (interrupterFailed.get() != null)
        {
            fail("the interrupting thread failed", interrupterFailed.get());
        }
        assertInstanceOf(InterruptedException.class, failure);
        assertTrue(Thread.interrupted(), "the interrupt flag is left set (and cleared here)");
        // closed before the throw if its open was seen done, else once it completes: the interrupt may come while the
        // caller still waits on it (on two cores its opening thread can run after the caller's first wait began)
        Await.until(() -> first.closed, Duration.ofSeconds(10), "the member that opened to be closed");
        release.countDown();
        Await.until(() -> late.closed, Duration.ofSeconds(10), "the late member to be closed once it opened");
    }

    /** {@code first} opens at once; {@code late} once {@code release} is counted down. */
    private static List<Supplier<Opened>> openers(final Opened first, final Opened late, final CountDownLatch release)
    {
        return List.of(() -> first, () ->
        {
            try
            {
                release.await();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            return late;
        });
    }
}

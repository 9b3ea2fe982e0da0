package io.weft.config;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * A thread of another component that runs the predicate passes between its own work, in place of a predicate thread
 * of their own (like an Aeron agent driven by an invoker): the tcp transport's selector thread or the rdma transport's
 * progress thread where cores are scarce, so that an arriving push and the trigger it enables run on one thread
 * without a wake-up between them. The host's wait for I/O is the predicate thread's sleep, and the {@link Doorbell} a
 * sender rings interrupts it.
 */
public interface PassHost
{
    /** The thread that runs the passes. */
    Thread thread();

    /**
     * From now on calls {@code pass} (it returns the number of triggers fired) between the host's own work, and
     * idles as {@code idle} says when a pass fired nothing.
     */
    void host(IntSupplier pass, IdleConfig idle);

    /**
     * Stops calling the pass. Returns true once no pass runs (at once when called on the host thread), false if a
     * pass is still running after {@code timeout} (a trigger is blocked).
     */
    boolean unhost(Duration timeout);

    /** Whether the host waits for I/O or a ring now, so that work handed to it waits for a wake-up. */
    boolean isAsleep();

    /**
     * The end of {@link #unhost}: waits until no pass holds {@code passing} (the lock a host holds while a pass runs),
     * at once on {@code host}, the thread that runs them. False if a pass still runs after {@code timeout}.
     */
    static boolean awaitPass(final Thread host, final ReentrantLock passing, final Duration timeout)
    {
        return Thread.currentThread() == host || LockWait.awaitFree(passing, timeout.toNanos());
    }
}

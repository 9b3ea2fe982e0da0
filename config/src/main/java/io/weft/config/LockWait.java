package io.weft.config;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/** Waiting for the holder of a lock to finish what it does under it, without taking anything over. */
public final class LockWait
{
    private LockWait()
    {
    }

    /**
     * Waits up to {@code timeoutNanos} until {@code lock} is free (taken and given back at once). False on timeout or
     * interrupt (the thread's interrupt flag set again).
     */
    public static boolean awaitFree(final ReentrantLock lock, final long timeoutNanos)
    {
        try
        {
            if (!lock.tryLock(timeoutNanos, TimeUnit.NANOSECONDS))
            {
                return false;
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
        lock.unlock();
        return true;
    }
}

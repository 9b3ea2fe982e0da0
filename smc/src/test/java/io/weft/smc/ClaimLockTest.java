package io.weft.smc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClaimLockTest
{
    /**
     * Threads on two cores add to plain counters under the lock, one of them holding it for a millisecond now and
     * then (a view change copying the ring), so that waiters spin, yield and park: no addition is lost and the two
     * counters never differ inside the lock.
     */
    @Test
    @Timeout(60)
    void holdersExcludeEachOtherAndNoUpdateIsLost() throws Exception
    {
        final ClaimLock lock = new ClaimLock();
        final long[] counters = new long[2];
        final int threads = 4;
        final int each = 200_000;
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> workers = new ArrayList<>();
        final boolean[] torn = new boolean[1];
        for (int t = 0; t < threads; t++)
        {
            final boolean slow = t == 0;
            workers.add(Thread.ofPlatform().start(() ->
            {
                try
                {
                    start.await();
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
                for (int i = 0; i < each; i++)
                {
                    lock.lock();
                    try
                    {
                        torn[0] |= counters[0] != counters[1];
                        counters[0]++;
                        if (slow && i % 20_000 == 0)
                        {
                            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                        }
                        counters[1]++;
                    }
                    finally
                    {
                        lock.unlock();
                    }
                }
            }));
        }
        start.countDown();
        for (final Thread w : workers)
        {
            w.join(TimeUnit.SECONDS.toMillis(50));
            assertTrue(!w.isAlive(), "a worker did not finish");
        }
        lock.lock();
        try
        {
            assertEquals((long)threads * each, counters[0]);
            assertEquals(counters[0], counters[1]);
            assertTrue(!torn[0], "two holders were inside the lock at once");
        }
        finally
        {
            lock.unlock();
        }
    }
}

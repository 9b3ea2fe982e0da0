package io.weft.examples.avionics;

import java.util.concurrent.locks.LockSupport;

/** A publishing loop at a fixed rate on a thread of its own, stopped by {@link #stop}. */
final class Publisher
{
    private final Thread thread;
    private volatile boolean running = true;

    Publisher(final String name, final double hertz, final Runnable tick)
    {
        final long period = (long)(1e9 / hertz);
        thread = Thread.ofPlatform().name(name).unstarted(() ->
        {
            long next = System.nanoTime();
            while (running)
            {
                try
                {
                    tick.run();
                }
                catch (final RuntimeException ex) // a write that timed out: said, and the next tick tries again
                {
                    System.out.println("WRITE-FAILED " + name + ": " + ex.getMessage());
                }
                next += period;
                final long wait = next - System.nanoTime();
                if (wait > 0)
                {
                    LockSupport.parkNanos(wait);
                }
                else
                {
                    next = System.nanoTime(); // behind (a view change held the write): no burst to catch up
                }
            }
        });
    }

    void start()
    {
        thread.start();
    }

    void stop() throws InterruptedException
    {
        running = false;
        thread.join();
    }
}

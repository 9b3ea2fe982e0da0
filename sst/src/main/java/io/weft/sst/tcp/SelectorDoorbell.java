package io.weft.sst.tcp;

import io.weft.predicates.Doorbell;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The doorbell of a member whose selector thread runs the predicates ({@link HostedPasses}): that thread sleeps in
 * {@link Selector#select(long)}, so a ring wakes the selector. The protocol is {@code ParkingDoorbell}'s: the sleeper
 * announces itself and looks for work once more; a ringer bumps the sequence and calls {@link Selector#wakeup()}
 * (a system call) only while a sleeper is announced. Any other thread sleeping on it parks, as on a
 * {@code ParkingDoorbell}.
 */
final class SelectorDoorbell implements Doorbell
{
    private static final VarHandle SEQUENCE;
    private static final VarHandle SLEEPER;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SEQUENCE = lookup.findVarHandle(SelectorDoorbell.class, "sequence", int.class);
            SLEEPER = lookup.findVarHandle(SelectorDoorbell.class, "sleeper", Thread.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Selector selector;
    private final Thread selectorThread;
    @SuppressWarnings("unused") // accessed through SEQUENCE
    private int sequence;
    @SuppressWarnings("unused") // accessed through SLEEPER
    private Thread sleeper;

    SelectorDoorbell(final Selector selector, final Thread selectorThread)
    {
        this.selector = selector;
        this.selectorThread = selectorThread;
    }

    @Override
    public int prepareToSleep()
    {
        // volatile store then volatile load, against ring()'s volatile add then volatile load (Dekker's pattern)
        SLEEPER.setVolatile(this, Thread.currentThread());
        return (int)SEQUENCE.getVolatile(this);
    }

    /** Selects: returns when a channel is ready, the doorbell rang, or {@code maxNanos} passed. */
    @Override
    public void sleep(final int ticket, final long maxNanos)
    {
        if (Thread.currentThread() != selectorThread)
        {
            if ((int)SEQUENCE.getVolatile(this) == ticket)
            {
                LockSupport.parkNanos(this, maxNanos);
            }
            return;
        }
        try
        {
            if ((int)SEQUENCE.getVolatile(this) == ticket)
            {
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(maxNanos)));
            }
            else
            {
                selector.selectNow();
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("select failed", ex);
        }
    }

    @Override
    public void awake()
    {
        SLEEPER.setRelease(this, null);
    }

    @Override
    public void ring()
    {
        SEQUENCE.getAndAdd(this, 1);
        final Thread t = (Thread)SLEEPER.getVolatile(this);
        if (t == selectorThread)
        {
            selector.wakeup(); // a wake-up of a selector that is not selecting makes its next select return at once
        }
        else if (t != null)
        {
            LockSupport.unpark(t);
        }
    }
}

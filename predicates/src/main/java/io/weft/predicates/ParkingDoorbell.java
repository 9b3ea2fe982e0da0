package io.weft.predicates;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/** In-process {@link Doorbell} on {@link LockSupport}. */
public final class ParkingDoorbell implements Doorbell
{
    private static final VarHandle SEQUENCE;
    private static final VarHandle SLEEPER;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SEQUENCE = lookup.findVarHandle(ParkingDoorbell.class, "sequence", int.class);
            SLEEPER = lookup.findVarHandle(ParkingDoorbell.class, "sleeper", Thread.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @SuppressWarnings("unused") // accessed through SEQUENCE
    private int sequence;
    @SuppressWarnings("unused") // accessed through SLEEPER
    private Thread sleeper;

    @Override
    public int prepareToSleep()
    {
        // volatile store then volatile load: with ring()'s volatile add then volatile load this is Dekker's pattern,
        // so either the ringer sees the sleeper or the sleeper's re-check sees the ringer's data.
        SLEEPER.setVolatile(this, Thread.currentThread());
        return (int)SEQUENCE.getVolatile(this);
    }

    @Override
    public void sleep(final int ticket, final long maxNanos)
    {
        if ((int)SEQUENCE.getVolatile(this) == ticket)
        {
            LockSupport.parkNanos(this, maxNanos);
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
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }
}

package io.weft.config;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * In-process {@link Doorbell} on {@link LockSupport}. A subclass may sleep and wake its own way (the tcp selector
 * thread sleeps in select) by overriding {@link #block} and {@link #wake}; the ordering protocol stays here.
 */
public class ParkingDoorbell implements Doorbell
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
    private boolean ordered = true; // the sleeper's own: whether its last announcement's barrier held

    @Override
    public final int prepareToSleep()
    {
        // volatile store then volatile load: with ring()'s volatile add then volatile load this is Dekker's pattern,
        // so either the ringer sees the sleeper or the sleeper's re-check sees the ringer's data.
        SLEEPER.setVolatile(this, Thread.currentThread());
        ordered = ProcessBarrier.run(); // for ringInProcess, which reads SLEEPER without a fence
        return (int)SEQUENCE.getVolatile(this);
    }

    @Override
    public final void sleep(final int ticket, final long maxNanos)
    {
        if ((int)SEQUENCE.getVolatile(this) == ticket)
        {
            block(ProcessBarrier.sleepBound(ordered, maxNanos));
        }
    }

    /** Sleeps until {@link #wake} or at most {@code maxNanos}; may return early. */
    protected void block(final long maxNanos)
    {
        LockSupport.parkNanos(this, maxNanos);
    }

    /** Wakes {@code sleeper}, which announced itself before it {@link #block blocks} or while it does. */
    protected void wake(final Thread sleeper)
    {
        LockSupport.unpark(sleeper);
    }

    @Override
    public final void awake()
    {
        SLEEPER.setRelease(this, null);
    }

    @Override
    public final void ringInProcess()
    {
        ProcessBarrier.keepOrder();
        if (!ProcessBarrier.AVAILABLE || SLEEPER.getAcquire(this) != null)
        {
            ring();
        }
    }

    @Override
    public final void ring()
    {
        SEQUENCE.getAndAdd(this, 1);
        final Thread t = (Thread)SLEEPER.getVolatile(this);
        if (t != null)
        {
            wake(t);
        }
    }
}

package io.weft.smc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The claims' lock of a {@link SenderRing}: one compare-and-set to take it, a release store to give it back.
 * {@link java.util.concurrent.locks.ReentrantLock} gives it back with a volatile store, a full fence on x86 that
 * waits until the message just built has left the store buffer for the receivers' cores; at one claim per message
 * that wait was most of a claim (one sender, 128 B, shm).
 *
 * <p>Holders keep it for a few stores (claims, nulls, fences), or for a view change's copy of the ring's messages.
 * A thread that finds it taken spins briefly, then yields, then parks for short periods: nobody wakes it, so a
 * release costs no system call.
 */
final class ClaimLock
{
    private static final VarHandle STATE;
    private static final int SPINS = 64;
    private static final int YIELDS = 64;
    private static final long PARK_NANOS = 20_000L;

    static
    {
        try
        {
            STATE = MethodHandles.lookup().findVarHandle(ClaimLock.class, "state", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    void lock()
    {
        if (!STATE.compareAndSet(this, 0, 1))
        {
            contended();
        }
    }

    void unlock()
    {
        STATE.setRelease(this, 0); // the holder's stores happen-before the next holder's compare-and-set
    }

    private void contended()
    {
        int tries = 0;
        while ((int)STATE.getOpaque(this) != 0 || !STATE.compareAndSet(this, 0, 1))
        {
            if (tries < SPINS)
            {
                Thread.onSpinWait();
            }
            else if (tries < SPINS + YIELDS)
            {
                Thread.yield(); // two cores: the holder may be waiting for this core
            }
            else
            {
                LockSupport.parkNanos(this, PARK_NANOS);
            }
            tries++;
        }
    }
}

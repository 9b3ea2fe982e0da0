package io.weft.sst;

import io.weft.config.Doorbell;
import io.weft.config.IdleConfig;
import io.weft.config.PassHost;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The predicate passes run by a transport's own thread between its rounds ({@code threading = merged}): the tcp
 * selector thread between its reads, the rdma progress thread between its polls of the completion queue. An arriving
 * push is applied and the trigger it enables runs on one thread, with no wake-up between them.
 */
public final class HostedPasses implements PassHost
{
    private static final VarHandle SINCE;

    static
    {
        try
        {
            SINCE = MethodHandles.lookup().findVarHandle(HostedPasses.class, "passSince", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Thread thread;
    private final Doorbell doorbell;
    private final Runnable wakeHost;
    /** Held by the host's thread while a pass runs: {@link #unhost} waits on it for the running pass. */
    private final ReentrantLock passing = new ReentrantLock();
    private volatile IntSupplier pass;
    private volatile IdleConfig idle;
    private volatile boolean asleep;
    @SuppressWarnings("unused") // accessed through SINCE: clock at the running pass's start, 0 between passes
    private long passSince;

    /**
     * Passes for {@code thread}, which sleeps on {@code doorbell} when idle; {@code wakeHost} interrupts its wait for
     * I/O (a selector's wake-up), so that passes handed over start at once.
     */
    public HostedPasses(final Thread thread, final Doorbell doorbell, final Runnable wakeHost)
    {
        this.thread = thread;
        this.doorbell = doorbell;
        this.wakeHost = wakeHost;
    }

    @Override
    public Thread thread()
    {
        return thread;
    }

    @Override
    public void host(final IntSupplier pass, final IdleConfig idle)
    {
        this.idle = idle;
        this.pass = pass;
        wakeHost.run();
    }

    @Override
    public boolean unhost(final Duration timeout)
    {
        pass = null;
        return PassHost.awaitPass(thread, passing, timeout);
    }

    @Override
    public boolean isAsleep()
    {
        return asleep;
    }

    /** Whether the calling thread runs a pass now. */
    public boolean inPass()
    {
        return passing.isHeldByCurrentThread();
    }

    /** Whether passes are handed over (from {@link #host} to {@link #unhost}). */
    public boolean hosting()
    {
        return pass != null;
    }

    /** The host's thread: runs one pass if one is hosted; the number of triggers it fired. */
    public int run()
    {
        if (pass == null)
        {
            return 0;
        }
        passing.lock();
        try
        {
            final IntSupplier p = pass; // unhosted meanwhile: null
            if (p == null)
            {
                return 0;
            }
            SINCE.setOpaque(this, System.nanoTime());
            return p.getAsInt();
        }
        finally
        {
            SINCE.setOpaque(this, 0L);
            passing.unlock();
        }
    }

    /** Whether the passes' idle settings yield after a pass that did work (hosts with fewer cores than hot threads). */
    public boolean yieldsAfterWork()
    {
        return idle.yieldAfterWork().yields();
    }

    /**
     * The host's thread, after a pass found nothing to do, waits as the passes' idle settings say: busy-spin and
     * yielding return at once (after a spin hint or a yield); backoff announces its sleep, runs a pass once more and
     * asks {@code pending} whether the host's own work is queued, and sleeps on the doorbell for at most
     * {@code maxNanos} (and {@code max-park}) only if neither found work, so no ring is lost. Backoff skips the spin
     * and yield phases of a predicate thread: on two cores the spinning selector threads of three members took the
     * cores their peers needed (one sender at 10k msgs/s, tcp: p50 277 us with the phases, 79-94 us without).
     * Returns whether it slept.
     */
    public boolean idle(final BooleanSupplier pending, final long maxNanos)
    {
        final IdleConfig idle = this.idle;
        switch (idle.strategy())
        {
            case BUSY_SPIN ->
            {
                Thread.onSpinWait();
                return false;
            }
            case YIELDING ->
            {
                Thread.yield();
                return false;
            }
            default ->
            {
                return sleep(pending, Math.min(maxNanos, idle.maxPark().toNanos()));
            }
        }
    }

    private boolean sleep(final BooleanSupplier pending, final long maxNanos)
    {
        final int ticket = doorbell.prepareToSleep();
        try
        {
            if (run() > 0 || pending.getAsBoolean())
            {
                return false;
            }
            asleep = true;
            doorbell.sleep(ticket, maxNanos);
            return true;
        }
        finally
        {
            asleep = false;
            doorbell.awake();
        }
    }

    /** Whether the running pass began more than {@code nanos} before {@code now}: the host has read nothing since. */
    public boolean passLongerThan(final long now, final long nanos)
    {
        final long since = (long)SINCE.getOpaque(this);
        return since != 0 && now - since > nanos;
    }
}

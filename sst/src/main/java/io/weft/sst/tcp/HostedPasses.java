package io.weft.sst.tcp;

import io.weft.config.IdleConfig;
import io.weft.config.PassHost;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * The predicate passes run by the tcp selector thread between its reads ({@code threading = merged}): an arriving
 * push is applied and the trigger it enables runs on one thread, with no wake-up between them.
 */
final class HostedPasses implements PassHost
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
    private final Runnable wakeSelector;
    /** Held by the selector thread while a pass runs: {@link #unhost} waits on it for the running pass. */
    private final ReentrantLock passing = new ReentrantLock();
    private volatile IntSupplier pass;
    private volatile IdleConfig idle;
    private volatile boolean asleep;
    @SuppressWarnings("unused") // accessed through SINCE: clock at the running pass's start, 0 between passes
    private long passSince;

    HostedPasses(final Thread thread, final Runnable wakeSelector)
    {
        this.thread = thread;
        this.wakeSelector = wakeSelector;
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
        wakeSelector.run();
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
    boolean inPass()
    {
        return passing.isHeldByCurrentThread();
    }

    /** How the selector thread idles while it hosts the passes. */
    IdleConfig idle()
    {
        return idle;
    }

    boolean hosting()
    {
        return pass != null;
    }

    /** Selector thread: runs one pass if one is hosted; the number of triggers it fired. */
    int run()
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

    /** Selector thread: it is about to sleep in select (or has woken). */
    void asleep(final boolean asleep)
    {
        this.asleep = asleep;
    }

    /** Whether the running pass began more than {@code nanos} before {@code now}: the selector has read nothing since. */
    boolean passLongerThan(final long now, final long nanos)
    {
        final long since = (long)SINCE.getOpaque(this);
        return since != 0 && now - since > nanos;
    }
}

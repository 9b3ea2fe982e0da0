package io.weft.sst.tcp;

import io.weft.config.Doorbell;
import io.weft.config.IdleConfig;
import io.weft.config.IdleStrategyKind;
import io.weft.config.PassHost;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.Queue;
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
    private final Selector selector;
    private final Doorbell doorbell;
    /** Held by the selector thread while a pass runs: {@link #unhost} waits on it for the running pass. */
    private final ReentrantLock passing = new ReentrantLock();
    private volatile IntSupplier pass;
    private volatile IdleConfig idle;
    private volatile boolean asleep;
    @SuppressWarnings("unused") // accessed through SINCE: clock at the running pass's start, 0 between passes
    private long passSince;

    HostedPasses(final Thread thread, final Selector selector, final Doorbell doorbell)
    {
        this.thread = thread;
        this.selector = selector;
        this.doorbell = doorbell;
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
        selector.wakeup();
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

    /**
     * Selector thread, after a pass found nothing to do: select at once (busy-spin), yield and select at once
     * (yielding), or sleep in select (backoff). Backoff skips the spin and yield phases of a predicate thread: a spin
     * here is a system call, and on two cores the spinning selector threads of three members took the cores their
     * peers needed (one sender at 10k msgs/s, tcp: p50 277 us with the phases, 79-94 us without). The sleep re-checks
     * the passes and the selector thread's {@code tasks} after announcing itself, so no ring is lost.
     */
    void idle(final Queue<Runnable> tasks) throws IOException
    {
        final IdleConfig idle = this.idle;
        if (idle.strategy() != IdleStrategyKind.BACKOFF)
        {
            if (idle.strategy() == IdleStrategyKind.YIELDING)
            {
                Thread.yield();
            }
            selector.selectNow();
            return;
        }
        final int ticket = doorbell.prepareToSleep();
        try
        {
            if (run() > 0 || !tasks.isEmpty())
            {
                selector.selectNow();
                return;
            }
            asleep = true;
            doorbell.sleep(ticket, idle.maxPark().toNanos());
        }
        finally
        {
            asleep = false;
            doorbell.awake();
        }
    }

    /** Whether the running pass began more than {@code nanos} before {@code now}: the selector has read nothing since. */
    boolean passLongerThan(final long now, final long nanos)
    {
        final long since = (long)SINCE.getOpaque(this);
        return since != 0 && now - since > nanos;
    }
}

package io.weft.predicates;

import io.weft.config.Doorbell;
import io.weft.config.IdleConfig;
import io.weft.config.IdleStrategyKind;
import io.weft.config.PassHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The single predicate thread of a member (protocol section 4): it evaluates every registered predicate in a loop
 * and runs a predicate's trigger on this same thread when its condition holds.
 *
 * <p>Predicates may be registered and removed from any thread, including from inside triggers: registrations are
 * queued and join at the start of the next pass; removals take effect before the next evaluation of that predicate.
 *
 * <p>When a whole pass fires nothing, the thread backs off as {@link IdleConfig} says: spin, then yield, then park
 * on its {@link Doorbell} until somebody calls {@link #wake()} (or the transport rings the doorbell) or
 * {@code max-park} passes. It never burns a core while the group is idle.
 *
 * <p>Given a {@link PassHost}, it starts no thread of its own: the host's thread runs the passes between its own
 * work (the tcp selector thread where cores are scarce) and idles as the host does.
 *
 * <pre>{@code
 * PredicateThread thread = new PredicateThread("member-0", config.idle(), new ParkingDoorbell());
 * thread.register("deliver", PredicateKind.RECURRENT, () -> stable() > delivered(), this::deliverBatch);
 * thread.start();
 * ...
 * thread.wake();   // after the application committed a send
 * }</pre>
 */
public final class PredicateThread implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(PredicateThread.class);
    private static final java.lang.invoke.VarHandle COUNT =
        java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);
    /** Where the pass counts sit in {@link #counts}: a cache line of their own (see there). */
    private static final int PASSES = 8;
    private static final int TRIGGERS = 9;
    private static final int BUSY = 10;
    /** The clock at the pass's first trigger; 0 while nothing fired (this thread only, plain). */
    private static final int PASS_START = 11;

    private final String name;
    private final IdleConfig idle;
    private final long maxParkNanos;
    private final boolean yieldAfterWork;
    private final Doorbell doorbell;
    private final PassHost host;
    private final ConcurrentLinkedQueue<PredicateHandle> pending = new ConcurrentLinkedQueue<>();
    private final Thread thread; // null when hosted
    private volatile Consumer<Throwable> errorHandler;
    private volatile Runnable afterPass;
    private volatile boolean running;
    private volatile boolean asleep;
    /**
     * Passes, triggers, busy nanoseconds and the pass's start at {@link #PASSES} to {@link #PASS_START}, with 64
     * bytes of the array on either side: written on every pass, they would otherwise share a cache line with fields
     * that committing threads read on every message ({@link #asleep}). Single writer (this thread), release stores:
     * no fence or atomic on the pass loop.
     */
    private final long[] counts = new long[20];
    private boolean marked; // hosted: the host thread is marked a protocol thread (predicate thread only)

    private PredicateHandle[] predicates = new PredicateHandle[16];
    private int size;

    /** A predicate thread of its own, waiting as {@code idle} says and woken by {@code doorbell}. */
    public PredicateThread(final String name, final IdleConfig idle, final Doorbell doorbell)
    {
        this(name, idle, doorbell, null);
    }

    /** A predicate thread whose passes run on {@code host}'s thread when it is not null. */
    public PredicateThread(final String name, final IdleConfig idle, final Doorbell doorbell, final PassHost host)
    {
        this.name = Objects.requireNonNull(name, "name");
        this.host = host;
        this.idle = Objects.requireNonNull(idle, "idle");
        this.maxParkNanos = idle.maxPark().toNanos();
        this.yieldAfterWork = idle.yieldAfterWork().yields();
        this.doorbell = Objects.requireNonNull(doorbell, "doorbell");
        this.errorHandler = ex -> LOG.error("{}: trigger failed", name, ex);
        this.thread = host != null ? null :
            Thread.ofPlatform().name("weft-predicates-" + name).daemon(true).unstarted(this::run);
    }

    /** Registers a predicate; it is evaluated from the next pass on. */
    public PredicateHandle register(final String predicateName, final PredicateKind kind,
        final BooleanSupplier condition, final Runnable trigger)
    {
        final PredicateHandle handle = new PredicateHandle(Objects.requireNonNull(predicateName, "name"),
            Objects.requireNonNull(kind, "kind"), Objects.requireNonNull(condition, "condition"),
            Objects.requireNonNull(trigger, "trigger"));
        pending.add(handle);
        if (Thread.currentThread() != thread())
        {
            doorbell.ring();
        }
        return handle;
    }

    /** Called with any exception a condition or trigger throws; the predicate thread keeps running. */
    public void errorHandler(final Consumer<Throwable> handler)
    {
        this.errorHandler = Objects.requireNonNull(handler, "handler");
    }

    /** Wakes the thread if it is parked. Transports call this when a push lands; applications after a send. */
    public void wake()
    {
        doorbell.ring();
    }

    /** {@link #wake()} from a thread of this process, made for once per message: {@link Doorbell#ringInProcess()}. */
    public void wakeInProcess()
    {
        doorbell.ringInProcess();
    }

    /** What wakes this thread from its park. */
    public Doorbell doorbell()
    {
        return doorbell;
    }

    /**
     * Whether the thread sleeps on its doorbell now (past spinning and yielding): work handed to it waits for a
     * wake-up, which a caller able to do the work itself may rather spare.
     */
    public boolean isAsleep()
    {
        return host != null ? host.isAsleep() : asleep;
    }

    /** Starts the passes: its own thread, or hands them to the host. */
    public void start()
    {
        running = true;
        if (host != null)
        {
            host.host(this::hostedPass, idle);
        }
        else
        {
            thread.start();
        }
    }

    /** @return true when called from the predicate thread itself. */
    public boolean isPredicateThread()
    {
        return Thread.currentThread() == thread();
    }

    /** The thread that runs the passes: the host's (an invoker's is known once it first invoked). */
    public Thread thread()
    {
        return host != null ? host.thread() : thread;
    }

    /**
     * Runs {@code hook} on this thread at the end of every pass that fired a trigger: the transport's flush, so that
     * everything the triggers of one pass posted leaves in one write (or doorbell) per peer.
     */
    public void afterPass(final Runnable hook)
    {
        this.afterPass = hook;
    }

    /**
     * Total nanoseconds of passes that fired a trigger, from the first trigger to the end of the pass's flush: two
     * clock reads per such pass, none per trigger and none on an empty pass.
     */
    public long busyNanos()
    {
        return count(BUSY);
    }

    /** Passes run so far (empty ones included). */
    public long passes()
    {
        return count(PASSES);
    }

    /** Triggers fired so far. */
    public long triggers()
    {
        return count(TRIGGERS);
    }

    private long count(final int at)
    {
        return (long)COUNT.getOpaque(counts, at);
    }

    /** The name it was made with (its thread's name). */
    public String name()
    {
        return name;
    }

    /** Stops the thread and waits for the current pass to finish. */
    @Override
    public void close()
    {
        running = false;
        if (host != null)
        {
            if (!host.unhost(Duration.ofSeconds(10)))
            {
                LOG.warn("{}: a pass on {} did not end within 10s (a trigger is blocked)", name, thread());
            }
            return;
        }
        doorbell.ring();
        if (thread.isAlive() && Thread.currentThread() != thread)
        {
            try
            {
                if (!thread.join(Duration.ofSeconds(10)))
                {
                    LOG.warn("{}: predicate thread did not stop within 10s (a trigger is blocked)", name);
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run()
    {
        ProtocolThread.mark("predicate thread " + name + " (it runs the delivery callbacks)");
        int idleCount = 0;
        while (running)
        {
            if (pass() > 0)
            {
                idleCount = 0;
                if (yieldAfterWork)
                {
                    Thread.yield();
                }
                continue;
            }
            idleCount = idle(idleCount);
        }
    }

    /** One pass on the host's thread, which idles as it sees fit when this returns 0. */
    private int hostedPass()
    {
        if (!marked)
        {
            marked = true;
            if (ProtocolThread.role() == null) // an invoker marks its owner itself, for its passes only
            {
                ProtocolThread.mark("predicate thread " + name + " (its passes run on " +
                    Thread.currentThread().getName() + "; it runs the delivery callbacks)");
            }
        }
        return running ? pass() : 0;
    }

    /** The first idle steps after {@code idleCount} empty passes: spins, then yields; false once it is time to park. */
    static boolean spunOrYielded(final IdleConfig idle, final int idleCount)
    {
        final IdleStrategyKind strategy = idle.strategy();
        if (strategy == IdleStrategyKind.BUSY_SPIN || idleCount < idle.maxSpins())
        {
            Thread.onSpinWait();
            return true;
        }
        if (strategy == IdleStrategyKind.YIELDING || idleCount < idle.maxSpins() + idle.maxYields())
        {
            Thread.yield();
            return true;
        }
        return false;
    }

    private int idle(final int idleCount)
    {
        if (spunOrYielded(idle, idleCount))
        {
            return idleCount + 1;
        }
        final int ticket = doorbell.prepareToSleep();
        try
        {
            // the re-check after announcing the sleep is what makes a concurrent ring impossible to miss
            if (pass() > 0 || !running)
            {
                return 0;
            }
            asleep = true;
            doorbell.sleep(ticket, maxParkNanos);
            return idleCount;
        }
        finally
        {
            asleep = false;
            doorbell.awake();
        }
    }

    private int pass()
    {
        drainPending();
        int fired = 0;
        final PredicateHandle[] predicates = this.predicates;
        final int size = this.size;
        boolean compact = false;
        for (int i = 0; i < size; i++)
        {
            final PredicateHandle p = predicates[i];
            if (p.removed)
            {
                compact = true;
                continue;
            }
            try
            {
                fired += evaluate(p);
            }
            catch (final Throwable ex)
            {
                errorHandler.accept(ex);
            }
            compact |= p.removed;
        }
        if (compact)
        {
            compact();
        }
        COUNT.setRelease(counts, PASSES, counts[PASSES] + 1);
        if (fired > 0)
        {
            COUNT.setRelease(counts, TRIGGERS, counts[TRIGGERS] + fired);
            final Runnable hook = afterPass;
            if (hook != null)
            {
                try
                {
                    hook.run();
                }
                catch (final Throwable ex)
                {
                    errorHandler.accept(ex);
                }
            }
        }
        final long passStart = counts[PASS_START];
        if (passStart != 0) // a trigger ran (one that threw included)
        {
            COUNT.setRelease(counts, BUSY, counts[BUSY] + System.nanoTime() - passStart);
            counts[PASS_START] = 0;
        }
        return fired;
    }

    private int evaluate(final PredicateHandle p)
    {
        final boolean value = p.condition.getAsBoolean();
        switch (p.kind)
        {
            case ONE_TIME ->
            {
                if (value)
                {
                    p.removed = true;
                    return fire(p);
                }
            }
            case RECURRENT ->
            {
                if (value)
                {
                    return fire(p);
                }
            }
            case TRANSITION ->
            {
                final boolean edge = value && !p.lastValue;
                p.lastValue = value;
                if (edge)
                {
                    return fire(p);
                }
            }
        }
        return 0;
    }

    private int fire(final PredicateHandle p)
    {
        if (counts[PASS_START] == 0)
        {
            counts[PASS_START] = System.nanoTime();
        }
        p.trigger.run();
        return 1;
    }

    private void drainPending()
    {
        PredicateHandle p;
        while ((p = pending.poll()) != null)
        {
            if (size == predicates.length)
            {
                predicates = Arrays.copyOf(predicates, size * 2);
            }
            predicates[size++] = p;
        }
    }

    private void compact()
    {
        int kept = 0;
        for (int i = 0; i < size; i++)
        {
            if (!predicates[i].removed)
            {
                predicates[kept++] = predicates[i];
            }
        }
        Arrays.fill(predicates, kept, size, null);
        size = kept;
    }

    /** Waits, for tests and shutdown paths, until the thread has stopped. */
    public boolean awaitTermination(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        if (host != null)
        {
            return !running && host.unhost(Duration.ofNanos(unit.toNanos(timeout)));
        }
        return thread.join(Duration.ofNanos(unit.toNanos(timeout)));
    }
}

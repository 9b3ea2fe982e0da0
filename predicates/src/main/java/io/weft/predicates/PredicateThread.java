package io.weft.predicates;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.weft.config.IdleConfig;
import io.weft.config.IdleStrategyKind;
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
 * <pre>{@code
 * PredicateThread thread = new PredicateThread("member-0", config.idle(), new ParkingDoorbell(), registry);
 * thread.register("deliver", PredicateKind.RECURRENT, () -> stable() > delivered(), this::deliverBatch);
 * thread.start();
 * ...
 * thread.wake();   // after the application committed a send
 * }</pre>
 */
public final class PredicateThread implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(PredicateThread.class);

    private final String name;
    private final IdleConfig idle;
    private final long maxParkNanos;
    private final Doorbell doorbell;
    private final ConcurrentLinkedQueue<PredicateHandle> pending = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final Counter passes;
    private final Counter triggers;
    private volatile Consumer<Throwable> errorHandler;
    private volatile boolean running;
    private volatile long busyNanos;

    private PredicateHandle[] predicates = new PredicateHandle[16];
    private int size;

    public PredicateThread(final String name, final IdleConfig idle, final Doorbell doorbell,
        final MeterRegistry registry)
    {
        this.name = Objects.requireNonNull(name, "name");
        this.idle = Objects.requireNonNull(idle, "idle");
        this.maxParkNanos = idle.maxPark().toNanos();
        this.doorbell = Objects.requireNonNull(doorbell, "doorbell");
        this.errorHandler = ex -> LOG.error("{}: trigger failed", name, ex);
        final Tags tags = Tags.of("thread", name);
        this.passes = Counter.builder("weft.predicates.passes").tags(tags)
            .description("passes over all predicates").register(registry);
        this.triggers = Counter.builder("weft.predicates.triggers").tags(tags)
            .description("triggers fired").register(registry);
        FunctionCounter.builder("weft.predicates.busy", this, t -> t.busyNanos / 1e9).tags(tags)
            .baseUnit("seconds").description("time spent in passes that fired at least one trigger").register(registry);
        this.thread = Thread.ofPlatform().name("weft-predicates-" + name).daemon(true).unstarted(this::run);
    }

    /** Registers a predicate; it is evaluated from the next pass on. */
    public PredicateHandle register(final String predicateName, final PredicateKind kind,
        final BooleanSupplier condition, final Runnable trigger)
    {
        final PredicateHandle handle = new PredicateHandle(Objects.requireNonNull(predicateName, "name"),
            Objects.requireNonNull(kind, "kind"), Objects.requireNonNull(condition, "condition"),
            Objects.requireNonNull(trigger, "trigger"));
        pending.add(handle);
        if (Thread.currentThread() != thread)
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

    public Doorbell doorbell()
    {
        return doorbell;
    }

    public void start()
    {
        running = true;
        thread.start();
    }

    /** @return true when called from the predicate thread itself. */
    public boolean isPredicateThread()
    {
        return Thread.currentThread() == thread;
    }

    public Thread thread()
    {
        return thread;
    }

    /** Total nanoseconds spent in passes that fired at least one trigger. */
    public long busyNanos()
    {
        return busyNanos;
    }

    public String name()
    {
        return name;
    }

    /** Stops the thread and waits for the current pass to finish. */
    @Override
    public void close()
    {
        running = false;
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
        int idleCount = 0;
        while (running)
        {
            if (pass() > 0)
            {
                idleCount = 0;
                continue;
            }
            idleCount = idle(idleCount);
        }
    }

    private int idle(final int idleCount)
    {
        final IdleStrategyKind strategy = idle.strategy();
        if (strategy == IdleStrategyKind.BUSY_SPIN || idleCount < idle.maxSpins())
        {
            Thread.onSpinWait();
            return idleCount + 1;
        }
        if (strategy == IdleStrategyKind.YIELDING || idleCount < idle.maxSpins() + idle.maxYields())
        {
            Thread.yield();
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
            doorbell.sleep(ticket, maxParkNanos);
            return idleCount;
        }
        finally
        {
            doorbell.awake();
        }
    }

    private int pass()
    {
        final long start = System.nanoTime();
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
        passes.increment();
        if (fired > 0)
        {
            busyNanos += System.nanoTime() - start;
            triggers.increment(fired);
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
                    p.trigger.run();
                    return 1;
                }
            }
            case RECURRENT ->
            {
                if (value)
                {
                    p.trigger.run();
                    return 1;
                }
            }
            case TRANSITION ->
            {
                final boolean edge = value && !p.lastValue;
                p.lastValue = value;
                if (edge)
                {
                    p.trigger.run();
                    return 1;
                }
            }
        }
        return 0;
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
        return thread.join(Duration.ofNanos(unit.toNanos(timeout)));
    }
}

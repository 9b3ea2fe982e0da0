package io.weft.predicates;

import io.weft.config.Doorbell;
import io.weft.config.IdleConfig;
import io.weft.config.LockWait;
import io.weft.config.PassHost;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Invoker mode (like Aeron's {@code AgentInvoker}): an application thread runs a member's predicate passes, in
 * place of a predicate thread of their own. Where cores are scarce the thread that sends then also acknowledges,
 * pushes and delivers, with no wake-up and no second hot thread between them.
 *
 * <p>The first thread that calls {@link #invoke()}, or waits in a group call while nobody does, owns the invoker for
 * good; another thread's call is refused. Call it once from the thread that will run the member before other threads
 * send with a timeout. The member makes no progress between calls: no push leaves, nothing is delivered, and a view
 * change waits. Call it in the application's loop, at least every few milliseconds, also while not sending.
 * Delivery callbacks run inside {@code invoke()}, on the owner, the last deliveries of a view (its trim) included;
 * a send that waits is refused there, as on a predicate thread. View callbacks run on the membership thread.
 *
 * <p>On the owner, outside a pass, the group's own waits run passes while they wait: a send or claim with a
 * timeout, {@code leave}, {@code finish}, {@code addSubgroup} and {@code removeSubgroup}.
 *
 * <pre>{@code
 * Group group = Group.builder(config).onDelivery("orders", handler).useInvoker().open();
 * PassInvoker invoker = group.invoker();
 * int idle = 0;
 * while (running) {
 *     if (orders.send(bytes) < 0) {                  // back-pressured: let the passes free a slot
 *         idle = invoker.invokeOrIdle(idle);
 *     } else {
 *         invoker.invoke();                            // push what was committed, deliver what is stable
 *     }
 * }
 * }</pre>
 */
public final class PassInvoker
{
    /** How long an idle owner parks while no view is installed (between two views), when no doorbell can wake it. */
    private static final long PARK_BETWEEN_VIEWS_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private static final long NO_DEADLINE = Long.MIN_VALUE;
    private static final BooleanSupplier NEVER = () -> false;

    private final String role;
    /** The role while work handed over by the membership thread runs (a view's trim): it names the membership. */
    private final String handedOverRole;
    private final IdleConfig idle;
    private final long maxParkNanos;
    private final boolean yieldAfterWork;
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    /** The current view's passes; null between views (unhosted, the next not yet hosted). */
    private final AtomicReference<Hosted> current = new AtomicReference<>();
    /** Work the membership thread hands to the owner (a view's trim), run first in the next {@link #invoke()}. */
    private final ConcurrentLinkedQueue<FutureTask<Void>> handedOver = new ConcurrentLinkedQueue<>();
    /** Held by the owner while a pass runs: unhosting waits on it for the running pass. */
    private final ReentrantLock passing = new ReentrantLock();
    private volatile boolean asleep;

    /** An invoker for member {@code name}, idling in {@link #invokeOrIdle} as {@code idle} says. */
    public PassInvoker(final String name, final IdleConfig idle)
    {
        this.role = "invoker thread of " + Objects.requireNonNull(name, "name") + " (it runs the predicate passes " +
            "and the delivery callbacks; outside invoke() a send may wait, and its wait runs the passes)";
        this.handedOverRole = "membership thread's work handed to the " + role;
        this.idle = Objects.requireNonNull(idle, "idle");
        this.maxParkNanos = idle.maxPark().toNanos();
        this.yieldAfterWork = idle.yieldAfterWork().yields();
    }

    /**
     * Runs one pass over the current view's predicates on the calling thread, its triggers and delivery callbacks
     * included. Returns the number of triggers fired: 0 means there was nothing to do.
     *
     * @throws IllegalStateException called by another thread than the owner, or from inside a pass (a callback).
     */
    public int invoke()
    {
        final Thread caller = Thread.currentThread();
        if (owner.get() != caller)
        {
            bind(caller);
        }
        if (passing.isHeldByCurrentThread())
        {
            throw new IllegalStateException("invoke() called from inside a pass (a delivery or view callback): " +
                "return from the callback and invoke from the application's loop");
        }
        final Hosted hosted = current.get();
        if (hosted == null && handedOver.isEmpty())
        {
            return 0;
        }
        passing.lock();
        try
        {
            int fired = 0;
            if (!handedOver.isEmpty()) // rare: the role is marked twice only then
            {
                ProtocolThread.mark(handedOverRole);
                for (FutureTask<Void> task; (task = handedOver.poll()) != null; fired++)
                {
                    task.run(); // what it throws goes to the membership thread, through the future
                }
            }
            ProtocolThread.mark(role);
            final IntSupplier pass = hosted == null ? null : hosted.pass; // unhosted meanwhile: null
            return fired + (pass == null ? 0 : pass.getAsInt());
        }
        finally
        {
            ProtocolThread.mark(null);
            passing.unlock();
        }
    }

    /**
     * Runs {@code task} on the owner, as part of its next {@link #invoke()}, before that call's pass: the membership
     * thread delivers a view's trim this way, so that every delivery callback runs on the owner. The future is done
     * once it ran; it holds what the task threw.
     */
    public Future<Void> handOver(final Runnable task)
    {
        final FutureTask<Void> future = new FutureTask<>(task, null);
        handedOver.add(future);
        final Thread o = owner.get();
        if (o != null)
        {
            LockSupport.unpark(o); // an owner parked between views, or on a doorbell, runs it now
        }
        return future;
    }

    /**
     * One step of a loop that waits for something the passes bring: a pass, and when it fires nothing an idle step
     * as the member's {@code weft.idle} says (spin, yield, then park on the view's doorbell until a push lands or
     * {@code max-park} passes; after a pass that did work, a yield if {@code yield-after-work} says so). Give it the
     * count it returned last time, 0 at first.
     */
    public int invokeOrIdle(final int idleCount)
    {
        return invokeOrIdle(idleCount, NO_DEADLINE);
    }

    /**
     * Runs passes ({@link #invokeOrIdle}) until {@code done} holds or {@code deadlineNanos} ({@link System#nanoTime()})
     * passes, one at least unless done at once; a park ends by the deadline. Returns whether it was done.
     */
    public boolean invokeUntil(final BooleanSupplier done, final long deadlineNanos)
    {
        int idleCount = 0;
        while (!done.getAsBoolean())
        {
            // one step at least, the deadline passed or not: a caller running late still pushes what it committed
            idleCount = invokeOrIdle(idleCount, deadlineNanos);
            if (System.nanoTime() - deadlineNanos >= 0)
            {
                return done.getAsBoolean();
            }
        }
        return true;
    }

    /** Runs passes ({@link #invokeOrIdle}) until {@code deadlineNanos}: the owner's sleep, the member kept going. */
    public void invokeUntil(final long deadlineNanos)
    {
        invokeUntil(NEVER, deadlineNanos);
    }

    private int invokeOrIdle(final int idleCount, final long deadlineNanos)
    {
        if (invoke() > 0)
        {
            if (yieldAfterWork)
            {
                Thread.yield(); // as a predicate thread does: the process awaiting this pass's pushes runs now
            }
            return 0;
        }
        if (PredicateThread.spunOrYielded(idle, idleCount))
        {
            return idleCount + 1;
        }
        final Hosted hosted = current.get();
        if (hosted == null)
        {
            LockSupport.parkNanos(this, PARK_BETWEEN_VIEWS_NANOS);
            return idleCount;
        }
        if (!hosted.enterIdle())
        {
            return idleCount; // unhosted meanwhile: its doorbell may live in a table that is closed now
        }
        final Doorbell doorbell = hosted.doorbell;
        try
        {
            final int ticket = doorbell.prepareToSleep();
            // the pass after announcing the sleep is what makes a ring between the two impossible to miss
            if (invoke() > 0)
            {
                return 0;
            }
            if (hosted.pass == null)
            {
                return idleCount; // unhost wrote this, then rang: its ring may have come before the announcement
            }
            asleep = true;
            doorbell.sleep(ticket, deadlineNanos == NO_DEADLINE ? maxParkNanos :
                Math.max(1, Math.min(maxParkNanos, deadlineNanos - System.nanoTime())));
            return idleCount;
        }
        finally
        {
            asleep = false;
            doorbell.awake();
            hosted.idling.unlock();
        }
    }

    /**
     * Whether a wait on the calling thread must run the passes itself, outside a pass: it owns this invoker, or
     * takes it now because no thread does yet (a wait with nobody running the passes would never end).
     */
    public boolean waitsHere()
    {
        final Thread caller = Thread.currentThread();
        return (owner.get() == caller || owner.compareAndSet(null, caller)) && !passing.isHeldByCurrentThread();
    }

    /** The owner, or null before the first {@link #invoke()}. */
    public Thread owner()
    {
        return owner.get();
    }

    /** The host of one view's predicate thread: its passes run in {@link #invoke()} while it is the current one. */
    public PassHost hostFor(final Doorbell doorbell)
    {
        return new Hosted(Objects.requireNonNull(doorbell, "doorbell"));
    }

    private void bind(final Thread caller)
    {
        if (!owner.compareAndSet(null, caller) && owner.get() != caller)
        {
            throw new IllegalStateException("this group's invoker belongs to thread " + owner.get().getName() +
                " (the first to call invoke()); thread " + caller.getName() + " may not run its passes: the passes " +
                "and delivery callbacks of a member run on one thread");
        }
    }

    private final class Hosted implements PassHost
    {
        private final Doorbell doorbell;
        /** Held by the owner while it uses the doorbell: unhosting waits for it, as the view's table closes next. */
        private final ReentrantLock idling = new ReentrantLock();
        private volatile IntSupplier pass;

        Hosted(final Doorbell doorbell)
        {
            this.doorbell = doorbell;
        }

        @Override
        public Thread thread()
        {
            return owner.get();
        }

        @Override
        public void host(final IntSupplier pass, final IdleConfig ignored)
        {
            this.pass = pass;
            current.set(this); // the next view's host replaces the last one's, whichever unhosts first
        }

        @Override
        public boolean unhost(final Duration timeout)
        {
            pass = null;
            current.compareAndSet(this, null);
            doorbell.ring(); // an owner asleep on it leaves it now
            final long deadline = System.nanoTime() + timeout.toNanos();
            return LockWait.awaitFree(idling, timeout.toNanos()) &&
                PassHost.awaitPass(owner.get(), passing, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }

        /** Takes {@link #idling}, unless this host was unhosted: after that the owner must not touch the doorbell. */
        boolean enterIdle()
        {
            idling.lock();
            if (pass == null) // written before unhost waits for idling: seen here if unhost no longer waits for us
            {
                idling.unlock();
                return false;
            }
            return true;
        }

        @Override
        public boolean isAsleep()
        {
            return asleep && current.get() == this;
        }
    }
}

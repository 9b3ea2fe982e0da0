package io.weft.membership;

import io.weft.predicates.PassInvoker;
import io.weft.predicates.ProtocolThread;
import io.weft.smc.SmcSubgroup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A member's ways out of its group ({@link Group#leave} and {@link Group#finish}). Both wait for deliveries; on the
 * invoker's owner, the only thread that runs the passes there, they wait by running them.
 */
final class Departure
{
    private final Group group;
    private final CurrentView current;
    private final MembershipLoop membership;
    /** The last view whose sends a leave or finish refused: the departing thread's. */
    private Epoch refusedIn;

    Departure(final Group group, final CurrentView current, final MembershipLoop membership)
    {
        this.group = group;
        this.current = current;
        this.membership = membership;
    }

    boolean leave(final Duration timeout) throws InterruptedException
    {
        refuseOnProtocolThread("leave");
        final long deadline = System.nanoTime() + timeout.toNanos();
        final String why = "member " + group.config().memberId() + " is leaving the group (Group.leave): it sends " +
            "nothing more";
        Epoch announced = null;
        while (!group.isClosed() && System.nanoTime() < deadline)
        {
            final Epoch now = current.epoch();
            refuseSendsIn(now, why);
            // in each view again (a closed one is skipped), once this member's own sends are delivered there
            if (now != announced && now.ifOpen(Departure::ownSendsDelivered) && now.announce(now.columns.leaving))
            {
                membership.wake();
                announced = now;
            }
            if (now != announced)
            {
                pause(1);
                continue;
            }
            final long millis = Math.min(50, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            final PassInvoker here = group.invokerHere();
            if (here != null)
            {
                here.invokeUntil(() -> current.epoch() != now || group.isClosed(),
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis));
            }
            else
            {
                current.awaitChange(millis);
            }
        }
        if (!group.hasLeft())
        {
            group.close();
            return false;
        }
        return true;
    }

    boolean finish(final Duration timeout) throws InterruptedException
    {
        refuseOnProtocolThread("finish");
        final long deadline = System.nanoTime() + timeout.toNanos();
        final String why = "member " + group.config().memberId() + " is finishing (Group.finish): it sends nothing " +
            "more";
        final boolean delivered = awaitOwnSendsDeliveredBeforeFinishing(deadline, why);
        current.moveTo(Lifecycle.FINISHING);
        // announced again in a view that a change already under way installs meanwhile; a closed one is skipped
        Epoch announced = null;
        boolean all = false;
        while (true) // once at least, past the deadline too: the others must not take this member for failed
        {
            final Epoch now = current.epoch();
            refuseSendsIn(now, why); // a view that a change under way installed meanwhile
            if (now != announced && now.announce(now.columns.finished))
            {
                announced = now;
            }
            if (now == announced && now.ifOpen(Departure::allFinished))
            {
                all = true;
                break;
            }
            if (group.isClosed() || System.nanoTime() >= deadline)
            {
                break;
            }
            pause(1);
        }
        // everyone announced after its own last delivery, so what they delivered is stable here: deliver it too
        while (all && announced.ifOpen(e -> !caughtUp(e)) && System.nanoTime() < deadline && !group.isClosed())
        {
            pause(1);
        }
        // the deadline with stable messages still undelivered here is a timeout too
        final boolean stableDelivered = all && !announced.ifOpen(e -> !caughtUp(e));
        group.close();
        return stableDelivered && delivered;
    }

    /**
     * Refuses a leave or finish in a callback, at once: it would wait for deliveries and a view change that only the
     * thread running the callback brings (it blocked that thread for its whole timeout, then closed the member, which
     * the others removed as failed).
     */
    private void refuseOnProtocolThread(final String operation)
    {
        ProtocolThread.refuse("member " + group.config().memberId() + ": " + operation, "it waits for " +
            "deliveries and a view change that this thread brings; call it from an application thread (in invoker " +
            "mode, on the owner outside a callback)");
    }

    /** Waits about {@code millis}: asleep, or running the passes on the invoker's owner. */
    private void pause(final long millis) throws InterruptedException
    {
        final PassInvoker here = group.invokerHere();
        if (here != null)
        {
            here.invokeUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis));
        }
        else
        {
            Thread.sleep(millis);
        }
    }

    /**
     * Waits until this member's own sends are delivered before the shutdown barrier, through a view change as a leave
     * does, with one way out: a member already past the barrier takes no part in view changes, so a change under way
     * cannot end and the next view never comes. Returns false if this member's own sends are not all delivered here
     * then (they are lost with the view), or at the deadline, or at a close.
     */
    private boolean awaitOwnSendsDeliveredBeforeFinishing(final long deadline, final String why)
        throws InterruptedException
    {
        while (!group.isClosed() && System.nanoTime() < deadline)
        {
            final Epoch e = current.epoch();
            refuseSendsIn(e, why);
            if (e.ifOpen(Departure::ownSendsDelivered))
            {
                return true;
            }
            if (e.ifOpen(v -> wedged(v) && anotherFinished(v)))
            {
                return false;
            }
            pause(1);
        }
        return false;
    }

    /**
     * Refuses this member's later sends in view {@code now} (each subgroup's claims lock: a send either came before
     * and is waited for, or throws), unless it did already. A send that returned an index after
     * the wait would be left out of the view's trim, and the view after it is without this member: lost.
     */
    private void refuseSendsIn(final Epoch now, final String why)
    {
        if (now != refusedIn && now.ifOpen(e ->
        {
            e.smc.subgroups().values().forEach(g -> g.refuseSends(why));
            return true;
        }))
        {
            refusedIn = now;
        }
    }

    /**
     * Whether this member's own ordered sends in view {@code e} are delivered here. A view change that wedges the view
     * either delivers them in its trim or leaves them out, and then they are sent again in the next view before it
     * becomes current, where the departing member's wait goes on. Its leave announced in the wedged view could go
     * into that same change, which removed it with its last sends outside the trim, lost though they had returned
     * success (found by {@code weft chaos --transport rdma}).
     */
    private static boolean ownSendsDelivered(final Epoch e)
    {
        for (final SmcSubgroup g : e.smc.subgroups().values())
        {
            if (g.isSender() && g.isOrdered() && !g.ownSendsDelivered())
            {
                return false;
            }
        }
        return true;
    }

    private static boolean caughtUp(final Epoch e)
    {
        return e.smc.subgroups().values().stream().allMatch(SmcSubgroup::caughtUp);
    }

    /** A view change under way: it wedges every subgroup of the view at once. */
    private static boolean wedged(final Epoch e)
    {
        return e.smc.subgroups().values().stream().anyMatch(SmcSubgroup::isWedged);
    }

    private static boolean anotherFinished(final Epoch e)
    {
        for (final int r : e.sst.others())
        {
            if (e.sst.bool(r, e.columns.finished))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean allFinished(final Epoch e)
    {
        for (final int r : e.sst.others())
        {
            if (!e.sst.bool(r, e.columns.finished) && !e.sst.isFailedOrFrozen(r))
            {
                return false;
            }
        }
        return true;
    }
}

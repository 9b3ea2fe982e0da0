package io.weft.membership;

import io.weft.predicates.PassInvoker;
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

    Departure(final Group group, final CurrentView current, final MembershipLoop membership)
    {
        this.group = group;
        this.current = current;
        this.membership = membership;
    }

    boolean leave(final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        awaitOwnSendsDelivered(deadline);
        Epoch announced = null;
        while (!group.isClosed() && System.nanoTime() < deadline)
        {
            final Epoch now = current.epoch();
            if (now != announced && now.announceLeave()) // announced again in each next view; a closed one is skipped
            {
                membership.wake();
                announced = now;
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
        final long deadline = System.nanoTime() + timeout.toNanos();
        // a wedged view ends the wait here: members past this barrier take no part in view changes, so one under way
        // now may never install the next view
        while (!ownSendsDelivered(current.epoch(), false) && System.nanoTime() < deadline && !group.isClosed())
        {
            pause(1);
        }
        current.moveTo(Lifecycle.FINISHING);
        final Epoch e = current.epoch();
        e.sst.setBool(e.columns.finished, true);
        e.sst.push(e.columns.finished, e.sst.others());
        boolean all = false;
        while (!(all = allFinished(e)) && System.nanoTime() < deadline && !group.isClosed())
        {
            pause(1);
        }
        // everyone announced after its own last delivery, so what they delivered is stable here: deliver it too
        while (all && !e.smc.subgroups().values().stream().allMatch(SmcSubgroup::caughtUp) &&
            System.nanoTime() < deadline && !group.isClosed())
        {
            pause(1);
        }
        group.close();
        return all;
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
     * Waits until this member's own ordered sends are delivered here in a view that is not wedged (or the deadline, or
     * a close). Those still undelivered when a view change wedges the view are either inside its trim or sent again
     * in the next view, so the wait goes on there: announcing the leave in the wedged view instead let the change
     * remove this member with them outside the trim, lost though their sends had returned success (found by
     * {@code weft chaos --transport rdma}: a leave during a partition, with the leader frozen).
     */
    private void awaitOwnSendsDelivered(final long deadline) throws InterruptedException
    {
        while (!ownSendsDelivered(current.epoch(), true) && System.nanoTime() < deadline && !group.isClosed())
        {
            pause(1);
        }
    }

    /** Whether this member's own ordered sends are delivered here; a wedged subgroup counts as not if asked. */
    private static boolean ownSendsDelivered(final Epoch e, final boolean unwedged)
    {
        for (final SmcSubgroup g : e.smc.subgroups().values())
        {
            if (g.isSender() && g.isOrdered() && (g.isWedged() ? unwedged : !g.ownSendsDelivered()))
            {
                return false;
            }
        }
        return true;
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

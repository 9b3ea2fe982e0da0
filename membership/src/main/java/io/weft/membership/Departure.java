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
        final boolean delivered = awaitOwnSendsDeliveredBeforeFinishing(deadline);
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
        return all && delivered;
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
     * Waits until this member's own ordered sends are delivered here (or the deadline, or a close). A view change that
     * wedges the view meanwhile either delivers them in its trim or leaves them out, and then they are sent again in
     * the next view before it becomes current: the wait goes on there. It used to end at the wedge, and a leave
     * announced then could go into that same change, which removed this member with its last sends outside the
     * trim, lost though they had returned success (found by {@code weft chaos --transport rdma}).
     */
    private void awaitOwnSendsDelivered(final long deadline) throws InterruptedException
    {
        while (!ownSendsDelivered(current.epoch()) && System.nanoTime() < deadline && !group.isClosed())
        {
            pause(1);
        }
    }

    /**
     * The same wait before the shutdown barrier, with one way out: a member already past it takes no part in view
     * changes, so a change under way cannot end and the next view never comes. Returns false if this member's own
     * sends are not all delivered here then (they are lost with the view), or at the deadline, or at a close.
     */
    private boolean awaitOwnSendsDeliveredBeforeFinishing(final long deadline) throws InterruptedException
    {
        while (!group.isClosed() && System.nanoTime() < deadline)
        {
            final Epoch e = current.epoch();
            if (ownSendsDelivered(e))
            {
                return true;
            }
            if (wedged(e) && anotherFinished(e))
            {
                return false;
            }
            pause(1);
        }
        return false;
    }

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

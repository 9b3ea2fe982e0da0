package io.weft.membership;

import io.weft.config.ViewChangeSends;
import io.weft.predicates.PassInvoker;
import io.weft.predicates.ProtocolThread;
import io.weft.smc.Claim;
import io.weft.smc.SmcSubgroup;

/**
 * A member's sends, claims and fences through the current view. One that finds its view wedged waits for the next
 * view and is made there, or fails fast with {@link ViewChangeException} where
 * {@code weft.membership.send-during-view-change = fail}. On the invoker's owner (invoker mode) it runs the passes
 * while it waits, since nothing else would.
 */
final class ViewSends
{
    /** What is offered to the subgroup's engine. */
    enum Offer
    {
        SEND, CLAIM, FENCE
    }

    private final Group group;
    private final CurrentView current;
    private final boolean failFast;

    ViewSends(final Group group, final CurrentView current)
    {
        this.group = group;
        this.current = current;
        this.failFast = group.config().membership().sendDuringViewChange() == ViewChangeSends.FAIL;
    }

    /** Offers to subgroup {@code name} in the current view, waiting up to {@code timeoutNanos} for a slot or a view. */
    long offer(final String name, final Offer offer, final byte[] bytes, final int offset, final int length,
        final Claim claim, final long timeoutNanos)
    {
        ProtocolThread.refuseWait(name, offer == Offer.SEND ? "send" : offer == Offer.CLAIM ? "claim" : "fence",
            timeoutNanos); // constants: no string built per send
        final long first = attempt(name, offer, bytes, offset, length, claim, 0);
        if (first >= 0)
        {
            return first; // a free slot: the common case reads no clock
        }
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        final PassInvoker here = timeoutNanos > 0 ? group.invokerHere() : null;
        if (here != null)
        {
            return offerInvoking(here, name, offer, bytes, offset, length, claim, deadline);
        }
        long wait = timeoutNanos; // the whole timeout at first: a protocol thread's refusal names what it was given
        while (true)
        {
            final Epoch e = current.epoch();
            final long index = attempt(name, offer, bytes, offset, length, claim, Math.max(0, wait));
            if (index != SmcSubgroup.WEDGED)
            {
                return index;
            }
            if (!awaitNextView(e, name, deadline))
            {
                return SmcSubgroup.BACK_PRESSURED;
            }
            wait = deadline - System.nanoTime();
        }
    }

    /**
     * On the invoker's owner, which alone runs the passes that free a slot or change the view: tries between passes.
     */
    private long offerInvoking(final PassInvoker here, final String name, final Offer offer, final byte[] bytes,
        final int offset, final int length, final Claim claim, final long deadline)
    {
        int idle = 0;
        while (true)
        {
            final Epoch e = current.epoch();
            final long index = attempt(name, offer, bytes, offset, length, claim, 0);
            if (index >= 0)
            {
                return index;
            }
            if (index == SmcSubgroup.WEDGED && failFast)
            {
                awaitNextView(e, name, deadline); // throws, as configured
            }
            if (System.nanoTime() - deadline >= 0)
            {
                return SmcSubgroup.BACK_PRESSURED;
            }
            idle = here.invokeOrIdle(idle);
        }
    }

    private long attempt(final String name, final Offer offer, final byte[] bytes, final int offset,
        final int length, final Claim claim, final long waitNanos)
    {
        final SmcSubgroup engine = group.engine(name);
        return switch (offer)
        {
            case SEND -> engine.send(bytes, offset, length, claim, waitNanos);
            case CLAIM -> engine.claim(length, claim, waitNanos);
            case FENCE -> engine.requestFence(); // never waits: BACK_PRESSURED only with 64 fences not passed
        };
    }

    /** Waits until a view after {@code e} is installed; false on timeout. Fails fast if so configured. */
    private boolean awaitNextView(final Epoch e, final String name, final long deadline)
    {
        if (failFast)
        {
            throw new ViewChangeException("subgroup " + name + ": a view change of " + e.view + " is in progress; " +
                "nothing was sent, send again");
        }
        if (!current.awaitNextView(e, deadline))
        {
            return false;
        }
        group.checkOpen(name);
        return true;
    }
}

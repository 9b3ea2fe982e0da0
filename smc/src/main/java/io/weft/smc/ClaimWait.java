package io.weft.smc;

import io.weft.predicates.PredicateThread;
import io.weft.predicates.ProtocolThread;

import java.util.concurrent.locks.LockSupport;

/**
 * A sender back-pressured by its ring, waiting for room: it spins briefly, then parks until the flow predicate on the
 * predicate thread sees the acknowledgement that frees room for its claim and a batch more, and wakes it. One waiter
 * is woken by the predicate thread; another concurrent sender polls at a short period.
 */
final class ClaimWait
{
    private final SenderRing ring;
    private final PredicateThread predicates;
    private final String name;
    private final int wakeBatch;
    private volatile Thread waiter;
    /** The acknowledgement that frees room for the waiter's claim and a batch more; set before it parks. */
    private volatile long waitNeed;

    ClaimWait(final SenderRing ring, final PredicateThread predicates, final String name, final int window)
    {
        this.ring = ring;
        this.predicates = predicates;
        this.name = name;
        this.wakeBatch = Math.min(window / 8, 64);
    }

    long claim(final int length, final Claim claim, final long timeoutNanos)
    {
        ProtocolThread.refuseWait(name, "send", timeoutNanos);
        long index = ring.tryClaim(length, claim);
        if (index >= 0 || index == SmcSubgroup.WEDGED || timeoutNanos <= 0)
        {
            return index;
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        // room usually frees within microseconds: spin briefly before paying for a park and an unpark
        for (int i = 0; i < 50; i++)
        {
            Thread.onSpinWait();
            index = ring.tryClaim(length, claim);
            if (index >= 0 || index == SmcSubgroup.WEDGED)
            {
                return index;
            }
        }
        final Thread me = Thread.currentThread();
        while (true)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                return SmcSubgroup.BACK_PRESSURED;
            }
            final boolean mine = waiter == null || waiter == me;
            if (mine)
            {
                waitNeed = ring.needFor(SlotHeader.extent(length) * (1 + wakeBatch));
                waiter = me;
                predicates.wake(); // the flow predicate must see the waiter
            }
            LockSupport.parkNanos(this, mine ? Math.min(left, 10_000_000L) : Math.min(left, 50_000L));
            if (ring.isClosed() && !ring.isWedged())
            {
                throw new IllegalStateException("subgroup " + name + " is closed");
            }
            index = ring.tryClaim(length, claim);
            if (index >= 0 || index == SmcSubgroup.WEDGED)
            {
                if (waiter == me)
                {
                    waiter = null;
                }
                return index;
            }
        }
    }

    /**
     * Flow predicate: a parked sender has room again, for a batch of its messages when the ring is large: woken for
     * one, a streaming sender parks again at the next claim, a park and an unpark per message. Waiting for the batch
     * costs nothing else: the records it waits for hold older messages than the one the sender waits for.
     */
    boolean roomFreed()
    {
        return waiter != null && ring.acknowledged(waitNeed);
    }

    void wake()
    {
        final Thread t = waiter;
        waiter = null;
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }
}

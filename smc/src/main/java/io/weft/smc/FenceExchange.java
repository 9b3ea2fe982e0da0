package io.weft.smc;

import io.weft.sst.Sst;

/**
 * The read fences' counter round trip at one member of an ordered subgroup (protocol section 5): publishes the
 * newest ticket asked here in the fence column, echoes every other member's newest ticket in the fenceEcho columns,
 * and passes this member's fences whose echoes are in ({@link Delivery#passFences}). Its trigger runs on the
 * predicate thread under the receive lock and never once wedged, so an echo given here is given before any next view.
 */
final class FenceExchange
{
    private final SubgroupLayout layout;
    private final Sst sst;
    private final int myMember;
    private final ReadFences fences;
    private final Delivery delivery;
    private final PushBatch pushes;

    FenceExchange(final SubgroupLayout layout, final Sst sst, final ReadFences fences, final Delivery delivery,
        final PushBatch pushes)
    {
        this.layout = layout;
        this.sst = sst;
        this.myMember = layout.memberIndexOfRank(sst.myRank());
        this.fences = fences;
        this.delivery = delivery;
        this.pushes = pushes;
    }

    /** Predicate: a request of mine to publish, one of another member to echo, or a fence of mine to pass. */
    boolean due()
    {
        return fences.newestTicket() > sst.counter(sst.myRank(), layout.fence) || echoDue() || delivery.fenceReady();
    }

    /** Trigger, under the receive lock: adds the counters it changed to the push batch, which the caller flushes. */
    void exchange()
    {
        final long asked = fences.newestTicket();
        if (asked > sst.counter(sst.myRank(), layout.fence))
        {
            sst.setCounter(layout.fence, asked);
            pushes.add(layout.fence.offset(), 8);
        }
        if (echoDue())
        {
            for (int i = 0; i < layout.memberRanks.length; i++)
            {
                if (i != myMember)
                {
                    sst.setCounter(layout.fenceEcho, i, Math.max(sst.counter(sst.myRank(), layout.fenceEcho, i),
                        sst.counter(layout.memberRanks[i], layout.fence)));
                }
            }
            pushes.add(layout.fenceEcho.offset(), layout.fenceEcho.length());
        }
        delivery.passFences();
    }

    private boolean echoDue()
    {
        for (int i = 0; i < layout.memberRanks.length; i++)
        {
            if (i != myMember && sst.counter(layout.memberRanks[i], layout.fence) > sst.counter(sst.myRank(),
                layout.fenceEcho, i))
            {
                return true;
            }
        }
        return false;
    }
}

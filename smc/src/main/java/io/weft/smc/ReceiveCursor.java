package io.weft.smc;

import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.sst.Sst;

import java.util.Arrays;

/**
 * The receive side of a subgroup at one member (protocol section 5): per sender, how far its ring has been consumed
 * and the highest gap-free index received; once per pass, received[] and seqNum are published in one push. Decides
 * null-sends for this member's own ring. Predicate thread only, under the subgroup's receive lock.
 */
final class ReceiveCursor
{
    private final SubgroupLayout layout;
    private final String name;
    private final Sst sst;
    private final SlotHeader header;
    private final SmcConfig options;
    private final boolean ordered;
    private final RingGeometry rings;
    private final int senders;
    private final int mySender;
    private final SmcMeters meters;
    private final PushBatch pushes;
    private final SenderRing ring;
    private final Delivery delivery;
    private final long[] consumedSlots;
    /** Per sender, the offset in its ring of the next slot to consume. */
    private final long[] consumedAt;
    private final long[] receivedIndex;
    private long seqNum = -1;

    ReceiveCursor(final SubgroupLayout layout, final Sst sst, final RingGeometry rings, final SmcConfig options,
        final SmcMeters meters, final PushBatch pushes, final SenderRing ring, final Delivery delivery)
    {
        this.layout = layout;
        this.name = layout.config.name();
        this.sst = sst;
        this.header = new SlotHeader(sst.segment());
        this.options = options;
        this.ordered = layout.config.mode() == DeliveryMode.ORDERED;
        this.rings = rings;
        this.senders = layout.senders();
        this.mySender = layout.senderIndexOfRank(sst.myRank());
        this.meters = meters;
        this.pushes = pushes;
        this.ring = ring;
        this.delivery = delivery;
        this.consumedSlots = new long[senders];
        this.consumedAt = new long[senders];
        this.receivedIndex = new long[senders];
        Arrays.fill(receivedIndex, -1);
    }

    boolean receiveReady()
    {
        for (int s = 0; s < senders; s++)
        {
            if (sst.counter(layout.senderRanks[s], layout.published) >= consumedSlots[s])
            {
                return true;
            }
        }
        return false;
    }

    /** Consumes every newly published slot of every sender (one per pass without receive batching). */
    void receive()
    {
        long nullsUpTo = -1;
        boolean changed = false;
        for (int s = 0; s < senders; s++)
        {
            final int row = layout.senderRanks[s];
            final long guard = sst.counter(row, layout.published); // acquire: the slots it guards are visible
            long available = guard + 1 - consumedSlots[s];
            if (available <= 0)
            {
                continue;
            }
            if (!options.receiveBatching())
            {
                available = 1;
            }
            for (long k = 0; k < available; k++)
            {
                consume(s, row);
            }
            meters.received(available);
            changed = true;
            if (ring != null && s != mySender && options.nullSends() && ordered)
            {
                // pad so that my next index does not hold up theirs in the round-robin order
                nullsUpTo = Math.max(nullsUpTo, mySender < s ? receivedIndex[s] : receivedIndex[s] - 1);
            }
        }
        if (changed && options.receiveBatching())
        {
            acknowledge(); // once for the whole pass
        }
        if (ring != null && nullsUpTo >= 0)
        {
            ring.padTo(nullsUpTo);
        }
    }

    private void consume(final int s, final int row)
    {
        final long slot = consumedSlots[s];
        final long inRing = rings.record(header, row, consumedAt[s]);
        final long base = rings.ring(row) + inRing;
        final long first = header.index(base);
        final int nulls = header.nullCount(base);
        if (first != receivedIndex[s] + 1)
        {
            throw new IllegalStateException("subgroup " + name + ": sender " + layout.senderIds[s] + " slot " + slot +
                " holds index " + first + ", expected " + (receivedIndex[s] + 1));
        }
        receivedIndex[s] = nulls == 0 ? first : first + nulls - 1;
        consumedSlots[s] = slot + 1;
        consumedAt[s] = inRing + header.extent(base);
        if (!ordered && nulls == 0)
        {
            delivery.deliverOnReceipt(s, base, first);
        }
        if (!options.receiveBatching())
        {
            acknowledge(); // baseline: one acknowledgement per message
        }
    }

    /**
     * Writes received[] and seqNum into my row and defers one push of both and of the delivered counter (the three are
     * contiguous): the delivered counter goes out with every acknowledgement ({@link Delivery#lazyLag}).
     */
    private void acknowledge()
    {
        long min = Long.MAX_VALUE;
        int at = 0;
        for (int s = 0; s < senders; s++)
        {
            sst.setCounter(layout.received, s, receivedIndex[s]);
            if (receivedIndex[s] < min)
            {
                min = receivedIndex[s];
                at = s;
            }
        }
        // every index <= min is in from every sender, and index min+1 from senders 0..at-1
        final long candidate = (min + 1) * senders + at - 1;
        if (candidate > seqNum)
        {
            seqNum = candidate;
            sst.setCounter(layout.seqNum, seqNum);
        }
        pushes.add(layout.received.offset(), layout.delivered.offset() + 8 - layout.received.offset());
        delivery.deliveredCarried();
    }
}

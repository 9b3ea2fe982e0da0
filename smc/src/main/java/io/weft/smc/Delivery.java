package io.weft.smc;

import io.weft.config.SmcConfig;
import io.weft.sst.Sst;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;

/**
 * Delivery to the application (protocol section 5). Ordered mode: {@code stable = min seqNum over members}; deliver
 * in {@code seq = index * S + rank} order up to it, skipping nulls, and publish deliveredNum once per pass; after a
 * wedge, deliver exactly the ragged-edge trim. Unordered mode: the receive trigger hands each message over on receipt.
 * Messages are read in place in the table through one reusable {@link Message} flyweight. Called under the subgroup's
 * receive lock, never under the sender's: a slow callback does not block a claim.
 */
final class Delivery
{
    private static final Logger LOG = LoggerFactory.getLogger(Delivery.class);

    private final SubgroupLayout layout;
    private final String name;
    private final Sst sst;
    private final MemorySegment table;
    private final SlotHeader header;
    private final SmcConfig options;
    private final RingGeometry rings;
    private final int senders;
    private final int myRank;
    private final int mySender;
    private final SmcMeters meters;
    private final PushBatch pushes;
    private final long[] deliverSlot;
    private final Message message = new Message();
    private final MessageBatch batch;
    private volatile DeliveryHandler handler;
    private volatile BatchHandler batchHandler;
    private long delivered = -1;

    Delivery(final SubgroupLayout layout, final Sst sst, final RingGeometry rings, final SmcConfig options,
        final SmcMeters meters, final PushBatch pushes)
    {
        this.layout = layout;
        this.name = layout.config.name();
        this.sst = sst;
        // read-only: a delivered message is the sender's row, which with shm's zero copy is the sender's own file
        this.table = sst.segment().asReadOnly();
        this.header = new SlotHeader(table);
        this.options = options;
        this.rings = rings;
        this.senders = layout.senders();
        this.myRank = sst.myRank();
        this.mySender = layout.senderIndexOfRank(myRank);
        this.meters = meters;
        this.pushes = pushes;
        this.deliverSlot = new long[senders];
        this.batch = new MessageBatch(Math.max(1, Math.min(1 << 16, rings.window * senders)));
    }

    void onDelivery(final DeliveryHandler handler)
    {
        this.handler = handler;
    }

    void onBatch(final BatchHandler handler)
    {
        this.batchHandler = handler;
    }

    /** The highest seq every member has received: min seqNum over the subgroup's members, mine included. */
    long stable()
    {
        long min = Long.MAX_VALUE;
        for (final int r : layout.memberRanks)
        {
            min = Math.min(min, sst.counter(r, layout.seqNum));
        }
        return min;
    }

    boolean deliverReady()
    {
        return stable() > delivered;
    }

    /** Under the receive lock: delivers every stable message (one per pass without delivery batching). */
    void deliver()
    {
        final long stable = stable();
        deliverUpTo(options.deliveryBatching() ? stable : Math.min(stable, delivered + 1), null);
    }

    /** True when everything stable has been delivered here. */
    boolean caughtUp()
    {
        return stable() <= sst.counter(myRank, layout.delivered);
    }

    /**
     * Under the receive lock: delivers in round-robin order from {@code delivered + 1} to {@code upTo}; with a
     * {@code trim}, only messages of sender s with index &lt;= trim[s] (the ragged-edge cleanup of a view change).
     */
    void deliverUpTo(final long upTo, final long[] trim)
    {
        batch.reset(table);
        long count = 0;
        long own = 0;
        long ownNanos = 0;
        final long now = System.nanoTime(); // one clock read per pass: an own message's latency is to this delivery pass
        long seq = delivered + 1;
        for (; seq <= upTo; seq++)
        {
            final int s = (int)(seq % senders);
            final long index = seq / senders;
            if (trim != null && index > trim[s])
            {
                continue;
            }
            final long base = rings.slot(layout.senderRanks[s], deliverSlot[s]);
            final int nulls = header.nullCount(base);
            if (nulls == 0)
            {
                final long ts = header.timestamp(base);
                message.wrap(table, base + SlotHeader.SIZE, header.length(base),
                    layout.senderIds[s], s, index, seq, ts);
                if (s == mySender)
                {
                    own++;
                    ownNanos += now - ts;
                }
                upcall(s);
                count++;
                deliverSlot[s]++;
                if (batch.isFull())
                {
                    callBatch();
                    batch.reset(table);
                }
            }
            else if (index == header.index(base) + nulls - 1)
            {
                deliverSlot[s]++; // the last index of a run of nulls: the run's slot is done
            }
        }
        delivered = Math.max(delivered, upTo);
        if (batchHandler != null && batch.size() > 0)
        {
            callBatch();
        }
        sst.setCounter(layout.delivered, delivered);
        pushes.add(layout.delivered.offset(), 8);
        meters.delivered(count);
        if (own > 0)
        {
            meters.latency(own, ownNanos);
        }
    }

    /** Unordered mode, from the receive trigger: hands the message in the slot at {@code base} over at once. */
    void deliverOnReceipt(final int s, final long base, final long index)
    {
        message.wrap(table, base + SlotHeader.SIZE, header.length(base),
            layout.senderIds[s], s, index, -1, header.timestamp(base));
        batch.reset(table);
        upcall(s);
        if (batchHandler != null)
        {
            callBatch();
        }
        meters.deliveredOne();
    }

    private void upcall(final int s)
    {
        final DeliveryHandler h = handler;
        if (h != null)
        {
            try
            {
                h.onMessage(message);
            }
            catch (final RuntimeException ex)
            {
                LOG.error("subgroup {}: delivery callback failed on message {} of sender {}", name, message.index,
                    layout.senderIds[s], ex);
            }
        }
        if (batchHandler != null)
        {
            batch.add(message);
        }
    }

    private void callBatch()
    {
        try
        {
            batchHandler.onBatch(batch);
        }
        catch (final RuntimeException ex)
        {
            LOG.error("subgroup {}: batch delivery callback failed", name, ex);
        }
    }
}

package io.weft.smc;

import io.weft.config.SmcConfig;
import io.weft.sst.Sst;

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
    /** Per sender, the offset in its ring of the next slot to deliver. */
    private final long[] deliverAt;
    private final Message message = new Message();
    private final MessageBatch batch;
    private volatile DeliveryHandler handler;
    private volatile BatchHandler batchHandler;
    private volatile FenceHandler fenceHandler;
    private final ReadFences fences;
    private final int myMember;
    private long delivered = -1;
    /** The delivered counter as it last went out, in a push of its own or with an acknowledgement. */
    private long deliveredSent = -1;
    /** How far delivered may move past {@link #deliveredSent} before it goes out in a push of its own. */
    private final long lazyLag;

    Delivery(final SubgroupLayout layout, final Sst sst, final RingGeometry rings, final SmcConfig options,
        final SmcMeters meters, final PushBatch pushes, final ReadFences fences)
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
        this.myMember = layout.memberIndexOfRank(myRank);
        this.fences = fences;
        this.meters = meters;
        this.pushes = pushes;
        this.deliverAt = new long[senders];
        this.batch = new MessageBatch(Math.max(1, Math.min(1 << 16, layout.config.window() * senders)));
        this.lazyLag = lazyLag(options, layout.config.window(), senders);
    }

    /**
     * The lag of the lazy delivered counter, in sequence numbers: half a ring of each sender's messages. Only the
     * senders' ring reuse reads another member's delivered counter, and a sender whose ring is full has at least a
     * ring less one slot of records (each at most a slot, one slot lost to the wrap) that some member has not reported
     * delivered. A member that has delivered that many of one sender's messages has moved at least
     * {@code (half - 1) x senders + 1} sequence numbers, so its counter goes out at once and no sender waits for it.
     * Otherwise it goes out with the next acknowledgement. 1 is eager: a push after every delivery pass.
     */
    static long lazyLag(final SmcConfig options, final int window, final int senders)
    {
        if (!options.lazyDelivered() || !options.deliveryBatching())
        {
            return 1;
        }
        final long half = Math.max(2, window) / 2; // the ring holds at least two slots
        return (half - 1) * senders + 1;
    }

    void onDelivery(final DeliveryHandler handler)
    {
        this.handler = handler;
    }

    void onBatch(final BatchHandler handler)
    {
        this.batchHandler = handler;
    }

    void onFence(final FenceHandler handler)
    {
        this.fenceHandler = handler;
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
        return Math.min(stable(), barrier() - 1) > delivered;
    }

    /** This member's first message after its oldest fence not passed, which waits for the fence; else no limit. */
    private long barrier()
    {
        return fences.isEmpty() ? Long.MAX_VALUE : fences.headBarrier();
    }

    /** Under the receive lock: delivers every stable message (one per pass without delivery batching). */
    void deliver()
    {
        final long upTo = Math.min(stable(), barrier() - 1);
        deliverUpTo(options.deliveryBatching() ? upTo : Math.min(upTo, delivered + 1), null);
        passFences();
    }

    /** Fence predicate: the oldest fence may pass (see {@link #passFences}). */
    boolean fenceReady()
    {
        return !fences.isEmpty() && fences.headTarget() <= delivered && echoed(fences.headTicket());
    }

    /**
     * Under the receive lock: passes the fences whose target is delivered here and which every other member of the
     * subgroup has echoed in this view. An echo is given only by a member not wedged, so no view without this member
     * was installed before it, and none of the writes that view completes can have completed before the fence was
     * asked; and every message delivered anywhere before it was asked was stable, so received here, so inside the
     * target.
     */
    void passFences()
    {
        while (fenceReady())
        {
            pass();
        }
    }

    private boolean echoed(final long ticket)
    {
        for (int i = 0; i < layout.memberRanks.length; i++)
        {
            if (i != myMember && sst.counter(layout.memberRanks[i], layout.fenceEcho, myMember) < ticket)
            {
                return false;
            }
        }
        return true;
    }

    private void pass()
    {
        final long ticket = fences.headTicket();
        fences.poll();
        final FenceHandler h = fenceHandler;
        if (h != null)
        {
            try
            {
                h.onFence(ticket);
            }
            catch (final RuntimeException ex)
            {
                meters.callbackFailures.failed(ex, "subgroup {}: fence callback failed on fence {}", name, ticket);
            }
        }
    }

    /**
     * A view's trim: a fence passes where this member's messages before it are all inside the trim (the view change
     * is the round trip; a message outside the trim was never delivered anywhere); one with its own messages outside
     * stays, to be asked again in the next view after they are sent again ({@link #fencesLeft}).
     */
    private void passFencesInTrim(final long seq, final long[] trim)
    {
        while (!fences.isEmpty() && fences.headBarrier() <= seq &&
            (mySender < 0 || ownIndexAt(fences.headBarrier()) - 1 <= trim[mySender]))
        {
            flushBatch(); // the messages before the fence first
            pass();
        }
    }

    /** The index of this member's message at global sequence number {@code barrier}; MAX_VALUE if it sends nothing. */
    private long ownIndexAt(final long barrier)
    {
        return mySender < 0 ? Long.MAX_VALUE : (barrier - mySender) / senders;
    }

    /** Hands the messages collected for the batch callback over, if any. */
    private void flushBatch()
    {
        if (batchHandler != null && batch.size() > 0)
        {
            callBatch();
            batch.reset(table);
        }
    }

    /** After a trim: the fences left, oldest first, as their tickets and the index of this member's message after. */
    long[][] fencesLeft()
    {
        final int n = fences.size();
        final long[][] left = new long[2][n];
        for (int k = 0; k < n; k++)
        {
            left[0][k] = fences.ticketAt(k);
            left[1][k] = ownIndexAt(fences.barrierAt(k));
        }
        return left;
    }

    /** An acknowledgement push was added: it carries the delivered counter too (the column follows seqNum). */
    void deliveredCarried()
    {
        deliveredSent = delivered;
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
        // one clock read per pass: an own message's latency is to this delivery pass
        final long now = System.nanoTime();
        long seq = delivered + 1;
        for (; seq <= upTo; seq++)
        {
            final int s = (int)(seq % senders);
            final long index = seq / senders;
            if (trim != null)
            {
                passFencesInTrim(seq, trim);
                if (index > trim[s])
                {
                    continue;
                }
            }
            final int row = layout.senderRanks[s];
            final long inRing = rings.record(header, row, deliverAt[s]);
            final long base = rings.ring(row) + inRing;
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
                deliverAt[s] = inRing + header.extent(base);
                if (batch.isFull())
                {
                    callBatch();
                    batch.reset(table);
                }
            }
            else if (index == header.index(base) + nulls - 1)
            {
                deliverAt[s] = inRing + header.extent(base); // the last index of a run of nulls: its record is done
            }
            else
            {
                deliverAt[s] = inRing; // past any padding before the run
            }
        }
        delivered = Math.max(delivered, upTo);
        flushBatch();
        if (trim != null)
        {
            passFencesInTrim(Long.MAX_VALUE, trim);
        }
        sst.setCounter(layout.delivered, delivered);
        if (trim != null || delivered - deliveredSent >= lazyLag)
        {
            pushes.add(layout.delivered.offset(), 8);
            deliveredSent = delivered;
        }
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
                meters.callbackFailures.failed(ex, "subgroup {}: delivery callback failed on message {} of sender {}",
                    name, message.index, layout.senderIds[s]);
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
            meters.callbackFailures.failed(ex, "subgroup {}: batch delivery callback failed", name);
        }
    }
}

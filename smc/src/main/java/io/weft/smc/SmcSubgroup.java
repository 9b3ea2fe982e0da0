package io.weft.smc;

import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.predicates.PredicateHandle;
import io.weft.predicates.PredicateKind;
import io.weft.predicates.PredicateThread;
import io.weft.sst.Sst;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The small-message multicast of one subgroup at one member (protocol section 5): each sender owns a ring of
 * {@code window} slots in its row; four predicates on the member's single predicate thread move messages along.
 *
 * <ul>
 *     <li>Send ({@link SenderRing}): publish committed slots, one push per contiguous run, then the guard.</li>
 *     <li>Flow: wake a back-pressured sender once its next slot is free everywhere.</li>
 *     <li>Receive ({@link ReceiveCursor}): consume every newly visible slot of every sender, acknowledge once per
 *     pass (received[] and seqNum in one push); decide null-sends.</li>
 *     <li>Deliver ({@link Delivery}, ordered): deliver in round-robin order up to the stable frontier.</li>
 * </ul>
 * Two locks: the sender's (claims, publishing, nulls) and the receive lock (receive and delivery state, delivery
 * callbacks). Application threads take only the sender's, briefly, and never post writes. Each Spindle technique
 * follows {@link SmcConfig}; with all of them off this is the paper's baseline.
 */
public final class SmcSubgroup
{
    /** {@link #tryClaim} and {@link #send} result: every slot still awaits delivery somewhere. Retry later. */
    public static final long BACK_PRESSURED = -1;
    /** {@link #tryClaim} and {@link #send} result: the subgroup is wedged for a view change; send in the next view. */
    public static final long WEDGED = -2;

    private final SubgroupLayout layout;
    private final String name;
    private final SmcConfig options;
    private final boolean ordered;
    private final int senders;
    private final Sst sst;
    private final boolean sender;
    private final ReentrantLock receiveLock = new ReentrantLock();
    private final PushBatch pushes;
    private final SmcMeters meters;
    private final SenderRing ring;
    private final ReceiveCursor cursor;
    private final Delivery delivery;
    private final ReadFences fences = new ReadFences();
    private final FenceExchange exchange;
    private final PredicateThread predicates;
    private final int myMember;
    private final List<PredicateHandle> handles;
    private volatile boolean wedged;

    SmcSubgroup(final SubgroupLayout layout, final Sst sst, final PredicateThread predicates, final SmcConfig options,
        final SmcTotals totals)
    {
        this.layout = layout;
        this.name = layout.config.name();
        this.options = options;
        this.ordered = layout.config.mode() == DeliveryMode.ORDERED;
        this.senders = layout.senders();
        this.sst = sst;
        final int myRank = sst.myRank();
        this.predicates = predicates;
        this.myMember = layout.memberIndexOfRank(myRank);
        this.sender = layout.senderIndexOfRank(myRank) >= 0;
        this.pushes = new PushBatch(sst, Arrays.stream(layout.memberRanks).filter(r -> r != myRank).toArray(),
            options.earlyLockRelease());
        this.meters = totals.next(name);
        final RingGeometry rings = new RingGeometry(layout, sst);
        this.delivery = new Delivery(layout, sst, rings, options, meters, pushes, fences);
        this.ring = new SenderRing(this, layout, sst, rings, predicates, options, meters, pushes, delivery::stable);
        this.cursor = new ReceiveCursor(layout, sst, rings, options, meters, pushes, sender ? ring : null, delivery);
        this.exchange = new FenceExchange(layout, sst, fences, delivery, pushes);

        if (!layout.hasMemberRank(myRank))
        {
            handles = List.of();
            return;
        }
        final PredicateHandle send = sender
            ? predicates.register(name + ".send", PredicateKind.RECURRENT, ring::sendReady, ring::send) : null;
        final PredicateHandle flow = sender ? predicates.register(name + ".flow", PredicateKind.RECURRENT,
            ring.waits()::roomFreed, ring.waits()::wake) : null;
        final PredicateHandle receive = predicates.register(name + ".receive", PredicateKind.RECURRENT,
            cursor::receiveReady, this::receive);
        final PredicateHandle deliver = ordered
            ? predicates.register(name + ".deliver", PredicateKind.RECURRENT, delivery::deliverReady, this::deliver) :
                null;
        final PredicateHandle fence = ordered
            ? predicates.register(name + ".fence", PredicateKind.RECURRENT, this::fenceReady, this::fence) : null;
        handles = Stream.of(send, flow, receive, deliver, fence).filter(Objects::nonNull).toList();
    }

    // ---- application side ---------------------------------------------------------------------------------------

    /** The subgroup's configured name. */
    public String name()
    {
        return name;
    }

    /** Whether this member is one of the subgroup's senders (only senders may claim). */
    public boolean isSender()
    {
        return sender;
    }

    /** The largest message this subgroup takes, in bytes (its slots' payload size). */
    public int maxPayload()
    {
        return layout.config.maxPayload();
    }

    /** Sets the per-message delivery callback; set it before the first message can arrive. */
    public void onDelivery(final DeliveryHandler handler)
    {
        delivery.onDelivery(handler);
    }

    /** Sets the per-pass batch delivery callback. */
    public void onBatch(final BatchHandler handler)
    {
        delivery.onBatch(handler);
    }

    /**
     * Claims a slot for a message of at most {@code length} bytes, built in place and then committed.
     *
     * @return the message index (&gt;= 0), {@link #BACK_PRESSURED} when every slot still awaits delivery, or
     * {@link #WEDGED} during a view change.
     * @throws IllegalArgumentException if {@code length} exceeds the subgroup's max-payload.
     * @throws IllegalStateException    if this member is not a sender or the subgroup is closed.
     */
    public long tryClaim(final int length, final Claim claim)
    {
        return ring.tryClaim(length, claim);
    }

    /**
     * Like {@link #tryClaim} but waits up to {@code timeoutNanos} for room in the ring. A back-pressured sender spins
     * briefly, then parks (on few cores a spinning sender steals the time the predicate thread needs to free room);
     * the predicate thread unparks it once every member has acknowledged the records that free it.
     *
     * @return the message index, or {@link #BACK_PRESSURED} if the timeout passed first.
     */
    public long claim(final int length, final Claim claim, final long timeoutNanos)
    {
        return ring.waits().claim(length, claim, timeoutNanos);
    }

    /**
     * Copies {@code length} bytes and sends them.
     *
     * @return the message index, {@link #BACK_PRESSURED}, or {@link #WEDGED} during a view change (also when the
     *     view change gave up waiting for this send's commit): nothing was sent, send it in the next view.
     */
    public long send(final byte[] bytes, final int offset, final int length, final Claim claim)
    {
        return send(bytes, offset, length, claim, 0);
    }

    /** Copies and sends, waiting up to {@code timeoutNanos} for a free slot; returns as the send above. */
    public long send(final byte[] bytes, final int offset, final int length, final Claim claim, final long timeoutNanos)
    {
        if (length >= 0) // a negative length is claim's to refuse, with the subgroup's bound in its message
        {
            Objects.checkFromIndexSize(offset, length, bytes.length); // before the claim: a bad range leaves none open
        }
        final long index = claim(length, claim, timeoutNanos);
        if (index < 0)
        {
            return index;
        }
        claim.put(0, bytes, offset, length);
        return claim.tryCommit(length) ? index : WEDGED; // WEDGED: nothing sent, the caller sends in the next view
    }

    /** Sets the callback of this member's read fences; set it before the first fence is asked. */
    public void onFence(final FenceHandler handler)
    {
        delivery.onFence(handler);
    }

    /**
     * Asks for a read fence (ordered mode): its {@link FenceHandler} is called, in ticket order, once every message
     * this member had received or sent before this call is delivered here, before any message it sends afterwards
     * is, and once every other member of the subgroup has answered the request in this view. So the state the
     * deliveries built holds every message delivered anywhere before the call: a linearizable read that costs a
     * counter round trip instead of a message in the order. Never waits and never posts a write (the predicate
     * thread publishes the request).
     *
     * @return the fence's ticket (&gt; 0, increasing), {@link #WEDGED} during a view change, or
     * {@link #BACK_PRESSURED} while {@value ReadFences#CAPACITY} fences wait.
     * @throws IllegalStateException the subgroup is unordered or closed, or this member is not in it.
     */
    public long requestFence()
    {
        return requestFence(0);
    }

    /** {@link #requestFence()} with a given ticket: a fence carried over from the view before. */
    public long requestFence(final long ticket)
    {
        if (!ordered)
        {
            throw new IllegalStateException("subgroup " + name + " is unordered: a read fence needs the total order");
        }
        if (myMember < 0)
        {
            throw new IllegalStateException("this member is not in subgroup " + name + ": it has no fences");
        }
        final long result = ring.requestFence(fences, ticket);
        if (result > 0)
        {
            predicates.wake();
        }
        return result;
    }

    /** Before the first fence of this view: tickets go on after {@code ticket} (the last of the view before). */
    public void continueFencesAfter(final long ticket)
    {
        fences.continueAfter(ticket);
    }

    /** The highest fence ticket handed out so far. */
    public long lastFenceTicket()
    {
        return fences.lastTicket();
    }

    /**
     * After {@link #deliverTrim}: the fences that did not pass, oldest first, as {@code [tickets, next own index]}:
     * the index of this member's first message after each ({@link Long#MAX_VALUE} for a member that sends nothing).
     */
    public long[][] fencesLeft()
    {
        return delivery.fencesLeft();
    }

    /** Fence predicate; nothing once wedged (the trigger would do nothing, and the thread would not rest). */
    private boolean fenceReady()
    {
        return !wedged && exchange.due();
    }

    boolean commit(final Claim claim, final int length, final boolean asNull)
    {
        return ring.commit(claim, length, asNull);
    }

    // ---- receive and delivery triggers ----------------------------------------------------------------------------

    private void receive()
    {
        advance(Step.RECEIVE);
    }

    private void deliver()
    {
        advance(Step.DELIVER);
    }

    private void fence()
    {
        advance(Step.FENCE);
    }

    /** A trigger under the receive lock; the push batch is flushed after the lock is released. */
    private void advance(final Step step)
    {
        receiveLock.lock();
        try
        {
            if (wedged)
            {
                return; // received[], seqNum, delivered and the fence columns are final once wedged
            }
            switch (step)
            {
                case RECEIVE -> cursor.receive();
                case DELIVER -> delivery.deliver();
                case FENCE -> exchange.exchange();
            }
            if (!options.earlyLockRelease())
            {
                pushes.flush();
            }
        }
        finally
        {
            receiveLock.unlock();
        }
        pushes.flush();
    }

    /** The triggers that take the receive lock. */
    private enum Step
    {
        RECEIVE, DELIVER, FENCE
    }

    // ---- view change (protocol section 7) -------------------------------------------------------------------------

    /**
     * Stops this subgroup for a view change: from now on claims return {@link #WEDGED}, and the send, receive and
     * delivery triggers do nothing (each checks under its lock). A trigger already running finishes; see
     * {@link #awaitTriggers}.
     */
    public void wedge()
    {
        ring.wedge();
        wedged = true;
    }

    /**
     * After {@link #wedge()}: waits up to {@code timeoutNanos} for a receive or delivery trigger still running (a
     * delivery callback) to return. True once none runs: received[], seqNum and delivered are then final.
     */
    public boolean awaitTriggers(final long timeoutNanos)
    {
        return io.weft.config.LockWait.awaitFree(receiveLock, timeoutNanos);
    }

    /**
     * From now on a claim, send or read fence of this member here throws an {@link IllegalStateException} naming
     * {@code why} (it leaves or finishes); what it claimed before is sent and {@link #ownSendsDelivered} waits for
     * it.
     */
    public void refuseSends(final String why)
    {
        ring.refuseSends(why);
    }

    /** Whether the subgroup is wedged for a view change: nothing more is sent, received or delivered in this view. */
    public boolean isWedged()
    {
        return ring.isWedged();
    }

    /** Whether the member at {@code rank} is in this subgroup. */
    public boolean hasMember(final int rank)
    {
        return layout.hasMemberRank(rank);
    }

    /** Member ranks of the subgroup, lowest first. */
    public int[] memberRanks()
    {
        return layout.memberRanks.clone();
    }

    /** How many members send in this subgroup. */
    public int senderCount()
    {
        return senders;
    }

    /** Whether the subgroup delivers in one total order once stable (atomic multicast), not on receipt. */
    public boolean isOrdered()
    {
        return ordered;
    }

    /** received[sender] as the member at {@code rank} last published it: its highest gap-free index from the sender. */
    public long received(final int rank, final int sender)
    {
        return sst.counter(rank, layout.received, sender);
    }

    /**
     * True when everything stable has been delivered here (unordered, or this member outside the subgroup: always). On
     * shm a member outside the subgroup still sees its members' counters (it maps every row), but delivers nothing.
     */
    public boolean caughtUp()
    {
        return myMember < 0 || !ordered || ring.isWedged() || ring.isClosed() || delivery.caughtUp();
    }

    /**
     * Publishes how far this member has made its deliveries durable: an application count, monotone across views
     * (for example samples appended to a log). From a delivery callback of this subgroup the push leaves with the
     * trigger's other pushes, after its lock is released; from any other thread it leaves at once. One thread at a
     * time.
     */
    public void publishPersisted(final long count)
    {
        sst.setCounter(layout.persisted, count);
        if (receiveLock.isHeldByCurrentThread())
        {
            pushes.add(layout.persisted.offset(), 8);
        }
        else
        {
            pushes.pushNow(layout.persisted.offset(), 8);
        }
    }

    /** What this member last published with {@link #publishPersisted}; -1 if nothing yet in this view. */
    public long persisted()
    {
        return sst.counter(sst.myRank(), layout.persisted);
    }

    /**
     * The durability frontier: the least count published with {@link #publishPersisted} over the members not
     * failed; -1 while one of them has published none in this view, or a negative value (which marks no count: a
     * restarted log's announcement of its size, see the DDS layer).
     */
    public long persistedFrontier()
    {
        long min = Long.MAX_VALUE;
        for (final int r : layout.memberRanks)
        {
            if (r == sst.myRank() || !sst.isFailedOrFrozen(r))
            {
                min = Math.min(min, sst.counter(r, layout.persisted));
            }
        }
        return Math.max(-1, min);
    }

    /**
     * What each member of the subgroup in this view last published with {@link #publishPersisted}, by member id (-1:
     * nothing yet; a failed member's last value received). Allocates: for checks outside the data path.
     */
    public Map<Integer, Long> persistedByMember()
    {
        final Map<Integer, Long> byMember = new TreeMap<>();
        for (int k = 0; k < layout.memberRanks.length; k++)
        {
            byMember.put(layout.memberIds[k], sst.counter(layout.memberRanks[k], layout.persisted));
        }
        return byMember;
    }

    /** True once every message this member published has been delivered here (ordered mode). */
    public boolean ownSendsDelivered()
    {
        return ring.ownSendsDelivered();
    }

    /**
     * After a wedge, with the predicate thread stopped: delivers exactly the messages inside the trim (sender s up to
     * index trim[s]) in round-robin order; anything beyond is discarded here (its sender, if it survives, sends it
     * again in the next view).
     */
    public void deliverTrim(final long[] trim)
    {
        if (!ordered)
        {
            return; // delivered on receipt
        }
        long upTo = -1;
        for (int s = 0; s < senders; s++)
        {
            if (trim[s] >= 0)
            {
                upTo = Math.max(upTo, trim[s] * senders + s);
            }
        }
        receiveLock.lock();
        try
        {
            delivery.deliverUpTo(upTo, trim);
        }
        finally
        {
            receiveLock.unlock();
        }
        pushes.flushNow();
    }

    /**
     * After a wedge: the payloads of this member's own messages to send again in the next view, in order. Ordered:
     * those with an index above {@code trimmedTo}, committed but never delivered. Unordered: those committed but never
     * published, which no member can have delivered (a published one may have been, so it is not sent again; pass -1).
     * Waits, up to {@code timeoutNanos}, for claims still open to be committed or aborted; a later commit of those is
     * refused.
     */
    public List<byte[]> undelivered(final long trimmedTo, final long timeoutNanos)
    {
        return ring.undelivered(trimmedTo, timeoutNanos);
    }

    // ---- state and statistics -------------------------------------------------------------------------------------

    /** Closes the sender ring (waiting sends fail) and removes the subgroup's predicates. */
    public void close()
    {
        ring.close();
        handles.forEach(PredicateHandle::remove);
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed()
    {
        return ring.isClosed();
    }

    /** Sizes of the runs of slots published together at the sender (send batching). */
    public BatchStats sendBatches()
    {
        return meters.sendBatches;
    }

    /** Sizes of the runs of messages received in one receive pass (receive batching). */
    public BatchStats receiveBatches()
    {
        return meters.receiveBatches;
    }

    /** Sizes of the runs of messages delivered in one delivery pass (delivery batching). */
    public BatchStats deliveryBatches()
    {
        return meters.deliveryBatches;
    }

    /** Null messages this member sent (a run of k counts k). */
    public long nullsSent()
    {
        return meters.nullsSent();
    }

    /** Application messages delivered at this member. */
    public long deliveredMessages()
    {
        return meters.deliveredMessages();
    }

    /** Member ids of the subgroup, in rank order. */
    public int[] memberIds()
    {
        return layout.memberIds.clone();
    }

    /** Member ids of the senders, in sender-rank order. */
    public int[] senderIds()
    {
        return layout.senderIds.clone();
    }
}

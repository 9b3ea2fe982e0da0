package io.weft.smc;

import io.weft.config.SmcConfig;
import io.weft.predicates.PredicateThread;
import io.weft.sst.Sst;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * One sender's ring in its own row (protocol section 5): application threads claim a record of the length they ask
 * for (a slot), build the message in place and commit it; the send trigger on the predicate thread pads the
 * round-robin order with nulls and has the {@link RingPublisher} publish committed slots. {@link RingSpace} keeps
 * where each record in flight lies.
 *
 * <p>Its lock guards the claims only: a claim never waits for a publish, a receive or delivery trigger, nor for a
 * delivery callback. The predicate thread takes it only to insert nulls.
 */
final class SenderRing
{
    private static final VarHandle READY = RingPublisher.READY;

    private final SmcSubgroup owner;
    private final SubgroupLayout layout;
    private final String name;
    private final Sst sst;
    private final MemorySegment table;
    private final SlotHeader header;
    private final PredicateThread predicates;
    private final SmcConfig options;
    private final boolean ordered;
    private final RingGeometry rings;
    private final int maxPayload;
    private final int senders;
    private final int myRank;
    private final int mySender;
    /** Table offset of my ring. */
    private final long myRing;
    private final SmcMeters meters;
    private final LongSupplier stable;
    private final RingPublisher publisher;
    private final ClaimLock lock = new ClaimLock();

    // claims under the lock; ready flags released by committers, acquired by the send trigger
    private final long[] ready;
    private final RingSpace space;
    private final RingCounts counts = new RingCounts();
    private final ClaimWait waits;
    private final Resends resends;
    private volatile boolean wedged;
    private long deliveredAtWedge; // under the lock
    /** Why claims are refused from now on ({@link #refuseSends}), null while they are taken. Under the lock. */
    private String refusal;
    private volatile boolean closed;
    /**
     * Where targets read my row in place, or posts copy the row when made (tcp), a committing thread that finds the
     * predicate thread asleep publishes its message itself ({@link RingPublisher#publishFromCommitter()}): one
     * wake-up less between a commit and the receivers. A busy predicate thread is left to publish, in batches.
     * Where publishing costs socket writes, only a commit whose predecessor every member has received (the
     * pipeline is empty: a latency-bound sender) publishes: a back-pressured sender released into a burst found the
     * selector thread asleep at every commit and sent one message per write (476k msgs/s against 877k, tcp, all
     * senders, 1 KiB). Elsewhere (rdma reads the row when the write executes) the predicate thread alone publishes.
     */
    private final boolean publishOnCommit;
    private final boolean readsInPlace;

    SenderRing(final SmcSubgroup owner, final SubgroupLayout layout, final Sst sst, final RingGeometry rings,
        final PredicateThread predicates, final SmcConfig options, final SmcMeters meters, final PushBatch pushes,
        final LongSupplier stable)
    {
        this.owner = owner;
        this.layout = layout;
        this.name = layout.config.name();
        this.sst = sst;
        this.table = sst.segment();
        this.header = new SlotHeader(table);
        this.predicates = predicates;
        this.options = options;
        this.ordered = layout.config.mode() == io.weft.config.DeliveryMode.ORDERED;
        this.rings = rings;
        this.maxPayload = layout.config.maxPayload();
        this.senders = layout.senders();
        this.myRank = sst.myRank();
        this.mySender = layout.senderIndexOfRank(myRank);
        this.myRing = rings.ring(myRank);
        this.readsInPlace = sst.readsInPlace();
        this.publishOnCommit = (readsInPlace || sst.copiesWhenPosted()) && options.sendBatching() &&
            options.earlyLockRelease();
        this.meters = meters;
        this.stable = stable;
        this.ready = new long[RingSpace.entries(rings.maxRecords)];
        this.space = new RingSpace(rings.capacity, rings.maxRecords);
        this.waits = new ClaimWait(this, predicates, name, layout.config.window());
        this.publisher = new RingPublisher(layout, sst, rings, options, meters, pushes, ready, space,
            counts::claimedSlots);
        this.resends = new Resends(layout, sst, rings, lock, counts, space, ready, publisher);
    }

    // ---- application side ---------------------------------------------------------------------------------------

    long tryClaim(final int length, final Claim claim)
    {
        if (wedged)
        {
            return wedgedUnlessRefused(); // checked first: a wedged subgroup is closed once its view is replaced
        }
        checkSend(length);
        if (claim.owner != null)
        {
            throw new IllegalStateException("claim is still open: commit or abort it first");
        }
        lock.lock();
        try
        {
            checkNotRefused(); // before the wedge: a member that leaves sends in no later view, so none waits for one
            if (wedged)
            {
                return SmcSubgroup.WEDGED;
            }
            final long slot = counts.claimedSlots();
            final int extent = SlotHeader.extent(length);
            final long v = place(slot, extent);
            if (v < 0)
            {
                return SmcSubgroup.BACK_PRESSURED;
            }
            final long index = counts.nextIndex();
            final long base = take(slot, v, extent, ordered ? index * senders + mySender : index);
            header.claimed(base, index, extent);
            counts.advance(index + 1, slot + 1);
            claim.owner = owner;
            claim.segment = table;
            claim.offset = base + SlotHeader.SIZE;
            claim.capacity = length;
            claim.slot = slot;
            claim.index = index;
            return index;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Adds a read fence to {@code fences} under the claims' lock, so that no claim falls between its target and its
     * barrier: ticket {@code ticket}, or the next one if 0. Returns the ticket, {@link SmcSubgroup#WEDGED}, or
     * {@link SmcSubgroup#BACK_PRESSURED} when {@value ReadFences#CAPACITY} fences wait already.
     */
    long requestFence(final ReadFences fences, final long ticket)
    {
        lock.lock();
        try
        {
            checkNotRefused(); // a fence too, before the wedge: no view after this one to pass in
            if (wedged)
            {
                return SmcSubgroup.WEDGED;
            }
            if (closed)
            {
                throw new IllegalStateException("subgroup " + name + " is closed");
            }
            if (!fences.hasRoom())
            {
                return SmcSubgroup.BACK_PRESSURED;
            }
            final long t = ticket > 0 ? ticket : fences.nextTicket();
            // my published seqNum covers every message stable anywhere; my own last message may not be received yet
            final long received = sst.counter(myRank, layout.seqNum);
            final long next = counts.nextIndex();
            final long own = mySender < 0 || next == 0 ? -1 : (next - 1) * senders + mySender;
            fences.add(t, Math.max(received, own), mySender < 0 ? Long.MAX_VALUE : next * senders + mySender);
            return t;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Where a back-pressured sender waits for room, and the flow predicate wakes it. */
    ClaimWait waits()
    {
        return waits;
    }

    /** Publishes the claim; false if a view change gave up waiting for it first: then nothing is sent. */
    boolean commit(final Claim claim, final int length, final boolean asNull)
    {
        final int extent = SlotHeader.extent(length);
        if (extent < SlotHeader.extent(claim.capacity))
        {
            giveBack(claim, extent);
        }
        return publishCommit(claim, length, asNull);
    }

    /**
     * A commit shorter than its claim gives the unused bytes back to the ring when no later claim was made: a writer
     * that claims room for its largest sample and writes a small one (a DDS writer) takes only the bytes it wrote.
     * The record is not published yet, so no reader has seen its extent.
     */
    private void giveBack(final Claim claim, final int extent)
    {
        lock.lock();
        try
        {
            if (counts.claimedSlots() == claim.slot + 1)
            {
                space.shrink(claim.slot, extent);
                header.extent(claim.offset - SlotHeader.SIZE, extent);
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    private boolean publishCommit(final Claim claim, final int length, final boolean asNull)
    {
        header.committed(claim.offset - SlotHeader.SIZE, length, asNull, System.nanoTime());
        // A compare-and-set, not a release store: a view change that gives up waiting for this claim marks its flag
        // abandoned with a compare-and-set too, so exactly one of them wins however long this thread stalled since
        // its claim. Either the message is sent again in the next view, or this commit returns false. The only other
        // writer of this flag is that view change, so a failed set means it won. The set has volatile semantics:
        // the header and payload above happen-before the publish.
        final int entry = space.entry(claim.slot);
        final long open = (long)READY.getAcquire(ready, entry);
        if (open == Resends.abandoned(claim.slot) || !READY.compareAndSet(ready, entry, open, claim.slot + 1))
        {
            return false;
        }
        if (publishOnCommit && predicates.isAsleep() && (readsInPlace || claim.slot == 0 ||
            receivedByAll(claim.slot - 1)))
        {
            publisher.publishFromCommitter();
        }
        predicates.wakeInProcess(); // my own receive trigger acknowledges the message; it also pads with nulls
        return true;
    }

    private void checkSend(final int length)
    {
        if (closed)
        {
            throw new IllegalStateException("subgroup " + name + " is closed");
        }
        if (mySender < 0)
        {
            throw new IllegalStateException("this member (rank " + myRank + ") is not a sender of subgroup " + name +
                "; its senders are members " + java.util.Arrays.toString(layout.senderIds));
        }
        if (length < 0 || length > maxPayload)
        {
            throw new IllegalArgumentException("a message of " + length + " bytes does not fit subgroup " + name +
                " (max-payload " + maxPayload + " bytes)");
        }
    }

    /**
     * Under the lock: where record {@code slot} of {@code extent} bytes goes, or -1 if the ring has no room for it. The
     * oldest records are freed first, as far as every member acknowledged them and the room requires.
     */
    private long place(final long slot, final int extent)
    {
        long v = space.place(slot, extent);
        while (v < 0 && space.freed() < slot && acknowledged(space.need(space.freed())))
        {
            space.free();
            v = space.place(slot, extent);
        }
        return v;
    }

    /**
     * Under the lock: takes the ring's bytes for record {@code slot} at {@code v} and returns its table offset; a
     * record that starts the next lap leaves the padding mark where the tail it skips has room for one.
     */
    private long take(final long slot, final long v, final int extent, final long need)
    {
        final long headInRing = space.headInRing();
        if (v != space.head() && rings.roomForMark(headInRing))
        {
            header.padding(myRing + headInRing);
        }
        return myRing + space.take(slot, v, extent, need);
    }

    /** The acknowledgement after which a claim of {@code extent} bytes fits; -1 if it fits now. */
    long needFor(final int extent)
    {
        lock.lock();
        try
        {
            return space.needFor(counts.claimedSlots(), extent);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Whether every member acknowledged (received, or delivered where ordered) up to {@code need}. */
    boolean acknowledged(final long need)
    {
        if (need <= counts.acknowledgedByAll())
        {
            return true;
        }
        final long min = lowest(ordered);
        counts.acknowledgedByAll(min);
        return min >= need;
    }

    /** The lowest of the members' delivered counters, or of their received counters of my messages. */
    private long lowest(final boolean delivered)
    {
        long min = Long.MAX_VALUE;
        for (final int r : layout.memberRanks)
        {
            min = Math.min(min, delivered ? sst.counter(r, layout.delivered) : sst.counter(r, layout.received,
                mySender));
        }
        return min;
    }

    /**
     * Whether every member received record {@code slot}: nothing of mine is in flight. Received, not delivered as
     * where ordered rings are freed: members push their delivered counters lazily, so an idle sender's last message
     * stays undelivered-by-all in this member's table, and its next commit was left to the predicate thread (one
     * wake-up more: tcp, one sender at 1,000 msgs/s, p50 250-310 us).
     */
    private boolean receivedByAll(final long slot)
    {
        final long need = space.need(slot);
        return lowest(false) >= (ordered ? (need - mySender) / senders : need);
    }

    // ---- send trigger (predicate thread) ------------------------------------------------------------------------

    boolean sendReady()
    {
        return publisher.ready() || nullsDue();
    }

    void send()
    {
        padIfDue();
        publisher.publish();
    }

    // ---- null-sends ---------------------------------------------------------------------------------------------

    /**
     * From the receive trigger: another sender is ahead, so my indices up to {@code upTo} must not hold up delivery.
     * The eager rule pads at once; the lazy rule records the need and pads only once the stability frontier reaches
     * my next index (delivery is then waiting for me), so a sender about to send a real message sends no null.
     */
    void padTo(final long upTo)
    {
        if (upTo < counts.nextIndex())
        {
            return;
        }
        counts.pendingNulls(Math.max(counts.pendingNulls(), upTo));
        padIfDue();
    }

    private void padIfDue()
    {
        if (nullsDue())
        {
            lock.lock();
            try
            {
                insertNulls(counts.pendingNulls());
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    private boolean nullsDue()
    {
        final long pending = counts.pendingNulls();
        if (pending < counts.knownNext())
        {
            return false; // nextIndex only grows: no need to read the line the claimer writes
        }
        final long next = counts.nextIndex();
        counts.knownNext(next);
        return pending >= next && (!options.lazyNulls() || stable.getAsLong() >= next * senders + mySender - 1);
    }

    /** Under the lock: publishes one slot holding a run of nulls for indices nextIndex..upTo, if a slot is free. */
    private void insertNulls(final long upTo)
    {
        if (wedged)
        {
            return;
        }
        final long first = counts.nextIndex();
        if (upTo < first)
        {
            return;
        }
        final long slot = counts.claimedSlots();
        final long v = place(slot, SlotHeader.SIZE);
        if (v < 0)
        {
            return; // pendingNulls stays: the send trigger retries once a record frees
        }
        final long base = take(slot, v, SlotHeader.SIZE, ordered ? upTo * senders + mySender : upTo);
        final long count = upTo - first + 1;
        header.nullRun(base, first, (int)count);
        counts.advance(upTo + 1, slot + 1);
        READY.setRelease(ready, space.entry(slot), slot + 1);
        meters.nulls(count);
    }

    // ---- view change --------------------------------------------------------------------------------------------

    void wedge()
    {
        lock.lock();
        try
        {
            if (!wedged) // a member that stops wedges again, maybe with the table closed after a view change
            {
                deliveredAtWedge = sst.counter(myRank, layout.delivered);
                wedged = true;
            }
        }
        finally
        {
            lock.unlock();
        }
        publisher.wedge();
        waits.wake();
    }

    boolean isWedged()
    {
        return wedged;
    }

    /**
     * Refuses every later claim and read fence, naming {@code why}, under the claims' lock: a claim either came
     * before, and {@link #ownSendsDelivered} counts it, or throws. Null-sends go on. A send waiting for a slot is
     * woken to be refused now, not when a slot frees or its timeout ends.
     */
    void refuseSends(final String why)
    {
        lock.lock();
        try
        {
            refusal = why;
        }
        finally
        {
            lock.unlock();
        }
        waits.wake();
    }

    private long wedgedUnlessRefused()
    {
        lock.lock();
        try
        {
            checkNotRefused();
            return SmcSubgroup.WEDGED;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Under the lock: throws if {@link #refuseSends} was called. */
    private void checkNotRefused()
    {
        if (refusal != null)
        {
            throw new IllegalStateException("subgroup " + name + ": " + refusal);
        }
    }

    void close()
    {
        closed = true;
    }

    boolean isClosed()
    {
        return closed;
    }

    /**
     * True once every message this member published has been delivered here (ordered mode). Once wedged, only what
     * was delivered in order before the wedge counts: the trim delivers other senders' later messages and so moves
     * the delivered counter past messages of this member that it leaves out (they are sent again in the next view).
     */
    boolean ownSendsDelivered()
    {
        lock.lock();
        try
        {
            final long claimed = counts.claimedSlots();
            final long delivered = wedged ? deliveredAtWedge : sst.counter(myRank, layout.delivered);
            return claimed == 0 || delivered >= space.need(claimed - 1);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** See {@link SmcSubgroup#undelivered}. */
    List<byte[]> undelivered(final long trimmedTo, final long timeoutNanos)
    {
        return mySender < 0 ? List.of() : resends.undelivered(trimmedTo, timeoutNanos);
    }
}

package io.weft.smc;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.predicates.PredicateHandle;
import io.weft.predicates.PredicateKind;
import io.weft.predicates.PredicateThread;
import io.weft.sst.Sst;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The small-message multicast of one subgroup at one member (protocol section 5): each sender owns a ring of
 * {@code window} slots in its row; three predicates on the member's single predicate thread move messages along.
 *
 * <ul>
 *     <li>Send: publish committed slots (one push per contiguous run, then the guard in a second push).</li>
 *     <li>Receive: read each sender's guard, consume every newly visible slot, acknowledge once per pass
 *     (received[] and seqNum, contiguous, one push); decide null-sends.</li>
 *     <li>Deliver (ordered): {@code stable = min seqNum over members}; deliver in {@code seq = index * S + rank}
 *     order up to it, skipping nulls; publish deliveredNum once per pass.</li>
 * </ul>
 * Application threads only claim and commit slots (under the state lock, briefly) and never post writes.
 * Each Spindle technique follows {@link SmcConfig}; with all of them off this is the paper's baseline.
 */
public final class SmcSubgroup
{
    /** {@link #tryClaim} and {@link #send} result: every slot still awaits delivery somewhere. Retry later. */
    public static final long BACK_PRESSURED = -1;
    /** {@link #tryClaim} and {@link #send} result: the subgroup is wedged for a view change; send in the next view. */
    public static final long WEDGED = -2;

    private static final Logger LOG = LoggerFactory.getLogger(SmcSubgroup.class);
    private static final VarHandle READY = MethodHandles.arrayElementVarHandle(long[].class);

    private final SubgroupLayout layout;
    private final String name;
    private final Sst sst;
    private final MemorySegment table;
    private final PredicateThread predicates;
    private final SmcConfig options;
    private final boolean ordered;
    private final int window;
    private final int slotSize;
    private final int maxPayload;
    private final int senders;
    private final int myRank;
    private final int mySender;
    private final int[] targets;
    private final long rowSize;
    private final ReentrantLock lock = new ReentrantLock();

    // sender state: claims under the lock; ready flags released by committers, acquired by the send predicate
    private final long[] ready;
    private final long[] slotLast;
    private volatile long nextIndex;
    private volatile long claimedSlots;
    private volatile long pendingNulls = -1;
    private volatile Thread waiter;
    private long committedSlots;
    private long publishedSlots;

    // receiver state: predicate thread only
    private final long[] consumedSlots;
    private final long[] receivedIndex;
    private final long[] deliverSlot;
    private long seqNum = -1;
    private long delivered = -1;

    private final Message message = new Message();
    private final MessageBatch batch;
    private volatile DeliveryHandler handler;
    private volatile BatchHandler batchHandler;
    private final long[] pushOffset = new long[4];
    private final long[] pushLength = new long[4];
    private int pushes;
    private volatile boolean closed;
    private volatile boolean wedged;
    private final List<PredicateHandle> handles;

    private final BatchStats sendBatches = new BatchStats();
    private final BatchStats receiveBatches = new BatchStats();
    private final BatchStats deliveryBatches = new BatchStats();
    private volatile long nullsSent;
    private volatile long deliveredMessages;
    private final DistributionSummary sendSummary;
    private final DistributionSummary receiveSummary;
    private final DistributionSummary deliverySummary;
    private final Counter nullCounter;
    private final Counter deliveredCounter;
    private final Timer latency;

    SmcSubgroup(final SubgroupLayout layout, final Sst sst, final PredicateThread predicates, final SmcConfig options,
        final MeterRegistry registry)
    {
        this.layout = layout;
        this.name = layout.config.name();
        this.sst = sst;
        this.table = sst.segment();
        this.predicates = predicates;
        this.options = options;
        this.ordered = layout.config.mode() == DeliveryMode.ORDERED;
        this.window = layout.config.window();
        this.slotSize = layout.slotSize;
        this.maxPayload = layout.config.maxPayload();
        this.senders = layout.senders();
        this.myRank = sst.myRank();
        this.mySender = layout.senderIndexOfRank(myRank);
        this.rowSize = sst.layout().rowSize();
        int n = 0;
        final int[] t = new int[layout.memberRanks.length];
        for (final int r : layout.memberRanks)
        {
            if (r != myRank)
            {
                t[n++] = r;
            }
        }
        this.targets = java.util.Arrays.copyOf(t, n);
        this.ready = new long[window];
        this.slotLast = new long[window];
        this.consumedSlots = new long[senders];
        this.receivedIndex = new long[senders];
        java.util.Arrays.fill(receivedIndex, -1);
        this.deliverSlot = new long[senders];
        this.batch = new MessageBatch(Math.max(1, Math.min(1 << 16, window * senders)));

        final Tags tags = Tags.of("subgroup", name);
        sendSummary = DistributionSummary.builder("weft.smc.batch.send").tags(tags)
            .description("messages published per send push").register(registry);
        receiveSummary = DistributionSummary.builder("weft.smc.batch.receive").tags(tags)
            .description("messages consumed per sender per receive pass").register(registry);
        deliverySummary = DistributionSummary.builder("weft.smc.batch.delivery").tags(tags)
            .description("messages delivered per delivery pass").register(registry);
        nullCounter = Counter.builder("weft.smc.nulls").tags(tags).description("null messages sent").register(registry);
        deliveredCounter = Counter.builder("weft.smc.delivered").tags(tags).description("messages delivered")
            .register(registry);
        latency = Timer.builder("weft.smc.latency").tags(tags)
            .description("commit to delivery of this member's own messages").register(registry);

        if (!layout.hasMemberRank(myRank))
        {
            handles = List.of();
            return;
        }
        final PredicateHandle send = mySender >= 0
            ? predicates.register(name + ".send", PredicateKind.RECURRENT, this::sendReady, this::send) : null;
        final PredicateHandle flow = mySender >= 0
            ? predicates.register(name + ".flow", PredicateKind.RECURRENT, this::slotFreedForWaiter, this::wakeWaiter) : null;
        final PredicateHandle receive = predicates.register(name + ".receive", PredicateKind.RECURRENT,
            this::receiveReady, this::receive);
        final PredicateHandle deliver = ordered
            ? predicates.register(name + ".deliver", PredicateKind.RECURRENT, this::deliverReady, this::deliver) : null;
        handles = java.util.stream.Stream.of(send, flow, receive, deliver).filter(java.util.Objects::nonNull).toList();
    }

    // ---- application side ---------------------------------------------------------------------------------------

    public String name()
    {
        return name;
    }

    public boolean isSender()
    {
        return mySender >= 0;
    }

    public int maxPayload()
    {
        return maxPayload;
    }

    /** Sets the per-message delivery callback; set it before the first message can arrive. */
    public void onDelivery(final DeliveryHandler handler)
    {
        this.handler = handler;
    }

    /** Sets the per-pass batch delivery callback. */
    public void onBatch(final BatchHandler handler)
    {
        this.batchHandler = handler;
    }

    /**
     * Claims a slot for a message of at most {@code length} bytes, built in place and then committed.
     *
     * @return the message index (&gt;= 0), or {@link #BACK_PRESSURED} when every slot still awaits delivery.
     * @throws IllegalArgumentException if {@code length} exceeds the subgroup's max-payload.
     * @throws IllegalStateException    if this member is not a sender or the subgroup is closed.
     */
    public long tryClaim(final int length, final Claim claim)
    {
        if (wedged)
        {
            return WEDGED; // checked first: a wedged subgroup is closed once its view is replaced
        }
        checkSend(length);
        if (claim.owner != null)
        {
            throw new IllegalStateException("claim is still open: commit or abort it first");
        }
        lock.lock();
        try
        {
            if (wedged)
            {
                return WEDGED;
            }
            final long slot = claimedSlots;
            if (!slotFree(slot))
            {
                return BACK_PRESSURED;
            }
            final long index = nextIndex;
            final int pos = (int)(slot % window);
            slotLast[pos] = ordered ? index * senders + mySender : index;
            final long base = mySlotBase(pos);
            table.set(ValueLayout.JAVA_INT, base + SlotHeader.NULL_COUNT, 0);
            table.set(ValueLayout.JAVA_LONG, base + SlotHeader.INDEX, index);
            nextIndex = index + 1;
            claimedSlots = slot + 1;
            claim.owner = this;
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
     * Like {@link #tryClaim} but waits up to {@code timeoutNanos} for a free slot. A back-pressured sender parks
     * instead of spinning (on few cores a spinning sender steals the time the predicate thread needs to free the
     * slot); the predicate thread unparks it as soon as every member is past the slot.
     *
     * @return the message index, or {@link #BACK_PRESSURED} if the timeout passed first.
     */
    public long claim(final int length, final Claim claim, final long timeoutNanos)
    {
        long index = tryClaim(length, claim);
        if (index >= 0 || index == WEDGED || timeoutNanos <= 0)
        {
            return index;
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        // a slot usually frees within microseconds: spin, then yield, before paying for a park and an unpark
        for (int i = 0; i < 100; i++)
        {
            if (i < 50)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
            index = tryClaim(length, claim);
            if (index >= 0 || index == WEDGED)
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
                return BACK_PRESSURED;
            }
            final boolean mine = waiter == null || waiter == me;
            if (mine)
            {
                waiter = me;
                predicates.wake(); // the flow predicate must see the waiter
            }
            // one waiter is woken by the predicate thread; another concurrent sender polls at a short period
            LockSupport.parkNanos(this, mine ? Math.min(left, 10_000_000L) : Math.min(left, 50_000L));
            if (closed && !wedged)
            {
                throw new IllegalStateException("subgroup " + name + " is closed");
            }
            index = tryClaim(length, claim);
            if (index >= 0 || index == WEDGED)
            {
                if (waiter == me)
                {
                    waiter = null;
                }
                return index;
            }
        }
    }

    private boolean slotFreedForWaiter()
    {
        return waiter != null && slotFree(claimedSlots);
    }

    private void wakeWaiter()
    {
        final Thread t = waiter;
        waiter = null;
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }

    /**
     * Copies {@code length} bytes and sends them.
     *
     * @return the message index, or {@link #BACK_PRESSURED}.
     */
    public long send(final byte[] bytes, final int offset, final int length, final Claim claim)
    {
        return send(bytes, offset, length, claim, 0);
    }

    /** Copies and sends, waiting up to {@code timeoutNanos} for a free slot. */
    public long send(final byte[] bytes, final int offset, final int length, final Claim claim, final long timeoutNanos)
    {
        final long index = claim(length, claim, timeoutNanos);
        if (index >= 0)
        {
            claim.put(0, bytes, offset, length);
            claim.commit(length);
        }
        return index;
    }

    void commit(final Claim claim, final int length, final boolean asNull)
    {
        final int pos = (int)(claim.slot % window);
        final long base = mySlotBase(pos);
        table.set(ValueLayout.JAVA_INT, base + SlotHeader.LENGTH, asNull ? 0 : length);
        table.set(ValueLayout.JAVA_INT, base + SlotHeader.NULL_COUNT, asNull ? 1 : 0);
        table.set(ValueLayout.JAVA_LONG, base + SlotHeader.TIMESTAMP, System.nanoTime());
        READY.setRelease(ready, pos, claim.slot + 1); // the header and payload above happen-before the publish
        predicates.wake();
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

    /** Slot {@code slot} may be (re)used once every member is past the message that last used its position. */
    private boolean slotFree(final long slot)
    {
        if (slot < window)
        {
            return true;
        }
        final long need = slotLast[(int)(slot % window)];
        for (final int r : layout.memberRanks)
        {
            final long v = ordered ? sst.counter(r, layout.delivered) : sst.counter(r, layout.received, mySender);
            if (v < need)
            {
                return false;
            }
        }
        return true;
    }

    private long mySlotBase(final int pos)
    {
        return sst.offset(myRank, layout.slots, 0) + (long)pos * slotSize;
    }

    // ---- send predicate -----------------------------------------------------------------------------------------

    private boolean sendReady()
    {
        return committedSlots > publishedSlots || (committedSlots < claimedSlots &&
            (long)READY.getAcquire(ready, (int)(committedSlots % window)) == committedSlots + 1) ||
            pendingNulls >= nextIndex;
    }

    private void send()
    {
        lock.lock();
        try
        {
            if (pendingNulls >= nextIndex)
            {
                insertNulls(pendingNulls);
            }
            while (committedSlots < claimedSlots &&
                (long)READY.getAcquire(ready, (int)(committedSlots % window)) == committedSlots + 1)
            {
                committedSlots++;
            }
            long n = committedSlots - publishedSlots;
            if (n == 0)
            {
                return;
            }
            if (!options.sendBatching())
            {
                n = 1;
            }
            final long first = publishedSlots;
            final long last = first + n - 1;
            final int p0 = (int)(first % window);
            final int p1 = (int)(last % window);
            final long slotsOffset = layout.slots.offset();
            if (p0 <= p1)
            {
                defer(slotsOffset + (long)p0 * slotSize, usedEnd(p1) - (long)p0 * slotSize);
            }
            else
            {
                defer(slotsOffset + (long)p0 * slotSize, (long)(window - p0) * slotSize);
                defer(slotsOffset, usedEnd(p1));
            }
            publishedSlots = last + 1;
            sst.setCounter(layout.published, last);
            defer(layout.published.offset(), 8); // the guard, after the slots it guards
            sendBatches.record(n);
            sendSummary.record(n);
            if (!options.earlyLockRelease())
            {
                flush();
            }
        }
        finally
        {
            lock.unlock();
        }
        flush();
    }

    /** End of the used bytes of slot {@code pos}, relative to the slots column: only those are pushed. */
    private long usedEnd(final int pos)
    {
        final int length = table.get(ValueLayout.JAVA_INT, mySlotBase(pos) + SlotHeader.LENGTH);
        return (long)pos * slotSize + SlotHeader.SIZE + length;
    }

    /** Under the lock: publishes one slot holding a run of nulls for indices nextIndex..upTo, if a slot is free. */
    private void insertNulls(final long upTo)
    {
        final long first = nextIndex;
        if (upTo < first)
        {
            return;
        }
        final long slot = claimedSlots;
        if (!slotFree(slot))
        {
            pendingNulls = Math.max(pendingNulls, upTo); // retried by the send predicate
            return;
        }
        final int pos = (int)(slot % window);
        final long base = mySlotBase(pos);
        final long count = upTo - first + 1;
        table.set(ValueLayout.JAVA_INT, base + SlotHeader.LENGTH, 0);
        table.set(ValueLayout.JAVA_INT, base + SlotHeader.NULL_COUNT, (int)count);
        table.set(ValueLayout.JAVA_LONG, base + SlotHeader.INDEX, first);
        table.set(ValueLayout.JAVA_LONG, base + SlotHeader.TIMESTAMP, 0L);
        slotLast[pos] = ordered ? upTo * senders + mySender : upTo;
        nextIndex = upTo + 1;
        claimedSlots = slot + 1;
        READY.setRelease(ready, pos, slot + 1);
        nullsSent = nullsSent + count;
        nullCounter.increment(count);
    }

    // ---- receive predicate --------------------------------------------------------------------------------------

    private boolean receiveReady()
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

    private void receive()
    {
        long nullsUpTo = -1;
        lock.lock();
        try
        {
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
                receiveBatches.record(available);
                receiveSummary.record(available);
                changed = true;
                if (mySender >= 0 && s != mySender && options.nullSends() && ordered)
                {
                    // pad so that my next index does not hold up theirs in the round-robin order
                    nullsUpTo = Math.max(nullsUpTo, mySender < s ? receivedIndex[s] : receivedIndex[s] - 1);
                }
            }
            if (changed && options.receiveBatching())
            {
                acknowledge(); // once for the whole pass
            }
            if (nullsUpTo >= nextIndex)
            {
                insertNulls(nullsUpTo);
            }
            if (!options.earlyLockRelease())
            {
                flush();
            }
        }
        finally
        {
            lock.unlock();
        }
        flush();
    }

    private void consume(final int s, final int row)
    {
        final long slot = consumedSlots[s];
        final long base = (long)row * rowSize + layout.slots.offset() + (slot % window) * slotSize;
        final long first = table.get(ValueLayout.JAVA_LONG, base + SlotHeader.INDEX);
        final int nulls = table.get(ValueLayout.JAVA_INT, base + SlotHeader.NULL_COUNT);
        if (first != receivedIndex[s] + 1)
        {
            throw new IllegalStateException("subgroup " + name + ": sender " + layout.senderIds[s] + " slot " + slot +
                " holds index " + first + ", expected " + (receivedIndex[s] + 1));
        }
        receivedIndex[s] = nulls == 0 ? first : first + nulls - 1;
        consumedSlots[s] = slot + 1;
        if (!ordered && nulls == 0)
        {
            message.wrap(table, base + SlotHeader.SIZE, table.get(ValueLayout.JAVA_INT, base + SlotHeader.LENGTH),
                layout.senderIds[s], s, first, -1, table.get(ValueLayout.JAVA_LONG, base + SlotHeader.TIMESTAMP));
            batch.reset(table);
            upcall(s);
            if (batchHandler != null)
            {
                callBatch();
            }
        }
        if (!options.receiveBatching())
        {
            acknowledge(); // baseline: one acknowledgement per message
        }
    }

    /** Writes received[] and seqNum into my row and defers one push of both (they are contiguous). */
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
        defer(layout.received.offset(), (long)layout.received.length() + 8);
    }

    // ---- delivery predicate -------------------------------------------------------------------------------------

    private long stable()
    {
        long min = seqNum;
        for (final int r : layout.memberRanks)
        {
            if (r != myRank)
            {
                min = Math.min(min, sst.counter(r, layout.seqNum));
            }
        }
        return min;
    }

    private boolean deliverReady()
    {
        return stable() > delivered;
    }

    private void deliver()
    {
        lock.lock();
        try
        {
            final long stable = stable();
            deliverUpTo(options.deliveryBatching() ? stable : Math.min(stable, delivered + 1), null);
            if (!options.earlyLockRelease())
            {
                flush();
            }
        }
        finally
        {
            lock.unlock();
        }
        flush();
    }

    /**
     * Under the lock: delivers in round-robin order from {@code delivered + 1} to {@code upTo}; with a {@code trim},
     * only messages of sender s with index &lt;= trim[s] (the ragged-edge cleanup of a view change).
     */
    private void deliverUpTo(final long upTo, final long[] trim)
    {
        batch.reset(table);
        long count = 0;
        for (long seq = delivered + 1; seq <= upTo; seq++)
        {
            final int s = (int)(seq % senders);
            final long index = seq / senders;
            if (trim != null && index > trim[s])
            {
                delivered = seq;
                continue;
            }
            final int row = layout.senderRanks[s];
            final long base = (long)row * rowSize + layout.slots.offset() + (deliverSlot[s] % window) * slotSize;
            final long first = table.get(ValueLayout.JAVA_LONG, base + SlotHeader.INDEX);
            final int nulls = table.get(ValueLayout.JAVA_INT, base + SlotHeader.NULL_COUNT);
            if (nulls == 0)
            {
                final long ts = table.get(ValueLayout.JAVA_LONG, base + SlotHeader.TIMESTAMP);
                message.wrap(table, base + SlotHeader.SIZE, table.get(ValueLayout.JAVA_INT, base + SlotHeader.LENGTH),
                    layout.senderIds[s], s, index, seq, ts);
                if (s == mySender)
                {
                    latency.record(System.nanoTime() - ts, TimeUnit.NANOSECONDS);
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
            else if (index == first + nulls - 1)
            {
                deliverSlot[s]++;
            }
            delivered = seq;
        }
        if (batchHandler != null && batch.size() > 0)
        {
            callBatch();
        }
        sst.setCounter(layout.delivered, delivered);
        defer(layout.delivered.offset(), 8);
        deliveryBatches.record(count);
        deliverySummary.record(count);
        deliveredMessages = deliveredMessages + count;
        deliveredCounter.increment(count);
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
        if (!ordered)
        {
            deliveredMessages = deliveredMessages + 1;
            deliveredCounter.increment();
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

    // ---- pushes -------------------------------------------------------------------------------------------------

    private void defer(final long rowOffset, final long length)
    {
        if (pushes == pushOffset.length)
        {
            flush();
        }
        pushOffset[pushes] = rowOffset;
        pushLength[pushes] = length;
        pushes++;
    }

    /**
     * Posts the deferred pushes in order, then flushes once (one socket write or doorbell per target for the whole
     * trigger); with early lock release this runs after the lock is released.
     */
    private void flush()
    {
        if (pushes == 0)
        {
            return;
        }
        if (targets.length > 0)
        {
            for (int i = 0; i < pushes; i++)
            {
                sst.post(pushOffset[i], pushLength[i], targets);
            }
            sst.flush();
        }
        pushes = 0;
    }

    // ---- view change (protocol section 7) -------------------------------------------------------------------------

    /**
     * Stops this subgroup for a view change: from now on claims return {@link #WEDGED}. The caller stops the
     * predicate thread afterwards, so that received[], seqNum and delivered are final once it publishes its wedge.
     */
    public void wedge()
    {
        lock.lock();
        try
        {
            wedged = true;
        }
        finally
        {
            lock.unlock();
        }
        wakeWaiter();
    }

    public boolean isWedged()
    {
        return wedged;
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

    public int senderCount()
    {
        return senders;
    }

    public boolean isOrdered()
    {
        return ordered;
    }

    /** received[sender] as the member at {@code rank} last published it: its highest gap-free index from the sender. */
    public long received(final int rank, final int sender)
    {
        return sst.counter(rank, layout.received, sender);
    }

    /** True when everything stable has been delivered here (unordered: always). */
    public boolean caughtUp()
    {
        return !ordered || wedged || closed || stable() <= delivered;
    }

    /** True once every message this member published has been delivered here (ordered mode). */
    public boolean ownSendsDelivered()
    {
        lock.lock();
        try
        {
            return claimedSlots == 0 || delivered >= slotLast[(int)((claimedSlots - 1) % window)];
        }
        finally
        {
            lock.unlock();
        }
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
        lock.lock();
        try
        {
            deliverUpTo(upTo, trim);
        }
        finally
        {
            lock.unlock();
        }
        flush();
    }

    /**
     * After a wedge: the payloads of this member's own messages with an index above {@code trimmedTo}, in order,
     * committed but never delivered; they are sent again in the next view. Waits, up to {@code timeoutNanos}, for
     * claims still open to be committed or aborted.
     */
    public List<byte[]> undelivered(final long trimmedTo, final long timeoutNanos)
    {
        if (mySender < 0 || !ordered)
        {
            return List.of();
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        while (!allClaimsCommitted())
        {
            if (System.nanoTime() > deadline)
            {
                LOG.warn("subgroup {}: a claim stayed open during a view change; it is dropped", name);
                break;
            }
            LockSupport.parkNanos(100_000);
        }
        final List<byte[]> out = new java.util.ArrayList<>();
        lock.lock();
        try
        {
            for (long slot = Math.max(0, claimedSlots - window); slot < claimedSlots; slot++)
            {
                final int pos = (int)(slot % window);
                if ((long)READY.getAcquire(ready, pos) != slot + 1)
                {
                    continue;
                }
                final long base = mySlotBase(pos);
                final long index = table.get(ValueLayout.JAVA_LONG, base + SlotHeader.INDEX);
                if (table.get(ValueLayout.JAVA_INT, base + SlotHeader.NULL_COUNT) == 0 && index > trimmedTo)
                {
                    final int length = table.get(ValueLayout.JAVA_INT, base + SlotHeader.LENGTH);
                    out.add(table.asSlice(base + SlotHeader.SIZE, length).toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        finally
        {
            lock.unlock();
        }
        return out;
    }

    private boolean allClaimsCommitted()
    {
        lock.lock();
        try
        {
            for (long slot = Math.max(committedSlots, claimedSlots - window); slot < claimedSlots; slot++)
            {
                if ((long)READY.getAcquire(ready, (int)(slot % window)) != slot + 1)
                {
                    return false;
                }
            }
            return true;
        }
        finally
        {
            lock.unlock();
        }
    }

    // ---- state and statistics -------------------------------------------------------------------------------------

    public void close()
    {
        closed = true;
        handles.forEach(PredicateHandle::remove);
    }

    public boolean isClosed()
    {
        return closed;
    }

    public BatchStats sendBatches()
    {
        return sendBatches;
    }

    public BatchStats receiveBatches()
    {
        return receiveBatches;
    }

    public BatchStats deliveryBatches()
    {
        return deliveryBatches;
    }

    /** Null messages this member sent (a run of k counts k). */
    public long nullsSent()
    {
        return nullsSent;
    }

    /** Application messages delivered at this member. */
    public long deliveredMessages()
    {
        return deliveredMessages;
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

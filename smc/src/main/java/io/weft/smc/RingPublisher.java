package io.weft.smc;

import io.weft.config.SmcConfig;
import io.weft.sst.Sst;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Publishes a sender's committed slots (protocol section 5): counts the slots committed in order, pushes each
 * contiguous run, then the guard {@code published} in a second push. Run by the send trigger on the predicate thread,
 * or by a committing thread that found the predicate thread asleep (where targets read in place, or posts copy).
 *
 * <p>Its lock is not the ring's claim lock: a claim never waits for a publish in progress, and the predicate thread
 * never waits for a claim (on two cores each such wait was a park and an unpark: 8% of a sender's samples).
 */
final class RingPublisher
{
    static final VarHandle READY = MethodHandles.arrayElementVarHandle(long[].class);

    private final SubgroupLayout layout;
    private final Sst sst;
    private final SlotHeader header;
    private final RingGeometry rings;
    private final SmcConfig options;
    private final SmcMeters meters;
    private final PushBatch pushes;
    /** Committers publish on a transport whose posts copy: they post with their own batch, under the lock. */
    private final boolean committersPost;
    private final PushBatch committerPushes;
    private final int myRank;
    private final LongSupplier claimedSlots;
    private final ReentrantLock lock = new ReentrantLock();
    /** Slot s is committed when {@code ready[space.entry(s)] == s + 1}: released by committers, acquired here. */
    private final long[] ready;
    private final RingSpace space;
    private boolean wedged;
    private long committedSlots;
    private long publishedSlots;

    RingPublisher(final SubgroupLayout layout, final Sst sst, final RingGeometry rings, final SmcConfig options,
        final SmcMeters meters, final PushBatch pushes, final long[] ready, final RingSpace space,
        final LongSupplier claimedSlots)
    {
        this.layout = layout;
        this.sst = sst;
        this.header = new SlotHeader(sst.segment());
        this.rings = rings;
        this.options = options;
        this.meters = meters;
        this.pushes = pushes;
        this.committersPost = !sst.readsInPlace() && sst.copiesWhenPosted();
        this.committerPushes = committersPost ? pushes.immediate() : null;
        this.myRank = sst.myRank();
        this.ready = ready;
        this.space = space;
        this.claimedSlots = claimedSlots;
    }

    /** Send predicate: some slot is committed and not published yet (a racy read: the trigger re-checks). */
    boolean ready()
    {
        final long committed = committedSlots;
        return committed > publishedSlots || (long)READY.getAcquire(ready, space.entry(committed)) == committed + 1;
    }

    /**
     * Send trigger (predicate thread): publishes the committed run; its pushes are posted once the lock is free,
     * or under it where committers post too. A committer holding the lock is publishing: the trigger comes back
     * in the next pass rather than wait (a merged tcp selector thread must not stop reading).
     */
    void publish()
    {
        if (!lock.tryLock())
        {
            return;
        }
        try
        {
            if (wedged || !advanceCommitted())
            {
                return; // what is not published by the wedge is outside the trim: sent again in the next view
            }
            take(options.sendBatching() ? committedSlots - publishedSlots : 1, pushes);
            if (!options.earlyLockRelease() || committersPost)
            {
                pushes.flush();
            }
        }
        finally
        {
            lock.unlock();
        }
        pushes.flush();
    }

    /**
     * Under the lock: publishes the next {@code n} committed slots into {@code batch}: the bytes from the end of the
     * last record published (a padding mark after it included) to the last payload byte, in two pushes where they
     * wrap; then the guard that shows them.
     */
    private void take(final long n, final PushBatch batch)
    {
        final long first = publishedSlots;
        final long last = first + n - 1;
        final long from = space.from(first);
        final long to = usedEnd(last);
        final long lap = rings.nextLap(from);
        if (to <= lap)
        {
            batch.add(rings.inRow(from), to - from);
        }
        else
        {
            batch.add(rings.inRow(from), lap - from);
            batch.add(rings.inRow(lap), to - lap);
        }
        publishedSlots = last + 1;
        sst.setCounter(layout.published, last);
        batch.add(layout.published.offset(), 8); // the guard, after the slots it guards
        meters.sent(n);
    }

    /**
     * From a committing thread: publishes every committed slot, unless the predicate thread is doing so right now
     * (it then takes this one too). Where targets read my row in place the guard's release store shows the slots,
     * so the push is a fence and the doorbells. Elsewhere (tcp) the slots and the guard are posted under the lock,
     * as the send trigger then does too: posts copy the row when made, so a guard never reaches a target before
     * the slots it guards, whichever thread published them.
     */
    void publishFromCommitter()
    {
        if (!lock.tryLock())
        {
            return;
        }
        boolean published = false;
        try
        {
            if (wedged || !advanceCommitted())
            {
                return;
            }
            if (committersPost)
            {
                take(committedSlots - publishedSlots, committerPushes);
                meters.publishedByCommitter();
                committerPushes.flush(); // posts and writes: the predicate thread's batch is not this thread's
                return;
            }
            meters.sent(committedSlots - publishedSlots);
            meters.publishedByCommitter();
            publishedSlots = committedSlots;
            sst.setCounter(layout.published, publishedSlots - 1);
            published = true;
        }
        finally
        {
            lock.unlock();
        }
        if (published)
        {
            pushes.pushNow(layout.published.offset(), 8);
        }
    }

    /** How many slots were published; after {@link #wedge()}, final. */
    long publishedSlots()
    {
        lock.lock();
        try
        {
            return publishedSlots;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** From now on nothing is published; a publish in progress finishes first. */
    void wedge()
    {
        lock.lock(); // nothing between can throw
        wedged = true;
        lock.unlock();
    }

    /** Under the lock: counts the slots committed in order; true if some are not published yet. */
    private boolean advanceCommitted()
    {
        final long claimed = claimedSlots.getAsLong();
        while (committedSlots < claimed &&
            (long)READY.getAcquire(ready, space.entry(committedSlots)) == committedSlots + 1)
        {
            committedSlots++;
        }
        return committedSlots > publishedSlots;
    }

    /** The virtual end of record {@code slot}'s used bytes: the 8-alignment after its payload is not pushed. */
    private long usedEnd(final long slot)
    {
        final long v = space.at(slot);
        return v + SlotHeader.SIZE + header.length(rings.at(myRank, v));
    }
}

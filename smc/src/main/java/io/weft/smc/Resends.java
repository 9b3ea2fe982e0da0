package io.weft.smc;

import io.weft.sst.Sst;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * After a wedge (protocol section 7): the messages of one sender's ring that it sends again in the next view. A claim
 * still open is waited for, then given up: its ready flag is marked abandoned with a compare-and-set, which races the
 * committer's own ({@link SenderRing#commit}), so exactly one wins: the message is sent again, or its commit fails.
 */
final class Resends
{
    private static final Logger LOG = LoggerFactory.getLogger(Resends.class);
    private static final VarHandle READY = RingPublisher.READY;

    private final String name;
    private final boolean ordered;
    private final int myRank;
    private final MemorySegment table;
    private final SlotHeader header;
    private final RingGeometry rings;
    private final ClaimLock lock;
    private final RingCounts counts;
    private final RingSpace space;
    private final long[] ready;
    private final RingPublisher publisher;

    Resends(final SubgroupLayout layout, final Sst sst, final RingGeometry rings, final ClaimLock lock,
        final RingCounts counts, final RingSpace space, final long[] ready, final RingPublisher publisher)
    {
        this.name = layout.config.name();
        this.ordered = layout.config.mode() == io.weft.config.DeliveryMode.ORDERED;
        this.myRank = sst.myRank();
        this.table = sst.segment();
        this.header = new SlotHeader(table);
        this.rings = rings;
        this.lock = lock;
        this.counts = counts;
        this.space = space;
        this.ready = ready;
        this.publisher = publisher;
    }

    /** The ready flag of record {@code slot} once a view change gave up on its claim: no lap's ready value. */
    static long abandoned(final long slot)
    {
        return -slot - 1;
    }

    /** See {@link SmcSubgroup#undelivered}. */
    List<byte[]> undelivered(final long trimmedTo, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (!allClaimsCommitted())
        {
            if (System.nanoTime() > deadline)
            {
                LOG.warn("subgroup {}: a claim stayed open during a view change; it is not sent in this view", name);
                break;
            }
            LockSupport.parkNanos(100_000);
        }
        final List<byte[]> out = new ArrayList<>();
        lock.lock();
        try
        {
            final long claimed = counts.claimedSlots();
            // a freed record was delivered everywhere; unordered, a published one may have been delivered somewhere
            final long first = ordered ? space.freed() : publisher.publishedSlots();
            for (long slot = first; slot < claimed; slot++)
            {
                if (!committedElseAbandon(slot))
                {
                    continue;
                }
                final long base = rings.at(myRank, space.at(slot));
                final long index = header.index(base);
                if (header.nullCount(base) == 0 && index > trimmedTo)
                {
                    final int length = header.length(base);
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

    /**
     * Under the lock, wedged: whether record {@code slot} is committed. If not, it is marked abandoned, and its commit
     * will be refused; a commit that wins the race makes this true.
     */
    private boolean committedElseAbandon(final long slot)
    {
        final int entry = space.entry(slot);
        final long v = (long)READY.getAcquire(ready, entry);
        // a failed set means the committer set slot + 1 meanwhile, with volatile semantics: its payload is visible
        return v == slot + 1 ||
            (v != abandoned(slot) && !READY.compareAndSet(ready, entry, v, abandoned(slot)));
    }

    private boolean allClaimsCommitted()
    {
        lock.lock();
        try
        {
            final long claimed = counts.claimedSlots();
            for (long slot = space.freed(); slot < claimed; slot++)
            {
                if ((long)READY.getAcquire(ready, space.entry(slot)) != slot + 1)
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
}

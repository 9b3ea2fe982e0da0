package io.weft.examples.kv;

import io.weft.membership.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.TreeMap;

/**
 * A durable replica's part in a cold start ({@link KvReplica}'s recovery): makes its {@link ColdStart} at view 0,
 * reports again at each later view while it runs, carries out what the cold start decides (catch-ups sent by a
 * {@link CatchUpSender}, RECOVERED, serving, stopping), and applies the CATCHUP batches it receives in position order,
 * holding those that arrive ahead of a gap. Predicate thread, but {@link #onView} (membership thread, before any
 * delivery of the view).
 */
final class KvRecovery implements ColdStart.Actions
{
    private static final Logger LOG = LoggerFactory.getLogger(KvRecovery.class);

    private final KvReplica replica;
    private final CatchUpSender catchUps;
    /** Made at view 0 of a durable replica: read by the state transfer's thread too. */
    private volatile ColdStart coldStart;
    /** Catch-up batches past a gap, by position. */
    private final TreeMap<Long, byte[]> early = new TreeMap<>();
    /** The most catch-up batches {@link #early} held at once. */
    private int earlyPeak;

    /** For {@code replica}, once its member id is set. */
    KvRecovery(final KvReplica replica)
    {
        this.replica = replica;
        this.catchUps = new CatchUpSender(replica.me, replica.log, replica.proposer, this::current, replica::stop);
    }

    /**
     * This member's cold start; a member in none (a joiner, which has its state from a donor; a member without a
     * log, which sends no recovery messages) takes no part: a stand-in that does nothing.
     */
    ColdStart current()
    {
        final ColdStart c = coldStart;
        return c != null ? c : ColdStart.NONE;
    }

    /**
     * Membership thread, before any delivery in {@code v}. View 0 of a durable replica starts a cold start's
     * recovery; a later view while it runs starts a round among the survivors: this member reports again, with the
     * position it reached (read here: the last view's deliveries are done, and this view's have not begun).
     */
    void onView(final View v)
    {
        if (replica.log == null)
        {
            return;
        }
        if (v.id() == 0)
        {
            coldStart = new ColdStart(replica.me, v.members(), this);
        }
        else if (current().running())
        {
            replica.proposer.sendRaw(KvWire.recover(replica.me, replica.applied, replica.log.firstBatch(), v.id()));
        }
    }

    /** A CATCHUP of {@code position} carrying {@code batch} was delivered (from any member). */
    void onCatchUp(final long position, final byte[] batch)
    {
        catchUps.delivered(position);
        if (position <= replica.applied || !current().running())
        {
            return; // this member had it already, or recovers no more (at the target, or stopped)
        }
        early.put(position, batch);
        earlyPeak = Math.max(earlyPeak, early.size());
        Map.Entry<Long, byte[]> next;
        while ((next = early.firstEntry()) != null && next.getKey() <= replica.applied + 1)
        {
            early.pollFirstEntry();
            if (next.getKey() == replica.applied + 1)
            {
                replica.applyCaughtUp(next.getValue());
            }
        }
        current().onApplied(replica.applied);
    }

    /** Whether a catch-up stretch is still to be read from the log (no compaction may replace it). */
    boolean reading()
    {
        return catchUps.reading();
    }

    @Override
    public void catchUp(final long from, final long to, final long after)
    {
        catchUps.send(from, to, after, coldStart.plannedView());
    }

    @Override
    public void recovered()
    {
        replica.proposer.sendRaw(KvWire.message(KvWire.RECOVERED, replica.me, replica.applied, 0, null));
    }

    @Override
    public void serve()
    {
        LOG.info("member {}: cold start recovered; at most {} catch-up batches were held out of order", replica.me,
            earlyPeak);
        replica.serve();
    }

    @Override
    public void stop(final String reason)
    {
        replica.stop(reason);
    }
}

package io.weft.examples.kv;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A cold start's recovery, decided on the delivery thread from what is delivered, so the same at every member: each
 * member reports its log's position and first batch (RECOVER); once every member of the view reported in it, every
 * position up to the highest ever reported (the target) is sent again by the lowest-id member of the view whose log
 * holds it (CATCHUP); a member at the target says so (RECOVERED), and all serve once every member of the view did.
 * <p>
 * A view change during the recovery starts a round in the new view: each survivor reports again, with the position
 * it reached, and the plan is made again among them, toward the same target. A member that failed after its report
 * was delivered leaves nothing unknown (what only its log held and was not yet sent again stops the start, naming
 * it); one that failed before may have held acknowledged writes no other log holds, so the start stops, naming it.
 * <p>
 * A member whose log ends before writes that no log holds as batches (the others compacted past it while it was
 * away: their snapshots hold them) cannot be caught up from the logs: it stops, naming them, to join again once the
 * others serve (a joiner receives the state), and the others recover without it. Only if no member can reach the
 * target that way does the whole start stop.
 */
final class ColdStart
{
    /** What the recovery asks of its replica. */
    interface Actions
    {
        /**
         * Sends the batches of positions {@code from..to} (inclusive) again, from this member's log, once the
         * catch-up of position {@code after} is delivered (none to wait for: -1), or a later round planned.
         */
        void catchUp(long from, long to, long after);

        /** Multicasts RECOVERED: this member reached the target. */
        void recovered();

        /** Every member of the view recovered: serve. */
        void serve();

        /** The recovery cannot go on, for {@code reason}. */
        void stop(String reason);
    }

    private static final Logger LOG = LoggerFactory.getLogger(ColdStart.class);

    /** For a member in no cold start: it ends at once, so what it is told changes nothing. */
    static final ColdStart NONE = new ColdStart(-1, List.of(), null);

    private final int me;
    private final List<Integer> initial;
    private final Actions actions;
    private final Set<Integer> reported = new HashSet<>();
    private final Map<Integer, long[]> round = new HashMap<>();
    private final Set<Integer> recovered = new HashSet<>();
    private final List<long[]> sent = new ArrayList<>();
    /** Members of view 0 that no log can bring to the target: they stop, to join again once the others serve. */
    private final Set<Integer> excluded = new HashSet<>();
    private long roundView = -1;
    private volatile long plannedView = -1; // read by a catch-up that waits for its turn
    /** The highest position ever reported; once a round planned (every member of view 0 reported), the target. */
    private long highest;
    private boolean recoveredSent;
    private boolean stopped;
    private volatile boolean ended; // read by the membership thread at a view change

    /** The recovery of member {@code me} in a cold start of the members of view 0, {@code initial}. */
    ColdStart(final int me, final List<Integer> initial, final Actions actions)
    {
        this.me = me;
        this.initial = List.copyOf(initial);
        this.actions = actions;
        this.ended = actions == null;
    }

    /** Whether it still runs: not served, not stopped. */
    boolean running()
    {
        return !ended;
    }

    /** The view of the last round planned, or -1: a catch-up waiting for its turn sends once a later round plans. */
    long plannedView()
    {
        return plannedView;
    }

    /**
     * Whether it stopped this member (delivery thread): its log must take no write the group delivers from now on,
     * since it cannot know their positions (the others may serve without it).
     */
    boolean stopped()
    {
        return stopped;
    }

    /**
     * A RECOVER of {@code origin}, sent for the round of view {@code sentIn}, delivered in view {@code viewId} of
     * {@code members}; {@code applied} is this member's position now.
     */
    void onReport(final int origin, final long sentIn, final long position, final long firstBatch,
        final long viewId, final List<Integer> members, final long applied)
    {
        if (ended)
        {
            return;
        }
        reported.add(origin);
        highest = Math.max(highest, position);
        if (sentIn != viewId) // a report of an earlier round, carried into this view: its position counts
        {
            return;
        }
        if (roundView != viewId)
        {
            roundView = viewId;
            round.clear();
        }
        round.put(origin, new long[] {position, firstBatch});
        final List<Integer> taking = taking(members);
        if (plannedView == viewId || !round.keySet().containsAll(taking))
        {
            return;
        }
        plannedView = viewId;
        final Set<Integer> unknown = new TreeSet<>(initial);
        unknown.removeAll(reported);
        if (!unknown.isEmpty())
        {
            stop("member(s) " + unknown + " failed during the cold start before their logs' positions were " +
                "known: they may hold acknowledged writes no other log holds; start the whole group again");
            return;
        }
        final Map<Integer, long[]> stale = CatchUpPlan.stale(round, taking, highest);
        if (!stale.isEmpty() && stale.size() < taking.size()) // some member reaches the target: the stale ones stop
        {
            final long[] gap = stale.get(me);
            if (gap != null)
            {
                stop("member " + me + "'s log ends at write " + round.get(me)[0] + ", and no log of the view's " +
                    "members " + taking + " holds writes " + gap[0] + ".." + gap[1] + " (the others' logs were " +
                    "compacted past its end while it was away: their snapshots hold them): it cannot be caught up " +
                    "from the logs and stops, and the others serve without it. Start it again once they serve: it " +
                    "joins and receives their state");
                return;
            }
            LOG.warn("member {}: member(s) {} cannot be caught up from the logs (no log holds what they lack): they " +
                "stop, to join again once the others serve; the others recover without them", me, stale.keySet());
            excluded.addAll(stale.keySet());
        }
        final List<Integer> planned = taking(members); // without the stale members
        final List<long[]> mine;
        try
        {
            mine = CatchUpPlan.minus(CatchUpPlan.stretches(round, planned, me, highest), sent);
        }
        catch (final IllegalStateException ex) // every member lacks a write no log holds: no member can serve
        {
            stop(ex.getMessage());
            return;
        }
        LOG.info("member {}: cold start planned in view {}: {}; target {}; this member sends again {} (besides what " +
            "it sent in earlier rounds)", me, viewId, CatchUpPlan.describe(round), highest,
            mine.stream().map(s -> s[0] + ".." + s[1]).toList());
        sent.addAll(mine);
        mine.forEach(s -> actions.catchUp(s[0], s[1], CatchUpPlan.after(round, planned, me, s[0])));
        onApplied(applied);
        serveIfAllRecovered(members);
    }

    /** This member's position moved to {@code applied} (a catch-up applied): says RECOVERED once at the target. */
    void onApplied(final long applied)
    {
        if (!ended && plannedView >= 0 && applied >= highest && !recoveredSent)
        {
            recoveredSent = true;
            actions.recovered();
        }
    }

    /** A RECOVERED of {@code origin}, delivered in a view of {@code members}. */
    void onRecovered(final int origin, final List<Integer> members)
    {
        if (ended)
        {
            return;
        }
        recovered.add(origin);
        serveIfAllRecovered(members);
    }

    private void serveIfAllRecovered(final List<Integer> members)
    {
        if (!ended && recovered.containsAll(taking(members)))
        {
            end();
            actions.serve(); // every member is at the target: a client's batch comes after all catch-up
        }
    }

    /**
     * The members of a view that take part: those of view 0 but the excluded ones. A joiner takes none (its state
     * comes from a donor, and a donor that still recovers refuses it: {@link KvSnapshot}); waiting for its report
     * would stall the others.
     */
    private List<Integer> taking(final List<Integer> members)
    {
        return members.stream().filter(m -> initial.contains(m) && !excluded.contains(m)).toList();
    }

    private void end()
    {
        ended = true;
    }

    private void stop(final String reason)
    {
        end();
        stopped = true;
        actions.stop(reason);
    }
}

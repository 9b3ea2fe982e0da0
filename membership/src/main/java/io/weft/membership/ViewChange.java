package io.weft.membership;

import io.weft.predicates.PassInvoker;
import io.weft.smc.SmcSubgroup;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The view-change protocol (protocol section 7) for one view, run step by step on the membership thread over the
 * view's table. The decisions are {@link ViewChangeRules} over the table; this class applies them:
 * <ol>
 *     <li>the leader (lowest rank it trusts) appends changes (failed, left, joined) to its {@code changes} list,
 *     then bumps {@code numChanges}: two pushes, the list first;</li>
 *     <li>a follower wedges (its multicast stops, its received[] become final), copies the list into its own row
 *     and acknowledges ({@code numAcked}); the leader commits ({@code numCommitted}) when every member it trusts
 *     acknowledged exactly its list;</li>
 *     <li>a new leader first waits until every trusted member suspects every rank below it, then re-commits the
 *     longest commit it finds in any row (failed ones included), or else adopts the longest acknowledged list and
 *     extends it;</li>
 *     <li>per subgroup, its lowest-ranked trusted survivor adopts a trim published in any row or else computes one
 *     ({@code min received[sender]} over the trusted survivors), and publishes it, then {@code trimReady}; everyone
 *     echoes its cleanup leader's trim, and delivers exactly the messages inside it once every trusted survivor
 *     echoed the same trim;</li>
 *     <li>each member raises {@code done}; once every trusted member is done the next view can be installed.</li>
 * </ol>
 * Suspicions are published by the membership thread only ({@link Epoch#publishSuspicions}), before each step.
 */
final class ViewChange
{
    private static final Logger LOG = LoggerFactory.getLogger(ViewChange.class);

    /** This member cannot go on in the group (removed as failed, or missing messages inside a trim). */
    static final class ExcludedException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        ExcludedException(final String message)
        {
            super(message);
        }
    }

    /** A trim handed to the invoker's owner, and when. */
    private record HandedOver(Future<Void> delivered, long sinceNanos)
    {
    }

    private final Epoch e;
    private final PassInvoker invoker; // null: trims are delivered here, on the membership thread
    private final Sst sst;
    private final MembershipColumns cols;
    private final int me;
    private final Supplier<java.util.List<Integer>> joiners;
    private final java.util.function.BooleanSupplier reconfigure;
    private final ChangeList list = new ChangeList(MembershipColumns.MAX_CHANGES);
    private final Map<String, long[]> echoed = new HashMap<>();
    private final Map<String, long[]> trims = new HashMap<>();
    private final Map<String, HandedOver> handedOver = new HashMap<>();
    private ChangeList committed;
    private boolean takeoverDone;
    private boolean wedged;
    private long wedgedNanos;
    private boolean doneSet;

    ViewChange(final Epoch epoch, final PassInvoker invoker, final Supplier<java.util.List<Integer>> joiners,
        final java.util.function.BooleanSupplier reconfigure)
    {
        this.reconfigure = reconfigure;
        this.e = epoch;
        this.invoker = invoker;
        this.sst = epoch.sst;
        this.cols = epoch.columns;
        this.me = epoch.myRank();
        this.joiners = joiners;
    }

    /** True once this member has wedged: the membership thread then polls fast. */
    boolean inProgress()
    {
        return wedged;
    }

    /** When this member wedged ({@link System#nanoTime}); 0 if it has not. */
    long wedgedNanos()
    {
        return wedgedNanos;
    }

    boolean isLeader()
    {
        return ViewChangeRules.leader(e) == me;
    }

    int leaderId()
    {
        return e.idAt(ViewChangeRules.leader(e));
    }

    /** The trim this member delivered for {@code subgroup}, or null. */
    long[] trim(final String subgroup)
    {
        return trims.get(subgroup);
    }

    /**
     * One step. Returns the committed changes once this member delivered the trim of every subgroup it is in and
     * every trusted member is done; null until then.
     */
    ChangeList step()
    {
        e.publishSuspicions();
        if (inMinority())
        {
            return null; // the majority rule: a minority never proposes, commits or installs anything
        }
        if (committed == null)
        {
            final int leader = ViewChangeRules.leader(e);
            if (leader == me)
            {
                lead();
            }
            else
            {
                follow(leader);
                adoptCommit();
            }
        }
        if (committed == null)
        {
            return null;
        }
        if (committed.lists(ChangeList.FAILED, e.idAt(me)))
        {
            return committed; // the caller stops this member
        }
        boolean all = true;
        for (final Map.Entry<String, SmcSubgroup> g : e.smc.subgroups().entrySet())
        {
            if (g.getValue().hasMember(me) && !trims.containsKey(g.getKey()))
            {
                all &= cleanup(g.getKey(), g.getValue());
            }
        }
        if (!all)
        {
            return null;
        }
        if (!doneSet)
        {
            sst.setBool(cols.done, true);
            sst.push(cols.done, sst.others());
            doneSet = true;
        }
        return ViewChangeRules.allDone(e, committed) ? committed : null;
    }

    // ---- leader ---------------------------------------------------------------------------------------------------

    private void lead()
    {
        final boolean takingOver = me > 0 && !takeoverDone;
        if (takingOver)
        {
            if (!ViewChangeRules.takeoverReady(e))
            {
                return; // not everyone agrees yet that the ranks below me are gone
            }
            takeoverDone = true;
        }
        // A commit in any row of this view is final, whoever made it: a leader that failed after committing, or a
        // member that took over while this one was silent (frozen), even one that removes this member. On shm this
        // member reads that commit in place; proposing instead, it would wait forever for members done with the view.
        final int source = ViewChangeRules.commitSource(e);
        if (source >= 0)
        {
            if (adoptCommit())
            {
                LOG.info("leader {} adopts the {} changes member {} committed", e.idAt(me), committed.length(),
                    e.idAt(source));
            }
            return;
        }
        boolean rewrite = false;
        if (takingOver)
        {
            final int best = ViewChangeRules.longestAcked(e);
            if (best != me && e.numAcked(best) > list.length())
            {
                list.copyFrom(i -> e.change(best, i), e.numAcked(best));
            }
            LOG.info("member {} takes over as leader of view {}, adopting {} proposed changes", e.idAt(me),
                e.view.id(), list.length());
            rewrite = list.length() > 0;
        }
        rewrite |= ViewChangeRules.propose(e, list, e.view, joiners.get(), reconfigure.getAsBoolean());
        if (rewrite)
        {
            wedge();
            writeList();
            LOG.info("leader {} proposes {}", e.idAt(me), list);
        }
        if (ViewChangeRules.mayCommit(e, list))
        {
            commit(list.length());
        }
    }

    /** The majority rule, evaluated now; tells the failure detector, which stops the member once. */
    private boolean inMinority()
    {
        return e.detector.checkMinority(ViewChangeRules.lostMajority(e));
    }

    // ---- follower -------------------------------------------------------------------------------------------------

    private void follow(final int leader)
    {
        final int k = e.numChanges(leader);
        if (k == 0 || list.sameAs(i -> e.change(leader, i), k))
        {
            return;
        }
        wedge();
        list.copyFrom(i -> e.change(leader, i), k);
        writeList();
    }

    /** Adopts the longest commit published in any row; true if there was one. */
    private boolean adoptCommit()
    {
        final int source = ViewChangeRules.commitSource(e);
        if (source < 0)
        {
            return false;
        }
        final int k = e.numCommitted(source);
        list.copyFrom(i -> e.change(source, i), k);
        wedge();
        writeList();
        if (!inMinority())
        {
            commit(k);
        }
        return committed != null;
    }

    // ---- both -----------------------------------------------------------------------------------------------------

    /** Stops multicasting in every subgroup of this view; pushes wedged after the last acknowledgement. */
    private void wedge()
    {
        if (wedged)
        {
            return;
        }
        e.smc.subgroups().values().forEach(SmcSubgroup::wedge);
        final java.time.Duration bound = e.config.failure().failureTimeout();
        e.smc.subgroups().forEach((name, g) ->
        {
            if (!g.awaitTriggers(bound.toNanos()))
            {
                throw new ExcludedException("member " + e.idAt(me) + " cannot wedge view " + e.view.id() + ": a " +
                    "delivery callback of subgroup " + name + " has not returned within " + bound + " (callbacks " +
                    "must not block); it leaves the group");
            }
        });
        // no trigger changes received[], seqNum or delivered any more: they are final when wedged is published
        e.predicates.close();
        sst.setBool(cols.wedged, true);
        sst.push(cols.wedged, sst.others());
        wedged = true;
        wedgedNanos = System.nanoTime();
        LOG.info("member {} wedged view {}", e.idAt(me), e.view.id());
    }

    private void writeList()
    {
        for (int i = 0; i < list.length(); i++)
        {
            sst.setCounter(cols.changes, i, list.get(i));
        }
        if (list.length() > 0)
        {
            sst.push(cols.changes.offset(), (long)list.length() * 8, sst.others()); // the list before its count
        }
        sst.setCounter(cols.numChanges, list.length());
        sst.setCounter(cols.numAcked, list.length());
        // numChanges, numAcked (and numCommitted) are contiguous: one push
        sst.push(cols.numChanges.offset(), cols.numCommitted.offset() + 8L - cols.numChanges.offset(), sst.others());
    }

    private void commit(final int k)
    {
        committed = list.prefix(k);
        sst.setCounter(cols.numCommitted, k);
        sst.push(cols.numCommitted, sst.others());
        LOG.info("member {}: view {} change committed: {}", e.idAt(me), e.view.id(), committed);
        for (final int id : committed.ids(ChangeList.FAILED))
        {
            final int rank = e.view.rankOf(id);
            if (rank >= 0 && rank != me)
            {
                e.detector.suspect(rank, "removed by the view change");
            }
        }
    }

    /** Ragged-edge cleanup of one subgroup; true once its trim is delivered here. */
    private boolean cleanup(final String name, final SmcSubgroup g)
    {
        if (!g.isOrdered())
        {
            trims.put(name, new long[0]); // unordered: delivered on receipt, nothing to agree on
            return true;
        }
        final int[] participants = Arrays.stream(g.memberRanks())
            .filter(r -> !committed.lists(ChangeList.FAILED, e.idAt(r))).toArray();
        final int senders = g.senderCount();
        long[] trim = echoed.get(name);
        if (trim == null)
        {
            trim = chooseTrim(name, participants, senders);
            if (trim == null)
            {
                return false;
            }
            echo(name, g, trim);
        }
        if (!ViewChangeRules.echoedByAll(e, name, participants, trim))
        {
            return false; // delivered only once every trusted survivor holds it: a next leader then adopts it
        }
        if (!deliverTrim(name, g, trim))
        {
            return false;
        }
        trims.put(name, trim);
        LOG.info("member {}: subgroup {} trimmed at {} in view {}", e.idAt(me), name, Arrays.toString(trim),
            e.view.id());
        return true;
    }

    /**
     * Delivers {@code trim} here, or in invoker mode hands it to the invoker's owner, which delivers it in its next
     * {@code invoke()} with the other callbacks; true once delivered.
     */
    private boolean deliverTrim(final String name, final SmcSubgroup g, final long[] trim)
    {
        if (invoker == null)
        {
            e.detector.enterCallback(); // a callback stuck here would hold up everyone while this member heartbeats
            try
            {
                g.deliverTrim(trim);
            }
            finally
            {
                e.detector.leaveCallback();
            }
            return true;
        }
        final HandedOver h = handedOver.computeIfAbsent(name,
            n -> new HandedOver(invoker.handOver(() -> g.deliverTrim(trim)), System.nanoTime()));
        if (!h.delivered().isDone())
        {
            final java.time.Duration bound = e.config.failure().failureTimeout();
            if (System.nanoTime() - h.sinceNanos() > bound.toNanos())
            {
                throw new ExcludedException("member " + e.idAt(me) + " cannot end view " + e.view.id() + ": the " +
                    "trim of subgroup " + name + " waits for the invoker's owner (" + invoker.owner() + "), which " +
                    "has not called invoke() within " + bound + " (in invoker mode the application invokes at " +
                    "least every few milliseconds); it leaves the group");
            }
            return false;
        }
        try
        {
            h.delivered().get();
            return true;
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("the trim of subgroup " + name + " failed on the invoker's owner",
                ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while taking the trim of subgroup " + name, ex);
        }
    }

    /** The trim this member echoes: its cleanup leader's, or as the leader a published one or a fresh one. */
    private long[] chooseTrim(final String name, final int[] participants, final int senders)
    {
        int leader = -1;
        for (final int r : participants)
        {
            if (e.trusts(r))
            {
                leader = r;
                break;
            }
        }
        if (leader != me)
        {
            return e.trimReady(leader, name) ? ViewChangeRules.trimOf(e, leader, name, senders) : null;
        }
        if (!ViewChangeRules.cleanupLeaderReady(e, participants))
        {
            return null;
        }
        final long[] published = ViewChangeRules.publishedTrim(e, name, senders);
        return published != null ? published : ViewChangeRules.freshTrim(e, name, participants, senders);
    }

    /** Publishes {@code trim} in this row, then its ready flag; once only per subgroup. */
    private void echo(final String name, final SmcSubgroup g, final long[] trim)
    {
        final Column trimColumn = cols.trim(name);
        for (int s = 0; s < trim.length; s++)
        {
            if (trim[s] > g.received(me, s))
            {
                throw new ExcludedException("member " + e.idAt(me) + " misses messages inside the trim of subgroup " +
                    name + " (sender " + s + ": has " + g.received(me, s) + ", trim " + trim[s] + "); it was " +
                    "suspected during the view change and must leave the group");
            }
            sst.setCounter(trimColumn, s, trim[s]);
        }
        sst.push(trimColumn, sst.others());
        sst.setCounter(cols.trimReady(name), 1);
        sst.push(cols.trimReady(name), sst.others()); // after the trim it guards
        echoed.put(name, trim);
    }
}

package io.weft.membership;

import io.weft.smc.SmcSubgroup;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The view-change protocol (protocol section 7) for one view, run step by step on the membership thread over the
 * view's table. Every decision reads only the table, so that a member taking over from a failed leader finds all it
 * needs there:
 * <ol>
 *     <li>the leader (lowest rank nobody it trusts suspects) appends changes (failed, left, joined) to its
 *     {@code changes} list, then bumps {@code numChanges}: two pushes, the list first;</li>
 *     <li>a follower wedges (its multicast stops, its received[] become final), copies the list into its own row
 *     and acknowledges ({@code numAcked}); the leader commits ({@code numCommitted}) when every member it trusts
 *     acknowledged exactly its list;</li>
 *     <li>a new leader first waits until every trusted member suspects every rank below it (their suspicions were
 *     pushed after anything they acknowledged or echoed, so it then sees all of that), re-commits a commit it finds
 *     in any trusted row unchanged, or else adopts the longest acknowledged list and extends it;</li>
 *     <li>per subgroup, its lowest-ranked trusted survivor computes the trim ({@code min received[sender]} over the
 *     trusted survivors) or adopts one already echoed, publishes it and then {@code trimReady}; everyone echoes
 *     the trim and delivers exactly the messages inside it;</li>
 *     <li>each member raises {@code done}; once every trusted member is done the next view can be installed.</li>
 * </ol>
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

    private final Epoch e;
    private final Sst sst;
    private final int me;
    private final int n;
    private final Supplier<List<Integer>> pendingJoins;
    private final long[] list = new long[Epoch.MAX_CHANGES];
    private int len;
    private int committed;
    private boolean takeoverDone;
    private boolean wedged;
    private boolean doneSet;
    private final Map<String, long[]> trims = new HashMap<>();

    ViewChange(final Epoch epoch, final Supplier<List<Integer>> pendingJoins)
    {
        this.e = epoch;
        this.sst = epoch.sst;
        this.me = epoch.myRank();
        this.n = epoch.rows();
        this.pendingJoins = pendingJoins;
    }

    /** True once this member has wedged: the membership thread then polls fast. */
    boolean inProgress()
    {
        return wedged;
    }

    boolean isLeader()
    {
        return lowestTrusted() == me;
    }

    int leaderId()
    {
        return e.idAt(lowestTrusted());
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
    long[] step()
    {
        if (inMinority())
        {
            return null; // the majority rule: a minority never proposes, commits or installs anything
        }
        final int leader = lowestTrusted();
        if (committed == 0)
        {
            if (leader == me)
            {
                lead();
            }
            else
            {
                follow(leader);
                adoptCommit(leader);
            }
        }
        if (committed == 0)
        {
            return null;
        }
        final long[] changes = Arrays.copyOf(list, committed);
        if (listed(changes, Epoch.FAILED, e.idAt(me)))
        {
            return changes; // the caller stops this member
        }
        boolean all = true;
        for (final Map.Entry<String, SmcSubgroup> g : e.smc.subgroups().entrySet())
        {
            if (g.getValue().hasMember(me) && !trims.containsKey(g.getKey()))
            {
                all &= cleanup(g.getKey(), g.getValue(), changes);
            }
        }
        if (!all)
        {
            return null;
        }
        if (!doneSet)
        {
            sst.setBool(e.done, true);
            sst.push(e.done, sst.others());
            doneSet = true;
        }
        for (int r = 0; r < n; r++)
        {
            if (r != me && !e.suspects(r) && !sst.bool(r, e.done) && !listed(changes, Epoch.FAILED, e.idAt(r)))
            {
                return null;
            }
        }
        return changes;
    }

    // ---- leader ---------------------------------------------------------------------------------------------------

    private void lead()
    {
        boolean rewrite = false;
        if (me > 0 && !takeoverDone)
        {
            for (int r = 0; r < n; r++)
            {
                if (r == me || e.suspects(r))
                {
                    continue;
                }
                for (int q = 0; q < me; q++)
                {
                    if (!sst.bool(r, e.suspected, q))
                    {
                        return; // not everyone agrees yet that the ranks below me are gone
                    }
                }
            }
            for (int r = 0; r < n; r++)
            {
                final int k = (int)e.count(r, e.numCommitted);
                if ((r == me || !e.suspects(r)) && k > 0)
                {
                    LOG.info("member {} takes over as leader and re-commits the {} changes committed before", e.idAt(me), k);
                    copyFrom(r, k);
                    takeoverDone = true;
                    wedge();
                    writeList();
                    if (!inMinority())
                    {
                        commit(k);
                    }
                    return;
                }
            }
            int best = me;
            for (int r = 0; r < n; r++)
            {
                if (!e.suspects(r) && e.count(r, e.numAcked) > e.count(best, e.numAcked))
                {
                    best = r;
                }
            }
            final int k = (int)e.count(best, e.numAcked);
            if (best != me && k > len)
            {
                copyFrom(best, k);
            }
            LOG.info("member {} takes over as leader of view {}, adopting {} proposed changes", e.idAt(me), e.view.id(), len);
            takeoverDone = true;
            rewrite = len > 0;
        }
        for (int r = 0; r < n; r++)
        {
            if (r != me && e.suspects(r) && !mentions(e.idAt(r)))
            {
                rewrite |= append(Epoch.FAILED, e.idAt(r));
            }
        }
        for (int r = 0; r < n; r++)
        {
            if ((r == me || !e.suspects(r)) && sst.bool(r, e.leaving) && !mentions(e.idAt(r)))
            {
                rewrite |= append(Epoch.LEFT, e.idAt(r));
            }
        }
        for (final int id : pendingJoins.get())
        {
            if (!e.view.contains(id) && !mentions(id))
            {
                rewrite |= append(Epoch.JOINED, id);
            }
        }
        if (rewrite)
        {
            wedge();
            writeList();
            LOG.info("leader {} proposes {}", e.idAt(me), describe(Arrays.copyOf(list, len)));
        }
        if (len == 0 || failedCount(list, len) * 2 >= n)
        {
            return; // never commit a view that removes half the members or more as failed
        }
        for (int r = 0; r < n; r++)
        {
            if (r != me && e.suspects(r) && !mentions(e.idAt(r)))
            {
                return; // suspected since the list was written: it goes into the list first (next step)
            }
        }
        for (int r = 0; r < n; r++)
        {
            if (r != me && !e.suspects(r) && !listed(list, len, Epoch.FAILED, e.idAt(r)) &&
                (e.count(r, e.numAcked) != len || !sameList(r, len) || !sst.bool(r, e.wedged)))
            {
                return;
            }
        }
        // the acknowledgements above count only if the members that gave them are a majority: suspicions that
        // arrived during this step (a frozen leader resuming finds everyone gone) must stop the commit here
        if (!inMinority())
        {
            commit(len);
        }
    }

    /**
     * The majority rule, evaluated now: this member suspects (or its transport reports failed) at least half of the
     * view, members departing gracefully aside. Tells the failure detector, which stops the member once.
     */
    private boolean inMinority()
    {
        int against = 0;
        for (int r = 0; r < n; r++)
        {
            against += r != me && e.suspects(r) && !e.departing(r) ? 1 : 0;
        }
        return e.detector.checkMinority(against * 2 >= n);
    }

    private static int failedCount(final long[] changes, final int k)
    {
        int failed = 0;
        for (int i = 0; i < k; i++)
        {
            failed += Epoch.kindOf(changes[i]) == Epoch.FAILED ? 1 : 0;
        }
        return failed;
    }

    private boolean append(final long kind, final int id)
    {
        if (len == list.length)
        {
            return false; // full: the rest goes into the next view change
        }
        list[len++] = Epoch.change(kind, id);
        return true;
    }

    // ---- follower -------------------------------------------------------------------------------------------------

    private void follow(final int leader)
    {
        final int k = (int)e.count(leader, e.numChanges);
        if (k == 0 || (k == len && sameList(leader, k)))
        {
            return;
        }
        wedge();
        copyFrom(leader, k);
        writeList();
    }

    private void adoptCommit(final int leader)
    {
        final int k = (int)e.count(leader, e.numCommitted);
        if (k == 0)
        {
            return;
        }
        copyFrom(leader, k);
        wedge();
        writeList();
        commit(k);
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
        e.predicates.close(); // after this no trigger runs: received[], seqNum and delivered are final
        sst.setBool(e.wedged, true);
        sst.push(e.wedged, sst.others());
        wedged = true;
        LOG.info("member {} wedged view {}", e.idAt(me), e.view.id());
    }

    private void writeList()
    {
        final Column c = e.changes;
        for (int i = 0; i < len; i++)
        {
            sst.setCounter(c, i, list[i]);
        }
        if (len > 0)
        {
            sst.push(c.offset(), (long)len * 8, sst.others()); // the list before its count
        }
        sst.setCounter(e.numChanges, len);
        sst.setCounter(e.numAcked, len);
        // numChanges, numAcked (and numCommitted) are contiguous: one push
        sst.push(e.numChanges.offset(), e.numCommitted.offset() + 8L - e.numChanges.offset(), sst.others());
    }

    private void commit(final int k)
    {
        committed = k;
        sst.setCounter(e.numCommitted, k);
        sst.push(e.numCommitted, sst.others());
        final long[] changes = Arrays.copyOf(list, k);
        LOG.info("member {}: view {} change committed: {}", e.idAt(me), e.view.id(), describe(changes));
        for (final long c : changes)
        {
            final int rank = e.view.rankOf(Epoch.idOf(c));
            if (Epoch.kindOf(c) == Epoch.FAILED && rank >= 0 && rank != me)
            {
                e.detector.suspect(rank, "removed by the view change");
            }
        }
    }

    /** Ragged-edge cleanup of one subgroup; true once its trim is delivered here. */
    private boolean cleanup(final String name, final SmcSubgroup g, final long[] changes)
    {
        if (!g.isOrdered())
        {
            trims.put(name, new long[0]); // unordered: delivered on receipt, nothing to agree on
            return true;
        }
        final List<Integer> participants = new ArrayList<>();
        for (final int r : g.memberRanks())
        {
            if (!listed(changes, Epoch.FAILED, e.idAt(r)))
            {
                participants.add(r);
            }
        }
        final List<Integer> trusted = participants.stream().filter(r -> !e.suspects(r)).toList();
        final int leader = trusted.getFirst();
        final Column trimColumn = e.trim.get(name);
        final Column ready = e.trimReady.get(name);
        final int senders = g.senderCount();
        long[] trim = null;
        if (leader == me)
        {
            for (final int r : trusted)
            {
                if (r == me)
                {
                    continue;
                }
                if (!sst.bool(r, e.wedged))
                {
                    return false;
                }
                for (final int q : participants)
                {
                    if (q < me && !sst.bool(r, e.suspected, q))
                    {
                        return false; // an earlier cleanup leader's trim may still be on its way
                    }
                }
            }
            for (final int r : trusted)
            {
                if (e.count(r, ready) > 0)
                {
                    trim = readTrim(r, trimColumn, senders);
                    break;
                }
            }
            if (trim == null)
            {
                trim = new long[senders];
                Arrays.fill(trim, Long.MAX_VALUE);
                for (final int r : trusted)
                {
                    for (int s = 0; s < senders; s++)
                    {
                        trim[s] = Math.min(trim[s], g.received(r, s));
                    }
                }
            }
        }
        else
        {
            if (e.count(leader, ready) == 0)
            {
                return false;
            }
            trim = readTrim(leader, trimColumn, senders);
        }
        for (int s = 0; s < senders; s++)
        {
            sst.setCounter(trimColumn, s, trim[s]);
            if (trim[s] > g.received(me, s))
            {
                throw new ExcludedException("member " + e.idAt(me) + " misses messages inside the trim of subgroup " +
                    name + " (sender " + s + ": has " + g.received(me, s) + ", trim " + trim[s] + "); it was " +
                    "suspected during the view change and must leave the group");
            }
        }
        sst.push(trimColumn, sst.others());
        sst.setCounter(ready, 1);
        sst.push(ready, sst.others()); // after the trim it guards
        g.deliverTrim(trim);
        trims.put(name, trim);
        LOG.info("member {}: subgroup {} trimmed at {} in view {}", e.idAt(me), name, Arrays.toString(trim), e.view.id());
        return true;
    }

    private long[] readTrim(final int rank, final Column column, final int senders)
    {
        final long[] t = new long[senders];
        for (int s = 0; s < senders; s++)
        {
            t[s] = sst.counter(rank, column, s);
        }
        return t;
    }

    private int lowestTrusted()
    {
        for (int r = 0; r < n; r++)
        {
            if (r == me || !e.suspects(r))
            {
                return r;
            }
        }
        return me;
    }

    private void copyFrom(final int rank, final int k)
    {
        for (int i = 0; i < k; i++)
        {
            list[i] = sst.counter(rank, e.changes, i);
        }
        len = k;
    }

    private boolean sameList(final int rank, final int k)
    {
        for (int i = 0; i < k; i++)
        {
            if (sst.counter(rank, e.changes, i) != list[i])
            {
                return false;
            }
        }
        return true;
    }

    private boolean mentions(final int id)
    {
        for (int i = 0; i < len; i++)
        {
            if (Epoch.idOf(list[i]) == id)
            {
                return true;
            }
        }
        return false;
    }

    static boolean listed(final long[] changes, final long kind, final int id)
    {
        return listed(changes, changes.length, kind, id);
    }

    private static boolean listed(final long[] changes, final int k, final long kind, final int id)
    {
        for (int i = 0; i < k; i++)
        {
            if (Epoch.kindOf(changes[i]) == kind && Epoch.idOf(changes[i]) == id)
            {
                return true;
            }
        }
        return false;
    }

    static List<Integer> ids(final long[] changes, final long kind)
    {
        final List<Integer> out = new ArrayList<>();
        for (final long c : changes)
        {
            if (Epoch.kindOf(c) == kind)
            {
                out.add(Epoch.idOf(c));
            }
        }
        return out;
    }

    static String describe(final long[] changes)
    {
        return "failed " + ids(changes, Epoch.FAILED) + ", left " + ids(changes, Epoch.LEFT) + ", joined " +
            ids(changes, Epoch.JOINED);
    }
}

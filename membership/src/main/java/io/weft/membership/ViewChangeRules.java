package io.weft.membership;

import java.util.Arrays;
import java.util.List;

/**
 * The decisions of the view-change protocol as functions of the table alone ({@link MembershipTable}), so that a
 * member taking over from a failed one finds everything it needs there, and so that each rule can be tested on a
 * table built by hand. {@link ViewChange} applies them and does the writing.
 */
final class ViewChangeRules
{
    private ViewChangeRules()
    {
    }

    /** The member that proposes changes: the lowest rank this member trusts. */
    static int leader(final MembershipTable t)
    {
        for (int r = 0; r < t.rows(); r++)
        {
            if (t.trusts(r))
            {
                return r;
            }
        }
        return t.me();
    }

    /**
     * The majority rule: {@code against} suspected members out of {@code voters}. Members that announced a leave or
     * finished their run count on neither side, so that two sides of a partition can never both hold a majority
     * while a leave is in flight; a member that completed the view change (done) is a voter that never counts
     * against (a majority committed the change it completed).
     */
    static boolean lostMajority(final int against, final int voters)
    {
        return against > 0 && against * 2 >= voters;
    }

    /** The majority rule applied to this member's table. */
    static boolean lostMajority(final MembershipTable t)
    {
        int against = 0;
        int voters = 0;
        for (int r = 0; r < t.rows(); r++)
        {
            if (!t.abstains(r))
            {
                voters++;
                against += r != t.me() && t.suspects(r) && !t.departing(r) ? 1 : 0;
            }
        }
        return lostMajority(against, voters);
    }

    /**
     * A new leader may act once every member it trusts suspects every rank below it: their suspicions were published
     * after anything they acknowledged or echoed, so by then it has all of that in its table.
     */
    static boolean takeoverReady(final MembershipTable t)
    {
        for (int r = 0; r < t.rows(); r++)
        {
            if (r == t.me() || !t.trusts(r))
            {
                continue;
            }
            for (int q = 0; q < t.me(); q++)
            {
                if (!t.suspectedIn(r, q))
                {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The row holding the longest commit of this view, failed and suspected rows included (a commit, once published,
     * may already have been acted on by its author); -1 if none. Commits of one view are prefixes of each other.
     */
    static int commitSource(final MembershipTable t)
    {
        int best = -1;
        for (int r = 0; r < t.rows(); r++)
        {
            if (t.numCommitted(r) > 0 && (best < 0 || t.numCommitted(r) > t.numCommitted(best)))
            {
                best = r;
            }
        }
        return best;
    }

    /** The trusted row with the longest acknowledged proposal (this member's own on a tie). */
    static int longestAcked(final MembershipTable t)
    {
        int best = t.me();
        for (int r = 0; r < t.rows(); r++)
        {
            if (t.trusts(r) && t.numAcked(r) > t.numAcked(best))
            {
                best = r;
            }
        }
        return best;
    }

    /**
     * Appends to the leader's {@code list} what it must propose now: suspected members as failed (marked announced,
     * {@link ChangeList#appendFailed}, if they announced a leave or finished their run), trusted members that
     * announced a leave as left, waiting joiners outside {@code view} as joined, and, when {@code reconfigure}
     * (subgroups were requested), a change without members. True if anything was appended.
     */
    static boolean propose(final MembershipTable t, final ChangeList list, final View view, final List<Integer> joiners,
        final boolean reconfigure)
    {
        boolean appended = false;
        if (reconfigure && list.count(ChangeList.RECONFIGURED) == 0)
        {
            appended = list.append(ChangeList.RECONFIGURED, 0);
        }
        for (int r = 0; r < t.rows(); r++)
        {
            if (!t.trusts(r) && !list.mentions(t.idAt(r)))
            {
                // one that announced its going first is reported as left (the flag travels in the list, so that every
                // member makes the same view of it, whatever its own copy of that row holds)
                appended |= list.appendFailed(t.idAt(r), t.abstains(r));
            }
        }
        for (int r = 0; r < t.rows(); r++)
        {
            if (t.trusts(r) && t.leaving(r) && !list.mentions(t.idAt(r)))
            {
                appended |= list.append(ChangeList.LEFT, t.idAt(r));
            }
        }
        for (final int id : joiners)
        {
            if (!view.contains(id) && !list.mentions(id))
            {
                appended |= list.append(ChangeList.JOINED, id);
            }
        }
        return appended;
    }

    /**
     * The leader may commit {@code list}: it is not empty, removes fewer than half of the voters as failed, lists
     * every member suspected now, every other trusted member acknowledged exactly it and wedged, and this member
     * still holds a majority.
     */
    static boolean mayCommit(final MembershipTable t, final ChangeList list)
    {
        if (list.length() == 0)
        {
            return false;
        }
        int voters = 0;
        int failedVoters = 0;
        for (int r = 0; r < t.rows(); r++)
        {
            voters += t.abstains(r) ? 0 : 1;
            failedVoters += !t.abstains(r) && list.lists(ChangeList.FAILED, t.idAt(r)) ? 1 : 0;
        }
        // never commit a view that removes half the voters or more as failed; a member that announced a leave or
        // finished and then failed counts on neither side, as in lostMajority (counted against, a leaver that crashed
        // or a member that finished alone and closed held the others' view change, and so their group, for ever)
        if (lostMajority(failedVoters, voters))
        {
            return false;
        }
        for (int r = 0; r < t.rows(); r++)
        {
            if (r == t.me())
            {
                continue;
            }
            if (!t.trusts(r))
            {
                if (!list.mentions(t.idAt(r)))
                {
                    return false; // suspected since the list was written: it goes into the list first
                }
                continue;
            }
            final int rank = r;
            if (!list.lists(ChangeList.FAILED, t.idAt(r)) &&
                (!list.sameAs(i -> t.change(rank, i), t.numAcked(r)) || !t.wedged(r)))
            {
                return false;
            }
        }
        return !lostMajority(t);
    }

    /**
     * The lowest-ranked trusted participant leads the cleanup of a subgroup; it computes a trim once every other
     * trusted participant has wedged (its received[] are final) and suspects every participant ranked below it.
     */
    static boolean cleanupLeaderReady(final MembershipTable t, final int[] participants)
    {
        for (final int r : participants)
        {
            if (r == t.me() || !t.trusts(r))
            {
                continue;
            }
            if (!t.wedged(r))
            {
                return false;
            }
            for (final int q : participants)
            {
                if (q < t.me() && !t.suspectedIn(r, q))
                {
                    return false; // an earlier cleanup leader's trim may still be on its way
                }
            }
        }
        return true;
    }

    /**
     * A trim published for {@code subgroup} in any row, this member's own first, then failed and suspected rows
     * too: whoever published it may have delivered it, so nobody may compute a different one. Null if none.
     */
    static long[] publishedTrim(final MembershipTable t, final String subgroup, final int senders)
    {
        if (t.trimReady(t.me(), subgroup))
        {
            return trimOf(t, t.me(), subgroup, senders);
        }
        for (int r = 0; r < t.rows(); r++)
        {
            if (t.trimReady(r, subgroup))
            {
                return trimOf(t, r, subgroup, senders);
            }
        }
        return null;
    }

    static long[] trimOf(final MembershipTable t, final int rank, final String subgroup, final int senders)
    {
        final long[] trim = new long[senders];
        for (int s = 0; s < senders; s++)
        {
            trim[s] = t.trim(rank, subgroup, s);
        }
        return trim;
    }

    /** A fresh trim: for each sender, the fewest messages any trusted participant received. */
    static long[] freshTrim(final MembershipTable t, final String subgroup, final int[] participants, final int senders)
    {
        final long[] trim = new long[senders];
        Arrays.fill(trim, Long.MAX_VALUE);
        for (final int r : participants)
        {
            if (t.trusts(r))
            {
                for (int s = 0; s < senders; s++)
                {
                    trim[s] = Math.min(trim[s], t.received(r, subgroup, s));
                }
            }
        }
        return trim;
    }

    /**
     * A trim may be delivered once every trusted participant has echoed exactly it: after that, whichever of them
     * leads the cleanup next finds it in its own row and adopts it, so a member that delivered it and then failed
     * delivered a prefix of what the survivors deliver.
     */
    static boolean echoedByAll(final MembershipTable t, final String subgroup, final int[] participants,
        final long[] trim)
    {
        for (final int r : participants)
        {
            if (!t.trusts(r))
            {
                continue;
            }
            if (!t.trimReady(r, subgroup) || !Arrays.equals(trimOf(t, r, subgroup, trim.length), trim))
            {
                return false;
            }
        }
        return true;
    }

    /** Every trusted member not removed as failed by {@code committed} has delivered its trims (raised done). */
    static boolean allDone(final MembershipTable t, final ChangeList committed)
    {
        for (int r = 0; r < t.rows(); r++)
        {
            if (r != t.me() && t.trusts(r) && !t.done(r) && !committed.lists(ChangeList.FAILED, t.idAt(r)))
            {
                return false;
            }
        }
        return true;
    }
}

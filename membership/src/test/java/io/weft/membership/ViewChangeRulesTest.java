package io.weft.membership;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The view-change decisions on tables written by hand: each rule, and the review's suspected holes (issue 13). */
@Timeout(10)
class ViewChangeRulesTest
{
    private static final String SG = "all";

    @Test
    void leaderIsTheLowestTrustedRank()
    {
        final Table t = new Table(4, 2);
        assertEquals(0, ViewChangeRules.leader(t));
        t.suspect(0);
        assertEquals(1, ViewChangeRules.leader(t));
        t.suspect(1);
        assertEquals(2, ViewChangeRules.leader(t));
    }

    /**
     * Issue 13, item 2: five members, member 4 leaving, partition {0,1} | {2,3,4}. Counting the leaver out of the
     * suspects but not out of the view let both sides believe they hold a majority (2 against of 5 on each side).
     */
    @Test
    void aLeaveInFlightGivesNeitherSideOfAnEvenSplitAMajority()
    {
        final Table small = new Table(5, 0);
        small.leaving[4] = true;
        small.suspect(2);
        small.suspect(3);
        small.suspect(4);
        assertTrue(ViewChangeRules.lostMajority(small), "{0,1} holds 2 of the 4 members that stay");

        final Table large = new Table(5, 2);
        large.leaving[4] = true;
        large.suspect(0);
        large.suspect(1);
        assertTrue(ViewChangeRules.lostMajority(large), "{2,3} holds 2 of the 4 members that stay");

        final Table both = new Table(5, 2);
        both.leaving[3] = true;
        both.leaving[4] = true;
        both.suspect(0);
        both.suspect(1);
        assertTrue(ViewChangeRules.lostMajority(both), "{2} of {0,1,2}: minority");
        final Table other = new Table(5, 0);
        other.leaving[3] = true;
        other.leaving[4] = true;
        other.suspect(2);
        other.suspect(3);
        other.suspect(4);
        assertFalse(ViewChangeRules.lostMajority(other), "{0,1} of {0,1,2}: majority, and only this side");
    }

    @Test
    void aMemberThatCompletedTheViewChangeVotesButNeverCountsAgainst()
    {
        final Table t = new Table(3, 0);
        t.done[1] = true;
        t.suspect(2);
        assertFalse(ViewChangeRules.lostMajority(t), "1 suspected of 3 voters");
        t.suspect(1); // it installed the next view and closed this one
        assertFalse(ViewChangeRules.lostMajority(t), "a done member that went on is not against");
    }

    @Test
    void nobodySuspectedIsNeverAMinorityEvenWhenEveryoneFinished()
    {
        final Table t = new Table(3, 0);
        Arrays.fill(t.finished, true);
        assertFalse(ViewChangeRules.lostMajority(t));
    }

    @Test
    void aNewLeaderWaitsUntilEveryTrustedMemberSuspectsTheRanksBelowIt()
    {
        final Table t = new Table(4, 1);
        t.suspect(0);
        assertFalse(ViewChangeRules.takeoverReady(t), "2 and 3 still trust 0");
        t.suspectedIn[2][0] = true;
        assertFalse(ViewChangeRules.takeoverReady(t));
        t.suspectedIn[3][0] = true;
        assertTrue(ViewChangeRules.takeoverReady(t));
    }

    /**
     * Issue 13, item 1: a commit is adopted from any row, a failed or suspected one included (whoever published it
     * may have acted on it), and the longest one wins.
     */
    @Test
    void aCommitIsAdoptedFromAnyRowFailedOnesIncluded()
    {
        final Table t = new Table(3, 2);
        assertEquals(-1, ViewChangeRules.commitSource(t));
        t.suspect(0);
        t.committedList(0, ChangeList.encode(ChangeList.FAILED, 1));
        assertEquals(0, ViewChangeRules.commitSource(t), "the suspected former leader's commit");
        t.committedList(1, ChangeList.encode(ChangeList.FAILED, 1), ChangeList.encode(ChangeList.JOINED, 7));
        assertEquals(1, ViewChangeRules.commitSource(t), "the longest commit");
    }

    @Test
    void theLongestAcknowledgedProposalOfATrustedRowIsAdopted()
    {
        final Table t = new Table(3, 1);
        t.proposal(0, 3);
        t.proposal(2, 2);
        t.suspect(0);
        assertEquals(2, ViewChangeRules.longestAcked(t), "the suspected row is not a source of proposals");
    }

    @Test
    void theLeaderProposesSuspectsLeaversAndJoinersOnce()
    {
        final Table t = new Table(4, 0);
        t.suspect(3);
        t.leaving[2] = true;
        final ChangeList list = new ChangeList(MembershipColumns.MAX_CHANGES);
        final View view = View.initial(List.of(0, 1, 2, 3));
        assertTrue(ViewChangeRules.propose(t, list, view, List.of(9, 1), false));
        assertEquals(List.of(3), list.ids(ChangeList.FAILED));
        assertEquals(List.of(2), list.ids(ChangeList.LEFT));
        assertEquals(List.of(9), list.ids(ChangeList.JOINED), "a member already in the view does not join");
        assertFalse(ViewChangeRules.propose(t, list, view, List.of(9), false), "nothing new");
        final View next = list.nextView(view);
        assertEquals(List.of(0, 1, 9), next.members());
        assertEquals(1, next.id());
        assertEquals(List.of(3), next.failed());
    }

    @Test
    void theLeaderCommitsOnlyWhatEveryTrustedMemberAcknowledgedAndWedged()
    {
        final Table t = new Table(3, 0);
        t.suspect(2);
        final ChangeList list = ChangeList.of(ChangeList.encode(ChangeList.FAILED, 2));
        assertFalse(ViewChangeRules.mayCommit(t, list), "1 has not acknowledged");
        t.acked(1, list);
        assertFalse(ViewChangeRules.mayCommit(t, list), "1 has not wedged");
        t.wedged[1] = true;
        assertTrue(ViewChangeRules.mayCommit(t, list));
        t.acked(1, ChangeList.of(ChangeList.encode(ChangeList.JOINED, 5)));
        assertFalse(ViewChangeRules.mayCommit(t, list), "1 acknowledged another list");
        t.acked(1, list);
        t.suspect(1);
        assertFalse(ViewChangeRules.mayCommit(t, list), "1 is suspected but not listed");
        assertFalse(ViewChangeRules.mayCommit(t, ChangeList.of(ChangeList.encode(ChangeList.FAILED, 2),
            ChangeList.encode(ChangeList.FAILED, 1))), "removing 2 of 3 as failed");
        assertFalse(ViewChangeRules.mayCommit(t, new ChangeList(4)), "nothing to commit");
    }

    /**
     * A member that announced a leave or finished its run and then went is removed as failed, since its row is silent
     * (nothing waits for its acknowledgement, wedge or trim), and reported as left in the next view, as {@link
     * Group#finish} promises. Until 2026-12-04 that view listed it as failed.
     */
    @Test
    void aMemberGoneAfterAnnouncingItsGoingIsReportedAsLeft()
    {
        final Table t = new Table(4, 0);
        t.suspect(1);
        t.leaving[2] = true;
        t.suspect(2);
        t.finished[3] = true;
        t.suspect(3);
        final ChangeList list = new ChangeList(MembershipColumns.MAX_CHANGES);
        assertTrue(ViewChangeRules.propose(t, list, View.initial(List.of(0, 1, 2, 3)), List.of(), false));
        assertEquals(List.of(1, 2, 3), list.ids(ChangeList.FAILED), "the protocol removes all three as failed");
        assertTrue(list.lists(ChangeList.FAILED, 3) && list.mentions(3));
        assertEquals(List.of(), list.ids(ChangeList.LEFT));
        final View next = list.nextView(View.initial(List.of(0, 1, 2, 3)));
        assertEquals(List.of(0), next.members());
        assertEquals(List.of(1), next.failed());
        assertEquals(List.of(2, 3), next.left());
        assertEquals("failed [1], left [], joined [], gone after a leave or finish [2, 3]", list.toString());
    }

    /**
     * A member that announced a leave, or finished its run, and then went (crashed, or closed after a finish the
     * others never joined) is removed as failed by the other two of three: it counts on neither side. Counted
     * against (1 of 2 voters), it held their view change, and so their group, for ever.
     */
    @Test
    void aDepartingMemberThatFailsIsRemovedByTheOthers()
    {
        for (final boolean leaving : new boolean[] {true, false})
        {
            final Table t = new Table(3, 0);
            (leaving ? t.leaving : t.finished)[2] = true;
            t.suspect(2);
            final ChangeList list = ChangeList.of(ChangeList.encode(ChangeList.FAILED, 2));
            t.acked(1, list);
            t.wedged[1] = true;
            assertTrue(ViewChangeRules.mayCommit(t, list), leaving ? "a leaver that crashed" : "a lone finisher");
            t.suspect(1);
            assertFalse(ViewChangeRules.mayCommit(t, ChangeList.of(ChangeList.encode(ChangeList.FAILED, 2),
                ChangeList.encode(ChangeList.FAILED, 1))), "removing 1 of the 2 voters as failed");
        }
    }

    /**
     * Issue 13, item 1: the cleanup leader adopts a trim published in any row, the row of a failed former cleanup
     * leader included, rather than compute a different one from its own received counts.
     */
    @Test
    void aPublishedTrimIsAdoptedFromAFailedRowBeforeAFreshOneIsComputed()
    {
        final Table t = new Table(3, 1);
        t.received(0, 10, 10);
        t.received(1, 12, 9);
        t.received(2, 11, 12);
        t.suspect(0);
        final int[] participants = {0, 1, 2};
        assertArrayEquals(new long[] {11, 9}, ViewChangeRules.freshTrim(t, SG, participants, 2),
            "min over the trusted participants");
        assertNull(ViewChangeRules.publishedTrim(t, SG, 2));
        t.trim(0, 10, 9);
        assertArrayEquals(new long[] {10, 9}, ViewChangeRules.publishedTrim(t, SG, 2), "the failed leader's trim");
        t.trim(1, 10, 9);
        assertArrayEquals(new long[] {10, 9}, ViewChangeRules.publishedTrim(t, SG, 2), "its own echo first");
    }

    @Test
    void theCleanupLeaderWaitsForWedgedTrustedParticipantsThatSuspectTheRanksBelowIt()
    {
        final Table t = new Table(3, 1);
        t.suspect(0);
        final int[] participants = {0, 1, 2};
        assertFalse(ViewChangeRules.cleanupLeaderReady(t, participants), "2 has not wedged");
        t.wedged[2] = true;
        assertFalse(ViewChangeRules.cleanupLeaderReady(t, participants), "2 still trusts 0");
        t.suspectedIn[2][0] = true;
        assertTrue(ViewChangeRules.cleanupLeaderReady(t, participants));
    }

    /** A trim is delivered only once every trusted participant echoed exactly it; suspected ones are not awaited. */
    @Test
    void aTrimIsDeliveredOnlyOnceEveryTrustedParticipantEchoedIt()
    {
        final Table t = new Table(3, 0);
        final int[] participants = {0, 1, 2};
        final long[] trim = {5, 6};
        t.trim(0, 5, 6);
        assertFalse(ViewChangeRules.echoedByAll(t, SG, participants, trim));
        t.trim(1, 5, 6);
        t.trim(2, 5, 7);
        assertFalse(ViewChangeRules.echoedByAll(t, SG, participants, trim), "2 echoed another trim");
        t.suspect(2);
        assertTrue(ViewChangeRules.echoedByAll(t, SG, participants, trim));
    }

    @Test
    void theNextViewNeedsEveryTrustedMemberDoneExceptThoseRemoved()
    {
        final Table t = new Table(3, 0);
        final ChangeList committed = ChangeList.of(ChangeList.encode(ChangeList.FAILED, 2));
        assertFalse(ViewChangeRules.allDone(t, committed));
        t.done[1] = true;
        assertTrue(ViewChangeRules.allDone(t, committed), "2 is removed, 0 is this member");
    }

    /** A table of n members seen from rank {@code me}; member ids equal ranks. */
    private static final class Table implements MembershipTable
    {
        final int n;
        final int me;
        final boolean[][] suspectedIn;
        final boolean[] leaving;
        final boolean[] finished;
        final boolean[] done;
        final boolean[] wedged;
        final int[] numChanges;
        final int[] numAcked;
        final int[] numCommitted;
        final long[][] changes;
        final Map<Integer, long[]> trims = new HashMap<>();
        final Map<Integer, long[]> received = new HashMap<>();

        Table(final int n, final int me)
        {
            this.n = n;
            this.me = me;
            suspectedIn = new boolean[n][n];
            leaving = new boolean[n];
            finished = new boolean[n];
            done = new boolean[n];
            wedged = new boolean[n];
            numChanges = new int[n];
            numAcked = new int[n];
            numCommitted = new int[n];
            changes = new long[n][MembershipColumns.MAX_CHANGES];
        }

        void suspect(final int rank)
        {
            suspectedIn[me][rank] = true;
        }

        void proposal(final int rank, final int k)
        {
            for (int i = 0; i < k; i++)
            {
                changes[rank][i] = ChangeList.encode(ChangeList.JOINED, 100 + i);
            }
            numChanges[rank] = k;
            numAcked[rank] = k;
        }

        void acked(final int rank, final ChangeList list)
        {
            for (int i = 0; i < list.length(); i++)
            {
                changes[rank][i] = list.get(i);
            }
            numChanges[rank] = list.length();
            numAcked[rank] = list.length();
        }

        void committedList(final int rank, final long... list)
        {
            acked(rank, ChangeList.of(list));
            numCommitted[rank] = list.length;
        }

        void trim(final int rank, final long... trim)
        {
            trims.put(rank, trim);
        }

        void received(final int rank, final long... counts)
        {
            received.put(rank, counts);
        }

        @Override
        public int rows()
        {
            return n;
        }

        @Override
        public int me()
        {
            return me;
        }

        @Override
        public int idAt(final int rank)
        {
            return rank;
        }

        @Override
        public boolean suspects(final int rank)
        {
            return rank != me && suspectedIn[me][rank];
        }

        @Override
        public boolean suspectedIn(final int row, final int rank)
        {
            return suspectedIn[row][rank];
        }

        @Override
        public boolean leaving(final int rank)
        {
            return leaving[rank];
        }

        @Override
        public boolean abstains(final int rank)
        {
            return leaving[rank] || finished[rank];
        }

        @Override
        public boolean departing(final int rank)
        {
            return abstains(rank) || done[rank];
        }

        @Override
        public boolean wedged(final int rank)
        {
            return wedged[rank];
        }

        @Override
        public boolean done(final int rank)
        {
            return done[rank];
        }

        @Override
        public int numChanges(final int rank)
        {
            return numChanges[rank];
        }

        @Override
        public int numAcked(final int rank)
        {
            return numAcked[rank];
        }

        @Override
        public int numCommitted(final int rank)
        {
            return numCommitted[rank];
        }

        @Override
        public long change(final int rank, final int i)
        {
            return changes[rank][i];
        }

        @Override
        public boolean trimReady(final int rank, final String subgroup)
        {
            return trims.containsKey(rank);
        }

        @Override
        public long trim(final int rank, final String subgroup, final int sender)
        {
            return trims.get(rank)[sender];
        }

        @Override
        public long received(final int rank, final String subgroup, final int sender)
        {
            return received.get(rank)[sender];
        }
    }
}

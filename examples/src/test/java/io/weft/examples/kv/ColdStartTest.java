package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cold start's decisions, fed what one member delivers. Three members' logs: member 0 at 70 holding 1..70, member
 * 1 at 80 holding 61..80 (a snapshot at 60), member 2 at 40 holding 1..40.
 */
@Timeout(10)
class ColdStartTest
{
    private static final List<Integer> ALL = List.of(0, 1, 2);
    private static final List<Integer> SURVIVORS = List.of(0, 1);

    /** What a {@link ColdStart} asked of its member, in order. */
    private static final class Asked implements ColdStart.Actions
    {
        final List<String> done = new ArrayList<>();

        @Override
        public void catchUp(final long from, final long to, final long after)
        {
            done.add("catch-up " + from + ".." + to + (after >= 0 ? " after " + after : ""));
        }

        @Override
        public void recovered()
        {
            done.add("recovered");
        }

        @Override
        public void serve()
        {
            done.add("serve");
        }

        @Override
        public void stop(final String reason)
        {
            done.add("stop: " + reason);
        }
    }

    private static void reportAll(final ColdStart c, final long applied)
    {
        c.onReport(0, 0, 70, 1, 0, ALL, applied);
        c.onReport(1, 0, 80, 61, 0, ALL, applied);
        c.onReport(2, 0, 40, 1, 0, ALL, applied);
    }

    /** Member 0's and member 1's reports in view {@code view} of {@code members}, delivered at member 0 (at 70). */
    private static void reportZeroAndOne(final ColdStart c, final long view, final List<Integer> members)
    {
        c.onReport(0, view, 70, 1, view, members, 70);
        c.onReport(1, view, 80, 61, view, members, 70);
    }

    @Test
    void everyPositionIsSentByTheLowestIdHolderAndAllServeOnceAllRecovered()
    {
        final Asked at0 = new Asked();
        final ColdStart c0 = new ColdStart(0, ALL, at0);
        reportAll(c0, 70);
        assertEquals(List.of("catch-up 41..70"), at0.done);
        c0.onApplied(80); // member 1's 71..80 applied
        c0.onRecovered(1, ALL);
        c0.onRecovered(0, ALL);
        assertEquals(List.of("catch-up 41..70", "recovered"), at0.done, "member 2 not yet recovered");
        c0.onRecovered(2, ALL);
        assertEquals(List.of("catch-up 41..70", "recovered", "serve"), at0.done);
        assertFalse(c0.running());
    }

    /**
     * Member 2 fails after its report, before its RECOVERED: the survivors, both at the target, report in view 1 and
     * serve once both RECOVERED are delivered (there, before the view change).
     */
    @Test
    void aMemberThatFailsAfterItsReportLeavesTheSurvivorsToServe()
    {
        final Asked at1 = new Asked();
        final ColdStart c1 = new ColdStart(1, ALL, at1);
        reportAll(c1, 80);
        assertEquals(List.of("catch-up 71..80 after 70", "recovered"), at1.done);
        c1.onRecovered(0, ALL);
        c1.onRecovered(1, ALL);
        assertTrue(c1.running(), "waits for member 2");
        c1.onReport(1, 1, 80, 61, 1, SURVIVORS, 80);
        assertTrue(c1.running(), "waits for member 0's report in view 1");
        c1.onReport(0, 1, 80, 1, 1, SURVIVORS, 80);
        assertEquals(List.of("catch-up 71..80 after 70", "recovered", "serve"), at1.done);
    }

    /**
     * Member 1, the only holder of 71..80, fails before its catch-up is delivered: in view 1 nobody holds 71, and the
     * start stops naming it rather than serve without writes that may have been acknowledged. (Member 2 applied
     * 41..70 before the view change.)
     */
    @Test
    void aHolderThatFailsBeforeItsCatchUpStopsTheStartNamingTheWrite()
    {
        final List<String> done = inViewOne(0, 70, List.of(0, 2), new long[] {0, 70, 1}, new long[] {2, 70, 1});
        assertEquals(2, done.size(), done.toString());
        assertTrue(done.get(1).startsWith("stop: no log of the view's members [0, 2] holds write 71"), done.get(1));
    }

    /**
     * Member 0 fails before its catch-up is delivered. Where member 2 had 41..65 delivered from it, member 1's log
     * holds the rest (61..80) and sends 66..70 in view 1 (71..80 it sent in view 0: they come anyway). Where member 2
     * had none of it, 41..60 were member 0's alone: member 2 cannot be caught up and stops, naming them, to join
     * again; member 1, at the target, serves without it.
     */
    @Test
    void anotherHolderSendsWhatAFailedMemberWasToSend()
    {
        assertEquals(List.of("catch-up 71..80 after 70", "recovered", "catch-up 66..70"),
            inViewOne(1, 80, List.of(1, 2), new long[] {1, 80, 61}, new long[] {2, 65, 1}));
        final long[][] member2Lacks41To60 = {{1, 80, 61}, {2, 40, 1}};
        assertEquals(List.of("catch-up 71..80 after 70", "recovered"),
            inViewOne(1, 80, List.of(1, 2), member2Lacks41To60));
        final List<String> at2 = inViewOne(2, 40, List.of(1, 2), member2Lacks41To60);
        assertEquals(1, at2.size(), at2.toString());
        assertTrue(at2.getFirst().startsWith("stop: member 2's log ends at write 40, and no log of the view's " +
            "members [1, 2] holds writes 41..60"), at2.getFirst());
    }

    /**
     * Members 0 and 1 compacted while member 2 was away (each log a snapshot at 1000, then 1001..1100); member 2's log
     * ends at 50. No log holds 51..1000 as batches: member 2 stops, naming them, to join again; members 0 and 1, at
     * the target, serve once both said RECOVERED, without waiting for member 2.
     */
    @Test
    void aMemberBehindEveryCompactedLogStopsAndTheOthersServeWithoutIt()
    {
        final Asked at0 = new Asked();
        final ColdStart c0 = new ColdStart(0, ALL, at0);
        final Asked at2 = new Asked();
        final ColdStart c2 = new ColdStart(2, ALL, at2);
        for (final ColdStart c : List.of(c0, c2))
        {
            c.onReport(0, 0, 1100, 1001, 0, ALL, c == c0 ? 1100 : 50);
            c.onReport(1, 0, 1100, 1001, 0, ALL, c == c0 ? 1100 : 50);
            c.onReport(2, 0, 50, 1, 0, ALL, c == c0 ? 1100 : 50);
        }
        assertEquals(1, at2.done.size(), at2.done.toString());
        assertTrue(at2.done.getFirst().startsWith("stop: member 2's log ends at write 50, and no log of the view's " +
            "members [0, 1, 2] holds writes 51..1000 (the others' logs were compacted past its end"), at2.done.get(0));
        assertTrue(c2.stopped());
        assertEquals(List.of("recovered"), at0.done, "nothing to send again");
        c0.onRecovered(0, ALL);
        c0.onRecovered(1, ALL);
        assertEquals(List.of("recovered", "serve"), at0.done);
        assertFalse(c0.stopped());
    }

    /** A member is stale from the first position it lacks that no log holds, to the end of that run. */
    @Test
    void theStaleMembersAreThoseThatLackAPositionNoLogHolds()
    {
        final java.util.Map<Integer, long[]> reports = java.util.Map.of(0, new long[] {100, 91}, 1, new long[] {60, 1},
            2, new long[] {20, 1}, 3, new long[] {95, 91});
        final java.util.Map<Integer, long[]> stale = CatchUpPlan.stale(reports, List.of(3, 2, 1, 0), 100);
        assertEquals(List.of(1, 2), List.copyOf(stale.keySet()), "61..90 held by nobody; members 0 and 3 hold 91..");
        assertEquals("61..90", stale.get(1)[0] + ".." + stale.get(1)[1]);
        assertEquals("61..90", stale.get(2)[0] + ".." + stale.get(2)[1], "21..60 member 1 holds");
    }

    /**
     * What member {@code me} (at {@code applied}) is asked to do: every member's report in view 0, then the
     * {@code survivors}' reports in view 1, each {@code {member, position, first batch}}.
     */
    private static List<String> inViewOne(final int me, final long applied, final List<Integer> survivors,
        final long[]... reports)
    {
        final Asked asked = new Asked();
        final ColdStart c = new ColdStart(me, ALL, asked);
        reportAll(c, applied);
        for (final long[] r : reports)
        {
            c.onReport((int)r[0], 1, r[1], r[2], 1, survivors, applied);
        }
        return asked.done;
    }

    /** What a member sent in an earlier round is not sent again; only the positions around it are. */
    @Test
    void aStretchLessWhatWasSentKeepsOnlyThePositionsAroundIt()
    {
        final List<long[]> left = CatchUpPlan.minus(List.of(new long[] {10, 100}, new long[] {200, 300}),
            List.of(new long[] {20, 30}, new long[] {90, 250}));
        assertEquals(List.of("10..19", "31..89", "251..300"), left.stream().map(s -> s[0] + ".." + s[1]).toList());
    }

    /** Member 2 fails before its report is delivered: its log may hold acknowledged writes, so the start stops. */
    @Test
    void aMemberThatFailsBeforeItsReportStopsTheStartNamingIt()
    {
        final Asked at0 = new Asked();
        final ColdStart c0 = new ColdStart(0, ALL, at0);
        reportZeroAndOne(c0, 0, ALL);
        reportZeroAndOne(c0, 1, SURVIVORS);
        assertEquals(1, at0.done.size(), at0.done.toString());
        assertTrue(at0.done.get(0).startsWith("stop: member(s) [2] failed during the cold start before their " +
            "logs' positions were known"), at0.done.get(0));
        assertFalse(c0.running());
    }

    /**
     * Member 3 joined in view 1 (refused, or not yet removed): it takes no part, and the others plan and serve
     * without its report or RECOVERED.
     */
    @Test
    void aJoinerInTheViewIsNotWaitedFor()
    {
        final Asked at0 = new Asked();
        final ColdStart c0 = new ColdStart(0, ALL, at0);
        final List<Integer> withJoiner = List.of(0, 1, 2, 3);
        c0.onReport(0, 1, 70, 1, 1, withJoiner, 70);
        c0.onReport(1, 1, 80, 61, 1, withJoiner, 70);
        c0.onReport(2, 1, 40, 1, 1, withJoiner, 70);
        assertEquals(List.of("catch-up 41..70"), at0.done);
        c0.onApplied(80);
        for (final int m : ALL)
        {
            c0.onRecovered(m, withJoiner);
        }
        assertEquals(List.of("catch-up 41..70", "recovered", "serve"), at0.done);
    }

    /** A report of view 0 delivered in view 1 (sent again by the group) counts toward the target, not the round. */
    @Test
    void aReportOfAnEarlierRoundCountsForTheTargetOnly()
    {
        final Asked at0 = new Asked();
        final ColdStart c0 = new ColdStart(0, ALL, at0);
        reportZeroAndOne(c0, 0, ALL);
        c0.onReport(2, 0, 40, 1, 1, SURVIVORS, 70); // member 2's, carried into view 1: it failed after sending it
        assertTrue(at0.done.isEmpty(), at0.done.toString());
        reportZeroAndOne(c0, 1, SURVIVORS);
        assertEquals(List.of(), at0.done, "member 1 sends 71..80; member 0 has nothing to send");
        c0.onApplied(80);
        assertEquals(List.of("recovered"), at0.done);
    }
}

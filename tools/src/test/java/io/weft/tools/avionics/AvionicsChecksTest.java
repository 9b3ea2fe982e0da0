package io.weft.tools.avionics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The demo's checks find each kind of violation they exist for, and pass what is right. */
@Timeout(10)
class AvionicsChecksTest
{
    private static final List<long[]> RECORDER = AvionicsChecks.plans(List.of("PLAN 0 0 in view 0", "noise",
        "PLAN 1 1 in view 0", "PLAN 2 2 in view 1", "PLAN 3 3 in view 2"));

    @Test
    void theRecorderMustApplyEveryChangeOnceInOrder()
    {
        assertNull(AvionicsChecks.recorderSawEveryChange(RECORDER, 4));
        assertNotNull(AvionicsChecks.recorderSawEveryChange(RECORDER, 5));
        assertNotNull(AvionicsChecks.recorderSawEveryChange(AvionicsChecks.plans(List.of("PLAN 0 1", "PLAN 1 0")), 2));
    }

    @Test
    void aDisplayMustApplyAGapFreeRunOfTheSameSequence()
    {
        assertNull(AvionicsChecks.displayAgrees("d", AvionicsChecks.plans(List.of("PLAN 1 1", "PLAN 2 2")), RECORDER,
            false));
        assertNull(AvionicsChecks.displayAgrees("d", AvionicsChecks.plans(List.of("PLAN 2 2", "PLAN 3 3")), RECORDER,
            true));
        assertNotNull(AvionicsChecks.displayAgrees("d", AvionicsChecks.plans(List.of("PLAN 1 1", "PLAN 2 2")),
            RECORDER, true), "ended before the last change");
        assertNotNull(AvionicsChecks.displayAgrees("d", AvionicsChecks.plans(List.of("PLAN 1 1", "PLAN 3 3")),
            RECORDER, true), "a gap");
        assertNotNull(AvionicsChecks.displayAgrees("d", AvionicsChecks.plans(List.of("PLAN 2 3", "PLAN 3 2")),
            RECORDER, false), "another order");
        assertNotNull(AvionicsChecks.displayAgrees("d", AvionicsChecks.plans(List.of("PLAN 2 2", "PLAN 2 2")),
            RECORDER, false), "twice");
    }

    @Test
    void aJoinerMustReceiveTheWholeHistoryOfEveryEngine()
    {
        assertNull(AvionicsChecks.engineHistory("d", List.of("x", "ENGINE-HISTORY 16,16,16,16"), 16));
        assertNotNull(AvionicsChecks.engineHistory("d", List.of("ENGINE-HISTORY 16,15,16,16"), 16));
        assertNotNull(AvionicsChecks.engineHistory("d", List.of("ENGINE-HISTORY 16,16,16"), 16));
        assertNotNull(AvionicsChecks.engineHistory("d", List.of("no history line"), 16));
    }

    @Test
    void theLogMustHoldWhatTheRecorderRead()
    {
        final List<String> log = List.of("0 publisher=4 text=flight-plan #0 SEA (initial plan)",
            "1 publisher=4 text=engine 0 #0 N1 91.0% EGT 610C", "2 publisher=4 text=position #0 47.45 -122.31 500ft",
            "3 publisher=4 text=position #2 47.45 -122.31 500ft", "4 publisher=4 text=flight-plan #1 OLM (waypoint)");
        assertNull(AvionicsChecks.logHoldsEverything(log, 2, 1, 2));
        assertNotNull(AvionicsChecks.logHoldsEverything(log, 3, 1, 2));
        assertNotNull(AvionicsChecks.logHoldsEverything(log, 2, 2, 2));
        assertNotNull(AvionicsChecks.logHoldsEverything(List.of(log.get(4), log.get(0)), 2, 0, 0), "out of order");
        final List<Long> missing = new ArrayList<>();
        assertNull(AvionicsChecks.positionsInOrder(log, 4, missing));
        assertEquals(List.of(1L, 3L), missing);
        assertNotNull(AvionicsChecks.positionsInOrder(List.of(log.get(3), log.get(2)), 4, new ArrayList<>()));
    }
}

package io.weft.membership;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The watch that wakes an idle membership thread sees every membership change pushed into another member's row, once
 * each, and nothing else: not this member's own row, not the heartbeats (three real tables over tcp in one JVM).
 */
@Timeout(60)
class PeerChangeWatchTest
{
    private static final SstLayout LAYOUT = MembershipColumns.declare(3, Map.of()).build();
    private static final MembershipColumns COLUMNS = new MembershipColumns(LAYOUT, List.of());

    private interface ThreeTables
    {
        void run(Sst s0, Sst s1, Sst s2);
    }

    @Test
    void eachChangeInAnotherRowIsSeenOnceAndHeartbeatsOrOwnChangesAreNot() throws Exception
    {
        withThree((s0, s1, s2) ->
        {
            final PeerChangeWatch watch = new PeerChangeWatch(s0, COLUMNS, () -> 0L); // passes that fire nothing
            assertFalse(watch.getAsBoolean(), "nothing changed since the watch began");

            seenOnce(watch, s0, s1, s -> s.setBool(COLUMNS.leaving, true), COLUMNS.leaving, "a leave");
            seenOnce(watch, s0, s2, s -> s.setBool(COLUMNS.suspected, 1, true), COLUMNS.suspected, "a suspicion");
            seenOnce(watch, s0, s1, s -> s.setBool(COLUMNS.wedged, true), COLUMNS.wedged, "a wedge");
            seenOnce(watch, s0, s2, s -> s.setCounter(COLUMNS.numChanges, 2), COLUMNS.numChanges, "a proposal");
            seenOnce(watch, s0, s2, s -> s.setCounter(COLUMNS.numCommitted, 2), COLUMNS.numCommitted, "a commit");
            seenOnce(watch, s0, s1, s -> s.setBool(COLUMNS.finished, true), COLUMNS.finished, "a finish");

            // a heartbeat lands, and this member wedges: the watch stays quiet
            land(s1, s -> s.setCounter(COLUMNS.heartbeat, 41), COLUMNS.heartbeat, s0);
            s0.setBool(COLUMNS.wedged, true);
            assertFalse(watch.getAsBoolean(), "a heartbeat or this member's own row is no membership change");
        });
    }

    @Test
    void whilePassesFireItHashesEveryStrideAndAfterAPassThatFiredNothing() throws Exception
    {
        withThree((s0, s1, s2) ->
        {
            final long[] fired = {0};
            final PeerChangeWatch watch = new PeerChangeWatch(s0, COLUMNS, () -> fired[0]);
            land(s1, s -> s.setBool(COLUMNS.leaving, true), COLUMNS.leaving, s0);
            int calls = 0;
            boolean seen = false;
            while (!seen && calls < 10 * PeerChangeWatch.BUSY_STRIDE)
            {
                fired[0]++; // every pass fires a trigger
                calls++;
                seen = watch.getAsBoolean();
            }
            assertEquals(PeerChangeWatch.BUSY_STRIDE, calls, "calls until the leave is seen while every pass fires");

            land(s2, s -> s.setBool(COLUMNS.wedged, true), COLUMNS.wedged, s0);
            fired[0]++;
            assertFalse(watch.getAsBoolean(), "a call after a pass that fired does not hash");
            assertTrue(watch.getAsBoolean(), "a call after a pass that fired nothing sees the wedge");
        });
    }

    /** Opens three tables over tcp in this JVM, runs {@code test} and closes them, also on failure. */
    private static void withThree(final ThreeTables test) throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.TCP, 3);
        try (Members ignored = new Members(config))
        {
            final List<Sst> ssts = Async.openAll(config, member -> Sst.open(member, LAYOUT));
            try
            {
                test.run(ssts.get(0), ssts.get(1), ssts.get(2));
            }
            finally
            {
                ssts.forEach(Sst::close);
            }
        }
    }

    /** {@code peer} writes {@code change}, pushes {@code column}, and it is read at {@code at}. */
    private static void land(final Sst peer, final Consumer<Sst> change, final Column column, final Sst at)
    {
        change.accept(peer);
        peer.push(column, peer.others());
        final int r = peer.myRank();
        Await.until(() -> IntStream.range(0, column.count()).allMatch(i -> at.counter(r, column, i) ==
            peer.counter(r, column, i)), () -> column.name() + " of member " + r + " at member " + at.myRank());
    }

    /**
     * {@code peer} writes {@code change} and pushes {@code column}: once it landed at member 0, the watch there is true
     * at its next call, then false.
     */
    private static void seenOnce(final PeerChangeWatch watch, final Sst at, final Sst peer,
        final Consumer<Sst> change, final Column column, final String what)
    {
        land(peer, change, column, at);
        assertTrue(watch.getAsBoolean(), what + " of member " + peer.myRank() + " seen at member 0 once it landed");
        assertFalse(watch.getAsBoolean(), what + " is seen once");
    }
}

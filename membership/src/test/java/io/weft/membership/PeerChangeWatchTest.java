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

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The watch that wakes an idle membership thread sees every membership change pushed into another member's row, once
 * each, and nothing else: not this member's own row, not the heartbeats (three real tables over tcp in one JVM).
 */
@Timeout(60)
class PeerChangeWatchTest
{
    private static final SstLayout LAYOUT = MembershipColumns.declare(3, Map.of()).build();
    private static final MembershipColumns COLUMNS = new MembershipColumns(LAYOUT, List.of());

    @Test
    void eachChangeInAnotherRowIsSeenOnceAndHeartbeatsOrOwnChangesAreNot() throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.TCP, 3);
        try (Members ignored = new Members(config))
        {
            final List<Sst> ssts = Async.openAll(config, member -> Sst.open(member, LAYOUT));
            try
            {
                final Sst s0 = ssts.get(0);
                final PeerChangeWatch watch = new PeerChangeWatch(s0, COLUMNS);
                assertFalse(watch.getAsBoolean(), "nothing changed since the watch began");

                seenOnce(watch, ssts.get(1), s -> s.setBool(COLUMNS.leaving, true), COLUMNS.leaving, "a leave");
                seenOnce(watch, ssts.get(2), s -> s.setBool(COLUMNS.suspected, 1, true), COLUMNS.suspected,
                    "a suspicion");
                seenOnce(watch, ssts.get(1), s -> s.setBool(COLUMNS.wedged, true), COLUMNS.wedged, "a wedge");
                seenOnce(watch, ssts.get(2), s -> s.setCounter(COLUMNS.numChanges, 2), COLUMNS.numChanges,
                    "a proposal");
                seenOnce(watch, ssts.get(2), s -> s.setCounter(COLUMNS.numCommitted, 2), COLUMNS.numCommitted,
                    "a commit");
                seenOnce(watch, ssts.get(1), s -> s.setBool(COLUMNS.finished, true), COLUMNS.finished,
                    "a finish");

                // a heartbeat lands, and this member wedges: the watch stays quiet
                final Sst s1 = ssts.get(1);
                s1.setCounter(COLUMNS.heartbeat, 41);
                s1.push(COLUMNS.heartbeat, s1.others());
                Await.until(() -> s0.counter(1, COLUMNS.heartbeat) == 41, () -> "member 1's heartbeat at member 0");
                s0.setBool(COLUMNS.wedged, true);
                assertFalse(watch.getAsBoolean(), "a heartbeat or this member's own row is no membership change");
            }
            finally
            {
                ssts.forEach(Sst::close);
            }
        }
    }

    /** {@code peer} writes {@code change} and pushes {@code column}: the watch at member 0 is true once, then false. */
    private static void seenOnce(final PeerChangeWatch watch, final Sst peer, final Consumer<Sst> change,
        final Column column, final String what)
    {
        change.accept(peer);
        peer.push(column, peer.others());
        Await.until(watch::getAsBoolean, () -> what + " of member " + peer.myRank() + " seen at member 0");
        assertFalse(watch.getAsBoolean(), what + " is seen once");
    }
}

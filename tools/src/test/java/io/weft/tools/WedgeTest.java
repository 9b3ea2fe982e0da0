package io.weft.tools;

import io.weft.config.TransportKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13, item 3: the wedge is enforced by the multicast layer. Three member processes whose delivery callbacks
 * try a send that waits (30 s): it is refused at once on the predicate thread, with an error that says why. Before,
 * such a send was accepted; during a view change it waited for the next view, which could not come while the
 * predicate thread was stuck in it, so the view change stalled until the wedge gave up on the thread after 10 s.
 * After a kill -9 the survivors install the next view within the bound the crash tests use, and agree.
 */
@Timeout(180)
class WedgeTest
{
    private static final Duration NEW_VIEW_BOUND = Duration.ofSeconds(6);

    @TempDir
    Path dir;

    @Test
    void aDeliveryCallbackCannotHoldUpTheViewChangeWithASendThatWaits() throws Exception
    {
        try (VsRun run = new VsRun(TransportKind.TCP, 3, List.of(), dir))
        {
            run.startReady(3, "--callback-send");
            for (int id = 0; id < 3; id++)
            {
                run.process(id).awaitOutput("member " + id + ": CALLBACK-SEND ", Duration.ofSeconds(30));
                final String out = run.process(id).output();
                assertTrue(out.contains("member " + id + ": CALLBACK-SEND refused: subgroup all: a send that waits " +
                    "(timeout PT30S) is refused on the predicate thread"), out);
                assertFalse(out.contains("CALLBACK-SEND accepted"), out);
            }
            final long killedAt = run.kill(2);
            for (int id = 0; id < 2; id++)
            {
                final Map.Entry<Long, String> view = run.awaitView(id, 1, Duration.ofSeconds(30));
                assertEquals("[0, 1]", view.getValue());
                final long took = view.getKey() - killedAt;
                assertTrue(took <= NEW_VIEW_BOUND.toMillis(), "view 1 took " + took + " ms at member " + id);
            }
            run.endAndCheck();
        }
    }

    /**
     * Issue 13, item 4: a member whose membership thread is stuck in a trim delivery (a delivery callback that does
     * not return, 60 s here) used to keep heartbeating from its detector thread while the others waited for it to
     * finish the view change. It now stops heartbeating after the failure timeout, and the others remove it.
     */
    @Test
    void aMemberStuckInATrimDeliveryIsRemovedInsteadOfHoldingUpTheGroup() throws Exception
    {
        try (VsRun run = stalledInTheTrimOfAKill(5, 3, 4))
        {
            for (int id = 0; id < 3; id++)
            {
                final String members = run.awaitView(id, 2, Duration.ofSeconds(40)).getValue();
                assertEquals("[0, 1, 2]", members, "member " + id + " after removing the stuck member");
            }
            assertTrue(run.process(3).output().contains("stops heartbeating"), run.process(3).output());
            run.kill(3);
            run.endAndCheck();
        }
    }

    /**
     * A member done with a view change whose one other survivor then goes silent is in a minority: it stops and says
     * so, where it waited forever for a view it could neither install nor give up (its minority report was dropped as
     * one about a view being retired). Three members: 2 is killed; 1 is stuck in the trim that 0, the leader, has
     * delivered already, and is then frozen (a long GC pause does the same).
     */
    @Test
    void aMemberDoneWithAViewChangeThatThenLosesItsMajorityStops() throws Exception
    {
        try (VsRun run = stalledInTheTrimOfAKill(3, 1, 2))
        {
            run.process(0).awaitOutput("member 0: subgroup all trimmed", Duration.ofSeconds(30));
            run.process(1).signal("STOP");
            run.process(0).awaitOutput("member 0: MINORITY: member 0 is in a minority partition: it suspects members " +
                "[1, 2]", Duration.ofSeconds(30));
            assertEquals(VsMember.EXIT_STOPPED, run.awaitDeath(0, Duration.ofSeconds(30)));
            run.kill(1);
        }
    }

    /**
     * A run of {@code members} members, where member {@code stalled} is stuck (60 s) in the trim of the view change
     * that killing {@code killed} starts.
     */
    private VsRun stalledInTheTrimOfAKill(final int members, final int stalled, final int killed) throws Exception
    {
        final VsRun run = new VsRun(TransportKind.TCP, members, List.of(), dir);
        try
        {
            run.startReady(members);
            run.command(stalled, "stall-trim 60000");
            run.process(stalled).awaitOutput("member " + stalled + ": STALL armed", Duration.ofSeconds(10));
            Thread.sleep(500); // its slow deliveries build a backlog
            run.kill(killed);
            run.process(stalled).awaitOutput("member " + stalled + ": STALL of the membership thread",
                Duration.ofSeconds(30));
            return run;
        }
        catch (final Exception | Error ex)
        {
            run.close(); // its processes go with it
            throw ex;
        }
    }

    /**
     * In invoker mode a view's trim waits for the owner's next invoke(). An owner that stops invoking (60 s here)
     * during a view change takes its member out after the failure timeout, instead of holding up the group.
     */
    @Test
    void aMemberWhoseInvokerOwnerStopsInvokingIsRemovedInsteadOfHoldingUpTheGroup() throws Exception
    {
        try (VsRun run = new VsRun(TransportKind.TCP, 5, List.of(), dir))
        {
            run.startReady(5, "--invoker");
            run.command(3, "stall-owner 60000");
            run.process(3).awaitOutput("member 3: STALL of the invoker's owner", Duration.ofSeconds(10));
            run.kill(4);
            for (int id = 0; id < 3; id++)
            {
                run.awaitMembers(id, "[0, 1, 2]", Duration.ofSeconds(40));
            }
            run.process(3).awaitOutput("has not called invoke() within", Duration.ofSeconds(10));
            run.kill(3);
            run.endAndCheck();
        }
    }
}

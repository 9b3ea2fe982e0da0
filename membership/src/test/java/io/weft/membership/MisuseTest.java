package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.MembershipConfig;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.smc.Claim;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * API misuse gets a clear exception and disturbs nothing: the next correct send of the same thread is delivered
 * everywhere.
 */
@Timeout(60)
class MisuseTest
{
    @Test
    void oversizedMessagesNonSendersAndClosedGroupsAreRefused() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2)
            .subgroups(List.of(new SubgroupConfig("g", List.of(), List.of(0), 8, 100, DeliveryMode.ORDERED)))
            .membership(new MembershipConfig(List.of(), "misuse-test-secret-16", ViewChangeSends.WAIT,
                Duration.ofSeconds(30), true))
            .smc(SmcConfig.SPINDLE).build();
        try (Members ignored = new Members(config))
        {
            final List<String> delivered1 = new CopyOnWriteArrayList<>();
            final CompletableFuture<Group> m1 = io.weft.testkit.Async.open(() -> Group.builder(config.forMember(1))
                .onDelivery("g", m -> delivered1.add(new String(m.bytes()))).open());
            final Group g0 = Group.builder(config).open();
            final Group g1 = m1.get(30, TimeUnit.SECONDS);
            try
            {
                final Subgroup s0 = g0.subgroup("g");
                final IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> s0.send(new byte[101]));
                assertTrue(big.getMessage().contains("101 bytes") && big.getMessage().contains("max-payload 100"), big.getMessage());
                final IllegalStateException notSender = assertThrows(IllegalStateException.class,
                    () -> g1.subgroup("g").send("x".getBytes()));
                assertTrue(notSender.getMessage().contains("not a sender"), notSender.getMessage());
                assertThrows(IllegalArgumentException.class, () -> g0.subgroup("nope"));
                final Claim claim = new Claim();
                assertTrue(s0.tryClaim(10, claim) >= 0);
                assertThrows(IllegalArgumentException.class, () -> claim.commit(11));
                claim.abort(); // becomes a null: never delivered, order intact
                assertThrows(IllegalStateException.class, () -> claim.commit(1));
                // a range outside the array used to fail after the slot was claimed: the claim stayed open, and every
                // later send of the thread failed with "claim is still open: commit or abort it first"
                assertThrows(IndexOutOfBoundsException.class, () -> s0.send(new byte[10], 5, 10));
                assertThrows(IndexOutOfBoundsException.class, () -> s0.send(new byte[10], -1, 2));

                assertTrue(s0.send("after misuse".getBytes()) >= 0);
                Await.until(() -> !delivered1.isEmpty(), "member 1's delivery of the message after the misuse");
                assertEquals(List.of("after misuse"), new ArrayList<>(delivered1));

                // a durability count that goes back is refused, and the frontier stays where it was; negative marks
                // (the DDS layer's announcements, no count) may go down until a count is marked
                final Subgroup s1 = g1.subgroup("g");
                s1.markPersisted(-2);
                s1.markPersisted(-7);
                s1.markPersisted(9);
                s0.markPersisted(5);
                assertEquals("subgroup g: markPersisted(4) after 5: the count is monotone (the durability frontier " +
                    "would move back); not published",
                    assertThrows(IllegalArgumentException.class, () -> s0.markPersisted(4)).getMessage());
                assertThrows(IllegalArgumentException.class, () -> s0.markPersisted(-1));
                s0.markPersisted(5);
                Await.until(() -> s1.persistedFrontier() == 5, "member 1 reads member 0's count 5 as the frontier");
                assertEquals(5, s0.persistedFrontier());
            }
            finally
            {
                g1.close();
                g0.close();
            }
            final IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> g0.subgroup("g").send("late".getBytes()));
            assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
            // each used to go on as if open: a request on the internal channel refused as "subgroup weft.runtime
            // cannot send", and a fetch that went to member 0 (closed here: unreachable; open: it refused)
            final SubgroupConfig more = SubgroupConfig.allMembers("more", 8, 64);
            assertEquals("group of member 1 is closed; subgroup more cannot be added", assertThrows(
                IllegalStateException.class, () -> g1.addSubgroup(more, "", Duration.ofSeconds(5))).getMessage());
            assertEquals("group of member 1 is closed; subgroup more cannot be removed", assertThrows(
                IllegalStateException.class, () -> g1.removeSubgroup("more", Duration.ofSeconds(5))).getMessage());
            assertEquals("group of member 1 is closed; it cannot fetch state from member 0", assertThrows(
                IllegalStateException.class, () -> g1.fetchState(0, new byte[0])).getMessage());
            assertEquals("group of member 1 is closed; subgroup g cannot be read", assertThrows( // said "send"
                IllegalStateException.class, () -> g1.subgroup("g").persistedFrontier()).getMessage());
        }
    }

    /**
     * A leave or finish called in a delivery callback is refused at once, and the member goes on. It used to block
     * the predicate thread, which alone brings what they wait for, for the whole timeout, then close the member.
     */
    @Test
    void aLeaveOrFinishInADeliveryCallbackIsRefusedAndTheMemberGoesOn() throws Exception
    {
        final WeftConfig config = InJvmGroups.oneSubgroup(TransportKind.SHM, 2, "misuse-test-secret-16").build();
        final List<String> seen = new CopyOnWriteArrayList<>();
        final List<Group> groups = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            groups.addAll(InJvmGroups.open(List.of(Group.builder(config).onDelivery("all", m -> { }),
                Group.builder(config.forMember(1)).onDelivery("all", m ->
                {
                    final String text = new String(m.bytes());
                    try
                    {
                        final Group me = groups.get(1);
                        seen.add(text + ": " + ("leave".equals(text) ? me.leave(Duration.ofSeconds(5)) :
                            "finish".equals(text) ? me.finish(Duration.ofSeconds(5)) : "delivered"));
                    }
                    catch (final IllegalStateException | InterruptedException ex)
                    {
                        seen.add(text + ": " + ex.getMessage());
                    }
                }))));
            for (final String text : List.of("leave", "finish", "after"))
            {
                assertTrue(groups.get(0).subgroup("all").send(text.getBytes(), Duration.ofSeconds(5)) >= 0, text);
            }
            Await.until(() -> seen.size() == 3, () -> "member 1 delivered all three: " + seen);
            final String refused = ": member 1: %s is refused on the predicate thread member-1-v0 (it runs the " +
                "delivery callbacks): it waits for deliveries and a view change that this thread brings; call it " +
                "from an application thread (in invoker mode, on the owner outside a callback)";
            assertEquals(List.of("leave" + refused.formatted("leave"), "finish" + refused.formatted("finish"),
                "after: delivered"), seen);
            assertEquals(List.of(0, 1), groups.get(0).view().members(), "nobody left or failed");
        }
        finally
        {
            groups.forEach(Group::close);
        }
    }

    @Test
    void aLeaveOnExitInInvokerModeOrWithoutTimeIsRefusedBeforeAnythingOpens()
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2)
            .subgroups(List.of(SubgroupConfig.allMembers("g", 8, 100))).build();
        assertEquals("leaveOnExit: the timeout must be positive, was PT0S", assertThrows(IllegalArgumentException.class,
            () -> Group.builder(config).leaveOnExit(Duration.ZERO)).getMessage());
        final IllegalStateException invoker = assertThrows(IllegalStateException.class,
            () -> Group.builder(config).leaveOnExit(Duration.ofSeconds(5)).useInvoker().open());
        assertTrue(invoker.getMessage().startsWith("member 0: leaveOnExit and useInvoker cannot be combined"),
            invoker.getMessage());
    }
}

package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Read fences through the Group API ({@link Subgroup#fence}), across a view change, and their misuse. */
@Timeout(90)
class ReadFenceTest
{
    private static WeftConfig config(final DeliveryMode mode)
    {
        return TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(new SubgroupConfig("all", List.of(), List.of(), 16, 64, mode)))
            .membership(new MembershipConfig(List.of(), null, ViewChangeSends.WAIT, Duration.ofSeconds(10))).build();
    }

    /**
     * A member that wedged (as for a view change) gives no echo, so a fence of member 0 waits; when that member goes,
     * the view change passes the fence: after member 1's message delivered at member 1 before the fence was asked,
     * and before member 0's message sent after it.
     */
    @Test
    void aFenceThatAMemberLeftUnansweredPassesInTheViewChangeInItsPlace() throws Exception
    {
        final WeftConfig config = config(DeliveryMode.ORDERED);
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<String> atOne = new CopyOnWriteArrayList<>();
        try (Members ignored = new Members(config))
        {
            final List<Group> groups = InJvmGroups.open(List.of(
                Group.builder(config.forMember(0))
                    .onDelivery("all", m -> events.add(text(m)))
                    .onFence("all", ticket -> events.add("fence " + ticket)),
                Group.builder(config.forMember(1)).onDelivery("all", m -> atOne.add(text(m))),
                Group.builder(config.forMember(2))));
            final Subgroup zero = groups.get(0).subgroup("all");
            assertEquals(1, zero.fence(Duration.ofSeconds(10)));
            InJvmGroups.await(() -> events.contains("fence 1"), "the first fence, every member answering");

            groups.get(1).subgroup("all").send("before".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10));
            InJvmGroups.await(() -> atOne.contains("before"), "member 1's delivery of its message");
            groups.get(2).engine("all").wedge(); // member 2 answers nothing from now on
            assertEquals(2, zero.fence(Duration.ofSeconds(10)));
            zero.send("after".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10));
            final long window = System.nanoTime() + 300_000_000L; // the fence must not pass without member 2
            while (System.nanoTime() < window)
            {
                assertTrue(!events.contains("fence 2"), "fence 2 passed without member 2's answer: " + events);
                Thread.sleep(5);
            }

            groups.get(2).close();
            InJvmGroups.await(() -> groups.get(0).view().id() >= 1 && groups.get(1).view().id() >= 1, "view 1");
            InJvmGroups.await(() -> events.contains("fence 2") && events.contains("after"), "fence 2 and 'after'");
            assertTrue(events.indexOf("before") < events.indexOf("fence 2") &&
                events.indexOf("fence 2") < events.indexOf("after"), "order at member 0: " + events);
            assertEquals(3, zero.fence(Duration.ofSeconds(10)), "tickets go on in the next view");
            InJvmGroups.await(() -> events.contains("fence 3"), "a fence in the next view");
            groups.get(0).close();
            groups.get(1).close();
        }
    }

    @Test
    void aFenceOnAnUnorderedSubgroupIsRefusedNamingWhy() throws Exception
    {
        final WeftConfig config = config(DeliveryMode.UNORDERED);
        try (Members ignored = new Members(config))
        {
            final List<Group> groups = InJvmGroups.open(List.of(Group.builder(config.forMember(0)),
                Group.builder(config.forMember(1)), Group.builder(config.forMember(2))));
            final IllegalStateException ex = assertThrows(IllegalStateException.class,
                () -> groups.get(0).subgroup("all").fence(Duration.ofSeconds(1)));
            assertTrue(ex.getMessage().contains("unordered") && ex.getMessage().contains("all"), ex.getMessage());
            groups.forEach(Group::close);
        }
    }

    private static String text(final io.weft.smc.Message m)
    {
        final byte[] bytes = new byte[m.length()];
        m.copyTo(bytes, 0);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

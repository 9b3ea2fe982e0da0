package io.weft.membership;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member's table and predicate-thread meters count over its views: one series each, tagged with the member, that
 * goes on across a view change. They used to be registered per view, so they started again from zero at every view
 * change and the predicate thread's were a new series per view (tagged with the view's thread name). A closed
 * group's meters leave the registry: a group opened again with it used to be handed the closed group's meters.
 */
@Timeout(60)
class MemberMetersTest
{
    private static final List<String> COUNTERS = List.of("weft.sst.writes", "weft.sst.bytes",
        "weft.predicates.passes", "weft.predicates.triggers", "weft.predicates.busy");

    @Test
    void tableAndPredicateCountersGoOnAcrossAViewChange() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64))).build();
        try (Members ignored = new Members(config))
        {
            final List<MeterRegistry> registries = new ArrayList<>();
            final List<GroupBuilder> builders = new ArrayList<>();
            final AtomicLong delivered = new AtomicLong();
            for (int i = 0; i < 3; i++)
            {
                registries.add(new SimpleMeterRegistry());
                final GroupBuilder b = Group.builder(config.forMember(i)).meterRegistry(registries.get(i));
                builders.add(i == 0 ? b.onDelivery("all", m -> delivered.incrementAndGet()) : b);
            }
            final List<Group> groups = InJvmGroups.open(builders);
            final MeterRegistry registry = registries.get(0);
            send(groups.get(0), 100);
            InJvmGroups.await(() -> delivered.get() >= 100, "100 delivered in view 0: " + delivered.get());
            final double[] before = counts(registry);
            for (int i = 0; i < COUNTERS.size(); i++)
            {
                assertTrue(before[i] > 0, COUNTERS.get(i) + " counted view 0: " + before[i]);
            }

            groups.get(2).close();
            InJvmGroups.await(() -> groups.get(0).view().id() >= 1, "view 1 at member 0");
            final double[] right = counts(registry);
            for (int i = 0; i < COUNTERS.size(); i++)
            {
                assertTrue(right[i] >= before[i], COUNTERS.get(i) + " went back at the view change: " + before[i] +
                    " then " + right[i]);
            }
            send(groups.get(0), 100);
            InJvmGroups.await(() -> delivered.get() >= 200, "100 more delivered in view 1: " + delivered.get());
            final double[] after = counts(registry);
            assertTrue(after[0] > right[0], "writes of view 1 counted: " + right[0] + " then " + after[0]);
            assertTrue(after[3] > right[3], "triggers of view 1 counted: " + right[3] + " then " + after[3]);
            for (final String name : COUNTERS)
            {
                assertEquals(1, registry.find(name).meters().size(), "one series of " + name);
                assertEquals("0", registry.get(name).meter().getId().getTag("member"), name + " names its member");
            }
            assertTrue(groups.get(0).writesPosted() >= (long)after[0], "Group.writesPosted counts all views");
            groups.get(0).close();
            groups.get(1).close();
        }
    }

    @Test
    void aGroupOpenedAgainWithTheRegistryCountsInMetersOfItsOwn() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64))).build();
        final List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(),
            new SimpleMeterRegistry());
        final MeterRegistry registry = registries.get(0);
        try (Members ignored = new Members(config))
        {
            for (final int messages : new int[] {100, 10})
            {
                final List<GroupBuilder> builders = new ArrayList<>();
                for (int i = 0; i < 3; i++)
                {
                    builders.add(Group.builder(config.forMember(i)).meterRegistry(registries.get(i)));
                }
                final List<Group> groups = InJvmGroups.open(builders);
                send(groups.get(0), messages);
                InJvmGroups.await(() -> registry.get("weft.smc.delivered").tag("subgroup", "all").functionCounter()
                    .count() == messages, "member 0 counts its " + messages + " deliveries");
                groups.forEach(Group::close);
                assertEquals(List.of(), weftMeters(registry), "a closed group's meters are gone");
            }
        }
    }

    /**
     * A joiner builds its parts (meters included) before it asks to join, so that the view change admitting it does
     * not wait for that: a join or an open that fails must take them out of the registry again.
     */
    @Test
    void aMemberThatCannotEnterLeavesNoMeters()
    {
        final WeftConfig config = InJvmGroups.joinable(TransportKind.TCP, Duration.ofSeconds(1)).build();
        final MeterRegistry joining = new SimpleMeterRegistry();
        final IllegalStateException notAdmitted = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalStateException.class, () -> Group.builder(config.forMember(2)).meterRegistry(joining).join());
        assertTrue(notAdmitted.getMessage().contains("could not join"), notAdmitted.getMessage());
        assertEquals(List.of(), weftMeters(joining), "a join nobody answered left meters");

        final MeterRegistry opening = new SimpleMeterRegistry();
        final IllegalStateException outside = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalStateException.class, () -> Group.builder(config.forMember(2)).meterRegistry(opening).open());
        assertTrue(outside.getMessage().contains("not in weft.membership.initial-view"), outside.getMessage());
        assertEquals(List.of(), weftMeters(opening), "an open outside view 0 left meters");
    }

    private static List<String> weftMeters(final MeterRegistry registry)
    {
        return registry.getMeters().stream().map(m -> m.getId().getName()).filter(n -> n.startsWith("weft.")).toList();
    }

    private static void send(final Group group, final int count) throws InterruptedException
    {
        final byte[] payload = new byte[8];
        for (int i = 0; i < count; i++)
        {
            assertTrue(group.subgroup("all").send(payload, Duration.ofSeconds(20)) >= 0, "send " + i);
        }
    }

    private static double[] counts(final MeterRegistry registry)
    {
        final double[] counts = new double[COUNTERS.size()];
        for (int i = 0; i < counts.length; i++)
        {
            counts[i] = registry.get(COUNTERS.get(i)).functionCounter().count();
        }
        return counts;
    }
}

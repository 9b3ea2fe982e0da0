package io.weft.membership;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The views' meters (tcp, members in one JVM): the view installed here and its size, the members the views admitted,
 * saw leave and removed as failed, and one timed view change per view after the first, the same at every member that
 * installed the same views. A joiner's first view counts nothing. A member's suspicion of the one that closed
 * abruptly is timed; members that close a view's table once done with its change, or leave, are not failures.
 */
@Timeout(120)
class MembershipMetersTest
{
    private final WeftConfig config = TestGroups.builder(TransportKind.TCP, 4)
        .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
        .membership(new MembershipConfig(List.of(0, 1, 2), "membership-meters-test-secret", ViewChangeSends.WAIT,
            Duration.ofSeconds(30), false))
        .build();
    private final List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(),
        new SimpleMeterRegistry(), new SimpleMeterRegistry());

    @Test
    void everyMemberCountsTheJoinsLeavesAndFailuresOfTheViewsItInstalled() throws Exception
    {
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                builders.add(builder(i));
            }
            final List<Group> groups = new ArrayList<>(InJvmGroups.open(builders));
            try
            {
                awaitView(List.of(0, 1, 2), 0, 3);
                assertCounts(List.of(0, 1, 2), 0, 0, 0, 0);

                groups.add(builder(3).join());
                awaitView(List.of(0, 1, 2, 3), 1, 4);
                assertCounts(List.of(0, 1, 2), 1, 0, 0, 1);
                assertCounts(List.of(3), 0, 0, 0, 0); // its first view: it joined, the others count that

                assertTrue(groups.get(3).leave(Duration.ofSeconds(30)), "member 3 left");
                awaitView(List.of(0, 1, 2), 2, 3);
                assertCounts(List.of(0, 1, 2), 1, 1, 0, 2);
                // a join, a leave and the old views' tables closing as each change completes: no failure detected
                for (final int m : List.of(0, 1, 2))
                {
                    assertEquals(0, silences(m), "member " + m + " timed a suspicion without a failure");
                }

                groups.get(2).close(); // abruptly: the others remove it as failed
                awaitView(List.of(0, 1), 3, 2);
                assertCounts(List.of(0, 1), 1, 1, 1, 3);
                // the survivor that started the change suspected member 2 first, and timed how long it was silent
                assertTrue(silences(0) + silences(1) >= 1, "no suspicion of member 2 was timed");
                final Timer change = registries.get(0).get("weft.membership.view.change").timer();
                assertTrue(change.totalTime(TimeUnit.NANOSECONDS) > 0, "the view changes took time");
                assertEquals("0", change.getId().getTag("member"));
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    private GroupBuilder builder(final int member)
    {
        return Group.builder(config.forMember(member)).meterRegistry(registries.get(member));
    }

    /** Every one of {@code members} reads view {@code id} of {@code size} members on its meters. */
    private void awaitView(final List<Integer> members, final long id, final int size)
    {
        for (final int m : members)
        {
            final MeterRegistry r = registries.get(m);
            InJvmGroups.await(() -> r.get("weft.membership.view").gauge().value() == id,
                "member " + m + "'s meters show view " + id);
            assertEquals(size, r.get("weft.membership.members").gauge().value(), "member " + m + "'s view size");
        }
    }

    private long silences(final int member)
    {
        return registries.get(member).get("weft.membership.suspicion.silence").timer().count();
    }

    private void assertCounts(final List<Integer> members, final long joined, final long left, final long failed,
        final long changes)
    {
        for (final int m : members)
        {
            final MeterRegistry r = registries.get(m);
            final String who = "member " + m + ": ";
            assertEquals(joined, r.get("weft.membership.joined").counter().count(), who + "joined");
            assertEquals(left, r.get("weft.membership.left").counter().count(), who + "left");
            assertEquals(failed, r.get("weft.membership.failed").counter().count(), who + "failed");
            assertEquals(changes, r.get("weft.membership.view.change").timer().count(), who + "view changes");
        }
    }
}

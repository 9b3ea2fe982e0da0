package io.weft.membership;

import io.weft.config.FailureConfig;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 item 7: a join committed in the same view change as the leader's own leave is admitted (by the leaving
 * leader, at whose desk the joiner waits). The change is held open by a member whose membership thread stalls in
 * its view callback (under the failure timeout), so that the leader's leave and the joiner both land in one list
 * before it can commit.
 */
@Timeout(120)
class LeaderLeavesAsJoinerArrivesTest
{
    private static final String SECRET = "leader-leaves-test-secret";

    @Test
    void aJoinCommittedWithTheLeadersOwnLeaveIsAdmitted() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 5)
            .failure(new FailureConfig(Duration.ofMillis(100), Duration.ofSeconds(6)))
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .membership(new MembershipConfig(List.of(0, 1, 2), SECRET, ViewChangeSends.WAIT, Duration.ofSeconds(30)))
            .build();
        final Map<Integer, List<Long>> delivered = new ConcurrentHashMap<>();
        final List<Group> groups = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                builders.add(builder(config.forMember(i), delivered, i == 2));
            }
            groups.addAll(InJvmGroups.open(builders));
            // member 3 joins: view 1, in whose view callback member 2's membership thread stalls 2 s
            groups.add(builder(config.forMember(3), delivered, false).join());
            InJvmGroups.await(() -> groups.get(0).view().id() == 1, "view 1 at the leader");

            // while member 2 cannot acknowledge, the leader announces its leave and member 4 asks to join
            final CompletableFuture<Boolean> left = CompletableFuture.supplyAsync(() -> leave(groups.get(0)));
            final CompletableFuture<Group> joined = Async.open(() -> builder(config.forMember(4), delivered, false)
                .join());
            final Group joiner = joined.get(60, TimeUnit.SECONDS);
            assertTrue(left.get(60, TimeUnit.SECONDS), "the leader left");
            final View first = joiner.view();
            assertEquals(List.of(1, 2, 3, 4), first.members(), first.toString());
            assertEquals(List.of(4), first.joined(), "joined in this change: " + first);
            assertEquals(List.of(0), first.left(), "the leader left in the same change: " + first);
            groups.remove(0);
            groups.add(joiner);

            // the group goes on with the joiner: a message from it reaches everyone
            assertTrue(joiner.subgroup("all").send(ByteBuffer.allocate(8).putLong(42).array(),
                Duration.ofSeconds(10)) >= 0);
            for (final int id : List.of(1, 2, 3, 4))
            {
                InJvmGroups.await(() -> delivered.get(id).contains(42L), "member " + id + " delivered the joiner's message");
            }
        }
        finally
        {
            groups.forEach(Group::close);
        }
    }

    private static boolean leave(final Group g)
    {
        try
        {
            return g.leave(Duration.ofSeconds(30));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static GroupBuilder builder(final WeftConfig config, final Map<Integer, List<Long>> delivered,
        final boolean stallInView1)
    {
        final int me = config.memberId();
        delivered.put(me, new CopyOnWriteArrayList<>());
        return Group.builder(config)
            .onDelivery("all", m -> delivered.get(me).add(ByteBuffer.wrap(m.bytes()).getLong()))
            .onView(v ->
            {
                if (stallInView1 && v.id() == 1)
                {
                    try
                    {
                        Thread.sleep(2000); // the membership thread, under the failure timeout of 6 s
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            });
    }
}

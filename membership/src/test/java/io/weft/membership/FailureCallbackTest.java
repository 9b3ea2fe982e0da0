package io.weft.membership;

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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application's member-failure callback runs on a transport's thread: one that throws is logged, and the member,
 * its transport and the view change go on. It used to end the thread it ran on. The minority callback likewise.
 */
@Timeout(120)
class FailureCallbackTest
{
    @Test
    void aFailureCallbackThatThrowsStopsNothing() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64))).build();
        final ConcurrentLinkedQueue<String> told = new ConcurrentLinkedQueue<>();
        final AtomicLong delivered = new AtomicLong();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                final int me = i;
                builders.add(Group.builder(config.forMember(i))
                    .onDelivery("all", m -> delivered.incrementAndGet())
                    .onMemberFailure((id, reason) ->
                    {
                        told.add(me + " told of " + id);
                        throw new IllegalStateException("an application callback that throws");
                    }));
            }
            final List<Group> groups = InJvmGroups.open(builders);
            try
            {
                groups.get(2).close(); // abruptly: members 0 and 1 are told, and their callbacks throw
                for (int m = 0; m < 2; m++)
                {
                    final Group g = groups.get(m);
                    InJvmGroups.await(() -> g.view().id() == 1 && g.view().members().equals(List.of(0, 1)),
                        "member " + m + " installs view 1 [0, 1]");
                }
                assertTrue(told.contains("0 told of 2") && told.contains("1 told of 2"), "told: " + told);
                final byte[] payload = new byte[8];
                for (int i = 0; i < 50; i++)
                {
                    assertTrue(groups.get(1).subgroup("all").send(payload, Duration.ofSeconds(20)) >= 0, "send " + i);
                }
                InJvmGroups.await(() -> delivered.get() == 100, "members 0 and 1 deliver 50 each: " + delivered);
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    /** The minority callback runs on the membership thread: one that throws is logged, and the member still stops. */
    @Test
    void aMinorityCallbackThatThrowsStillStopsTheMember() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64))).build();
        final ConcurrentLinkedQueue<String> told = new ConcurrentLinkedQueue<>();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                builders.add(Group.builder(config.forMember(i)).onDelivery("all", m -> { }).onMinority(reason ->
                {
                    told.add(reason);
                    throw new IllegalStateException("an application callback that throws");
                }));
            }
            final List<Group> groups = InJvmGroups.open(builders);
            try
            {
                groups.get(1).close();
                groups.get(2).close(); // member 0 suspects two of three: a minority
                final Group g = groups.get(0);
                InJvmGroups.await(() -> g.minorityReason() != null, "member 0 finds itself in a minority");
                InJvmGroups.await(() -> told.size() == 1, "member 0's callback is told once: " + told);
                assertEquals(g.minorityReason(), told.peek());
                final IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> g.subgroup("all").send(new byte[8], Duration.ofSeconds(5)));
                assertTrue(refused.getMessage().contains(g.minorityReason()), refused.getMessage());
                assertEquals(1, told.size(), "told once: " + told);
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }
}

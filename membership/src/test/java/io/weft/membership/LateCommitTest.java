package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.smc.Claim;
import io.weft.smc.Message;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Claims open when their view ends. Issue 13, item 7: such a claim is given 2 s; committed later, it used to vanish
 * although its index had been returned, and now that commit is refused with an error saying the message was not sent.
 * Unordered subgroups: a claim committed during the view change, within those 2 s, was never published, so it is
 * sent in the next view; it used to be dropped although its commit returned.
 */
@Timeout(60)
class LateCommitTest
{
    @Test
    void aClaimCommittedAfterItsViewEndedIsRefusedNotDropped() throws Exception
    {
        final WeftConfig config = InJvmGroups.oneSubgroup(TransportKind.TCP, 3, null).build();
        try (Members ignored = new Members(config))
        {
            final List<Group> groups = InJvmGroups.open(List.of(Group.builder(config.forMember(0)),
                Group.builder(config.forMember(1)), Group.builder(config.forMember(2))));
            final Claim claim = new Claim();
            final long index = groups.get(0).subgroup("all").tryClaim(8, claim);
            assertTrue(index >= 0, "claimed " + index);
            groups.get(2).close(); // the view changes while the claim is open
            InJvmGroups.await(() -> groups.get(0).view().id() >= 1 && groups.get(1).view().id() >= 1, "view 1");
            final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> claim.commit(8));
            assertTrue(ex.getMessage().contains("it was NOT sent"), ex.getMessage());
            groups.get(0).close();
            groups.get(1).close();
        }
    }

    @Test
    void anUnorderedClaimCommittedDuringTheViewChangeIsSentInTheNextView() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(new SubgroupConfig("u", List.of(), List.of(), 16, 64, DeliveryMode.UNORDERED)))
            .membership(new MembershipConfig(List.of(), null, ViewChangeSends.WAIT, Duration.ofSeconds(10))).build();
        try (Members ignored = new Members(config))
        {
            final List<List<Long>> logs = new ArrayList<>();
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                final List<Long> log = new CopyOnWriteArrayList<>();
                logs.add(log);
                builders.add(Group.builder(config.forMember(i)).onDelivery("u", m -> log.add(valueOf(m))));
            }
            final List<Group> groups = InJvmGroups.open(builders);
            final Claim claim = new Claim();
            send(groups.get(0), claim, 1);
            InJvmGroups.await(() -> logs.get(1).contains(1L), "message 1 at member 1");
            assertTrue(groups.get(0).subgroup("u").tryClaim(8, claim) >= 0, "claim of message 2");
            claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset(), 2L);
            groups.get(2).close(); // the view changes while the claim is open
            InJvmGroups.await(() -> groups.get(0).engine("u").isWedged(), "member 0 wedged");
            claim.commit(8); // within the view change's 2 s wait: taken along into the next view
            InJvmGroups.await(() -> groups.get(0).view().id() >= 1 && groups.get(1).view().id() >= 1, "view 1");
            send(groups.get(0), claim, 3);
            for (int i = 0; i < 2; i++)
            {
                final List<Long> log = logs.get(i);
                InJvmGroups.await(() -> log.contains(3L), "message 3 at member " + i);
                assertEquals(List.of(1L, 2L, 3L), log, "member " + i + ": each message once, in the order sent");
            }
            groups.get(0).close();
            groups.get(1).close();
        }
    }

    private static void send(final Group group, final Claim claim, final long value)
    {
        assertTrue(group.subgroup("u").claim(8, claim, Duration.ofSeconds(20)) >= 0, "claim of message " + value);
        claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset(), value);
        claim.commit(8);
    }

    private static long valueOf(final Message m)
    {
        return m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, m.offset());
    }
}

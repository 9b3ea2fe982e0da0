package io.weft.membership;

import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.smc.Claim;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13, item 7: a claim still open when its view ends is given 2 s; committed later, it used to vanish although
 * its index had been returned. Now that commit is refused with an error that says the message was not sent.
 */
@Timeout(60)
class LateCommitTest
{
    @Test
    void aClaimCommittedAfterItsViewEndedIsRefusedNotDropped() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .membership(new MembershipConfig(List.of(), null, ViewChangeSends.WAIT, Duration.ofSeconds(10))).build();
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
}

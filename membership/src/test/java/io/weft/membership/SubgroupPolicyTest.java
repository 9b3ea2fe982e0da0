package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.SubgroupConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Subgroup policies are re-evaluated for every view ({@link Epoch#policy}). */
class SubgroupPolicyTest
{
    private static final View VIEW = new View(3, List.of(0, 2, 4, 5), List.of(5), List.of(), List.of(1, 3));

    @Test
    void allMembersMeansEveryMemberOfTheView()
    {
        final SubgroupConfig all = SubgroupConfig.allMembers("all", 100, 64);
        final SubgroupConfig resolved = Epoch.policy(all, VIEW);
        assertEquals(List.of(), resolved.members(), "all stays all: every member of the view, joiners included");
        assertEquals(List.of(0, 2, 4, 5), resolved.memberIds(Epoch.configFor(io.weft.testkit.TestGroups
            .config(io.weft.config.TransportKind.TCP, 6), VIEW).group()));
    }

    @Test
    void aNamedListKeepsTheNamedMembersThatAreInTheView()
    {
        final SubgroupConfig named = new SubgroupConfig("orders", List.of(1, 2, 3, 4), List.of(1, 2), 100, 64,
            DeliveryMode.ORDERED);
        final SubgroupConfig resolved = Epoch.policy(named, VIEW);
        assertEquals(List.of(2, 4), resolved.members());
        assertEquals(List.of(2), resolved.senders());
        assertEquals(100, resolved.window());
    }

    @Test
    void aSubgroupWithoutMembersOrSendersInTheViewDoesNotExistInIt()
    {
        assertNull(Epoch.policy(new SubgroupConfig("gone", List.of(1, 3), List.of(), 100, 64, DeliveryMode.ORDERED), VIEW));
        assertNull(Epoch.policy(new SubgroupConfig("mute", List.of(0, 1, 2), List.of(1), 100, 64, DeliveryMode.ORDERED),
            VIEW));
    }
}

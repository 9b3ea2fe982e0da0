package io.weft.membership;

import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Every member of a group leaves at the same moment (a launcher's SIGTERM reaches all members together): no leave
 * throws, each returns within its timeout, and every member ends closed.
 */
@Timeout(120)
class AllMembersLeaveAtOnceTest
{
    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void leavingTogetherEndsEveryMemberWithoutAnError(final TransportKind kind) throws Exception
    {
        for (int round = 0; round < 5; round++)
        {
            final WeftConfig config = TestGroups.builder(kind, 3)
                .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
                .build();
            final List<Group> groups = new ArrayList<>();
            try (Members ignored = new Members(config))
            {
                final List<GroupBuilder> builders = new ArrayList<>();
                for (int i = 0; i < 3; i++)
                {
                    builders.add(Group.builder(config.forMember(i)).onDelivery("all", m -> { }));
                }
                groups.addAll(InJvmGroups.open(builders));
                final List<CompletableFuture<Boolean>> leaves = new ArrayList<>();
                for (final Group g : groups)
                {
                    leaves.add(CompletableFuture.supplyAsync(() ->
                    {
                        try
                        {
                            return g.leave(Duration.ofSeconds(5));
                        }
                        catch (final InterruptedException ex)
                        {
                            throw new IllegalStateException(ex);
                        }
                    }));
                }
                for (int i = 0; i < 3; i++)
                {
                    leaves.get(i).get(30, TimeUnit.SECONDS); // a leave that threw fails here, naming its exception
                    final int id = i;
                    InJvmGroups.await(() -> groups.get(id).isClosed(), "member " + id + " closed after its leave");
                }
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }
}

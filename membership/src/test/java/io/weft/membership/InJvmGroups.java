package io.weft.membership;

import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.TestGroups;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Helpers of the in-JVM group tests: open members together, wait on a condition with a deadline. */
final class InJvmGroups
{
    private static final Duration VIEW_CHANGE_TIMEOUT = Duration.ofSeconds(60);

    private InJvmGroups()
    {
    }

    /**
     * Three members with one subgroup {@code all} of every member: 0 and 1 open view 0, member 2 joins, within
     * {@code joinTimeout}.
     */
    static WeftConfig.Builder joinable(final TransportKind kind, final Duration joinTimeout)
    {
        return TestGroups.builder(kind, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .membership(new MembershipConfig(List.of(0, 1), "in-jvm-joins-test-secret", ViewChangeSends.WAIT,
                joinTimeout, false));
    }

    /** {@code members} members, all in view 0, one subgroup {@code all} of every member; joins need {@code secret}. */
    static WeftConfig.Builder oneSubgroup(final TransportKind kind, final int members, final String secret)
    {
        return TestGroups.builder(kind, members)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .membership(new MembershipConfig(List.of(), secret, ViewChangeSends.WAIT, Duration.ofSeconds(10), false));
    }

    /** Opens every builder's member at once (each waits for the others) and returns them in order. */
    static List<Group> open(final List<GroupBuilder> builders) throws Exception
    {
        return Async.openAll(builders.stream().<Supplier<Group>>map(b -> b::open).toList());
    }

    /** Waits up to 60 s (a view change on a loaded two-core machine) for {@code condition}, naming {@code what}. */
    static void await(final BooleanSupplier condition, final String what)
    {
        Await.until(condition, VIEW_CHANGE_TIMEOUT, what);
    }
}

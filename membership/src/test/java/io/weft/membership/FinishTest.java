package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
 * {@link Group#finish}: every member of overlapping subgroups finishes (true) once all have delivered the same
 * sequences, also a member outside one of them. On shm such a member maps the others' rows and so saw that subgroup's
 * stable messages, which it never delivers: its finish waited out its whole timeout for them and then returned true
 * (a three-member run's last member closed 30 s after the others).
 */
@Timeout(120)
class FinishTest
{
    private static final int MESSAGES = 500; // per member and subgroup it sends in

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void everyMemberFinishesAlsoOneOutsideASubgroup(final TransportKind kind) throws Exception
    {
        final WeftConfig config = TestGroups.builder(kind, 3).subgroups(List.of(
            SubgroupConfig.allMembers("all", 16, 64),
            new SubgroupConfig("pair", List.of(1, 2), List.of(1, 2), 8, 64, DeliveryMode.ORDERED))).build();
        final Map<String, List<Long>> delivered = new ConcurrentHashMap<>(); // "member/subgroup" -> sender, index
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                final int member = i;
                final GroupBuilder b = Group.builder(config.forMember(i));
                for (final String subgroup : List.of("all", "pair"))
                {
                    final List<Long> seen = delivered.computeIfAbsent(member + "/" + subgroup,
                        k -> new CopyOnWriteArrayList<>());
                    b.onDelivery(subgroup, m -> seen.add(ByteBuffer.wrap(m.bytes()).getLong()));
                }
                builders.add(b);
            }
            final List<Group> groups = InJvmGroups.open(builders);
            try
            {
                final List<CompletableFuture<Boolean>> finished = new ArrayList<>();
                for (final Group g : groups)
                {
                    finished.add(CompletableFuture.supplyAsync(() -> sendAllThenFinish(g),
                        r -> Thread.ofPlatform().name("finish-" + g.memberId()).start(r)));
                }
                for (int i = 0; i < 3; i++)
                {
                    assertTrue(finished.get(i).get(90, TimeUnit.SECONDS), "member " + i + "'s finish returned false");
                }
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
        assertEquals(3 * MESSAGES, delivered.get("0/all").size());
        assertEquals(delivered.get("0/all"), delivered.get("1/all"));
        assertEquals(delivered.get("0/all"), delivered.get("2/all"));
        assertEquals(2 * MESSAGES, delivered.get("1/pair").size());
        assertEquals(delivered.get("1/pair"), delivered.get("2/pair"));
        assertEquals(List.of(), delivered.get("0/pair"), "member 0 is outside subgroup pair");
    }

    /** Sends {@link #MESSAGES} in every subgroup where this member sends, each naming its sender and index. */
    private static boolean sendAllThenFinish(final Group group)
    {
        try
        {
            for (final Subgroup s : group.subgroups().values())
            {
                if (!s.isSender())
                {
                    continue;
                }
                for (long i = 0; i < MESSAGES; i++)
                {
                    final byte[] m = ByteBuffer.allocate(8).putLong(group.memberId() * 1_000_000L + i).array();
                    assertTrue(s.send(m, Duration.ofSeconds(30)) >= 0, "back-pressured for 30 s");
                }
            }
            return group.finish(Duration.ofSeconds(20));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

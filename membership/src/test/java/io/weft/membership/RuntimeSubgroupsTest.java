package io.weft.membership;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.DeliveryMode;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Subgroups added while the group runs (tcp, members in one JVM): every member is told of each addition once, in
 * the same order, before its first delivery; the new subgroup delivers the same sequence everywhere; two members
 * asking for one name with different configurations get one subgroup and one clear refusal; a joiner is told of
 * every added subgroup with its view and receives from them; a removed subgroup's meters leave the registry; bad
 * requests are refused before anything is sent.
 */
@Timeout(120)
class RuntimeSubgroupsTest
{
    private static final String SECRET = "runtime-subgroups-test-secret";

    private final WeftConfig config = TestGroups.builder(TransportKind.TCP, 4)
        .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
        .membership(new MembershipConfig(List.of(0, 1, 2), SECRET, ViewChangeSends.WAIT, Duration.ofSeconds(30), true))
        .build();
    /** Per member: the subgroups it was told of, added ("orders:properties") and removed ("-orders"). */
    private final Map<Integer, List<String>> told = new ConcurrentHashMap<>();
    /** Per member: the values it delivered on orders. */
    private final Map<Integer, List<Long>> orders = new ConcurrentHashMap<>();
    /** Per member: its meters. */
    private final Map<Integer, MeterRegistry> registries = new ConcurrentHashMap<>();

    @Test
    void subgroupsAddedAtRunTimeReachEveryMemberAndJoiners() throws Exception
    {
        try (Members ignored = new Members(config))
        {
            final List<Group> groups = openThree();
            try
            {
                final SubgroupConfig spec = new SubgroupConfig("orders", List.of(), List.of(0, 1), 16, 64,
                    DeliveryMode.ORDERED);
                final Subgroup added = groups.get(1).addSubgroup(spec, "qos=atomic", Duration.ofSeconds(20));
                assertEquals("orders", added.name());
                for (int i = 0; i < 3; i++)
                {
                    final int member = i;
                    InJvmGroups.await(() -> groups.get(member).view().id() == 1, "member " + member + " in view 1");
                    assertEquals(List.of("orders:qos=atomic"), told.get(i), "member " + i + " told once");
                    assertEquals(64, groups.get(i).subgroup("orders").maxPayload());
                }
                assertEquals(List.of("all", "orders"), List.copyOf(groups.get(2).subgroups().keySet()));
                assertSame(added, groups.get(1).addSubgroup(spec, "qos=atomic", Duration.ofSeconds(5)),
                    "the same request again returns the subgroup at once");

                send(groups.get(0), 0, 200);
                send(groups.get(1), 1_000, 200);
                awaitOrders(List.of(0, 1, 2), 400);

                // two members ask for one name at once with different windows: the first in the order wins
                final CompletableFuture<Object> a = CompletableFuture.supplyAsync(() -> add(groups.get(0), 16));
                final CompletableFuture<Object> b = CompletableFuture.supplyAsync(() -> add(groups.get(2), 32));
                final List<Object> outcomes = List.of(a.get(), b.get());
                assertEquals(1, outcomes.stream().filter(o -> o instanceof Subgroup).count(), outcomes.toString());
                final String refusal = (String)outcomes.stream().filter(o -> o instanceof String).findFirst().orElseThrow();
                assertTrue(refusal.contains("exists with another configuration"), refusal);
                final int window = groups.get(0).subgroupConfig("quotes").window();
                for (final Group g : groups)
                {
                    InJvmGroups.await(() -> g.view().id() == 2, "member " + g.memberId() + " in view 2");
                    assertEquals(window, g.subgroupConfig("quotes").window(), "one configuration everywhere");
                }

                final IllegalArgumentException stranger = assertThrows(IllegalArgumentException.class, () -> groups
                    .get(0).addSubgroup(new SubgroupConfig("far", List.of(0, 9), List.of(), 16, 64, DeliveryMode.ORDERED),
                    "", Duration.ofSeconds(5)));
                assertTrue(stranger.getMessage().contains("9 is not"), stranger.getMessage());
                final IllegalStateException taken = assertThrows(IllegalStateException.class, () -> groups.get(0)
                    .addSubgroup(SubgroupConfig.allMembers("all", 8, 64), "", Duration.ofSeconds(5)));
                assertTrue(taken.getMessage().contains("another configuration"), taken.getMessage());

                // a joiner learns of both with its view and receives on orders from its first view on
                final Group joiner = builder(config.forMember(3)).join();
                groups.add(joiner);
                assertEquals(List.of("orders:qos=atomic", "quotes:"), told.get(3));
                assertEquals(List.of("all", "orders", "quotes"), List.copyOf(joiner.subgroups().keySet()));
                for (final Group g : groups)
                {
                    InJvmGroups.await(() -> g.view().members().size() == 4, "member " + g.memberId() + " sees 4");
                }
                orders.values().forEach(List::clear);
                send(groups.get(0), 5_000, 100);
                awaitOrders(List.of(0, 1, 2, 3), 100);
                for (int i = 0; i < 4; i++)
                {
                    assertEquals(List.of("orders:qos=atomic", "quotes:"), told.get(i), "member " + i + " told once each");
                }
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    @Test
    void aSubgroupRemovedAtRunTimeEndsAtEveryMemberAfterTheSameDeliveriesAndItsNameCanBeUsedAgain() throws Exception
    {
        try (Members ignored = new Members(config))
        {
            final List<Group> groups = openThree();
            try
            {
                final SubgroupConfig spec = SubgroupConfig.allMembers("orders", 16, 64);
                groups.get(0).addSubgroup(spec, "v1", Duration.ofSeconds(20));
                send(groups.get(0), 0, 100);
                awaitOrders(List.of(0, 1, 2), 100);

                // member 0 keeps sending while member 2 removes the subgroup: a send fails once it is gone
                final Subgroup handle = groups.get(0).subgroup("orders");
                final CompletableFuture<String> sender = CompletableFuture.supplyAsync(() ->
                {
                    for (long v = 1_000; ; v++)
                    {
                        try
                        {
                            handle.send(ByteBuffer.allocate(8).putLong(v).array(), Duration.ofSeconds(10));
                        }
                        catch (final IllegalStateException ex)
                        {
                            return ex.getMessage();
                        }
                    }
                });
                InJvmGroups.await(() -> orders.get(2).size() > 300, "member 2 delivered while member 0 sends");
                groups.get(2).removeSubgroup("orders", Duration.ofSeconds(20));
                final String refusal = sender.get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(refusal.contains("orders was removed"), refusal);
                for (final Group g : groups)
                {
                    InJvmGroups.await(() -> !g.subgroups().containsKey("orders"), "member " + g.memberId() + " " +
                        "without orders");
                    assertEquals(List.of("orders:v1", "-orders"), told.get(g.memberId()), "told once each");
                    assertEquals(orders.get(0), orders.get(g.memberId()), "member " + g.memberId() + " delivered " +
                        "the same sequence before the removal");
                    final IllegalArgumentException gone = assertThrows(IllegalArgumentException.class,
                        () -> g.subgroup("orders"));
                    assertTrue(gone.getMessage().contains("removed at run time"), gone.getMessage());
                    assertEquals(List.of(), ordersMeters(g.memberId()), "member " + g.memberId() + "'s meters of " +
                        "the removed subgroup left its registry");
                }
                final IllegalStateException configured = assertThrows(IllegalStateException.class,
                    () -> groups.get(1).removeSubgroup("all", Duration.ofSeconds(5)));
                assertTrue(configured.getMessage().contains("is configured"), configured.getMessage());
                final IllegalArgumentException again = assertThrows(IllegalArgumentException.class,
                    () -> groups.get(1).removeSubgroup("orders", Duration.ofSeconds(5)));
                assertTrue(again.getMessage().contains("removed already"), again.getMessage());

                // the name again, another configuration; a joiner is told of that one only
                orders.values().forEach(List::clear);
                groups.get(1).addSubgroup(SubgroupConfig.allMembers("orders", 32, 64), "v2", Duration.ofSeconds(20));
                final Group joiner = builder(config.forMember(3)).join();
                groups.add(joiner);
                assertEquals(List.of("orders:v2"), told.get(3));
                assertEquals(32, joiner.subgroupConfig("orders").window());
                for (final Group g : groups)
                {
                    InJvmGroups.await(() -> g.view().members().size() == 4, "member " + g.memberId() + " sees 4");
                }
                send(groups.get(1), 5_000, 100);
                awaitOrders(List.of(0, 1, 2, 3), 100);
                for (final Group g : groups) // the subgroup of the same name counts from zero
                {
                    InJvmGroups.await(() -> delivered(g.memberId()) >= 100, "member " + g.memberId() + " counted");
                    assertEquals(100, delivered(g.memberId()), "member " + g.memberId() + "'s orders delivered");
                }
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    /** Members 0, 1 and 2, in view 0. */
    private List<Group> openThree() throws Exception
    {
        final List<GroupBuilder> builders = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            builders.add(builder(config.forMember(i)));
        }
        return new ArrayList<>(InJvmGroups.open(builders));
    }

    private GroupBuilder builder(final WeftConfig config)
    {
        final int me = config.memberId();
        told.put(me, new CopyOnWriteArrayList<>());
        orders.put(me, new CopyOnWriteArrayList<>());
        registries.put(me, new SimpleMeterRegistry());
        return Group.builder(config).meterRegistry(registries.get(me))
            .onSubgroupRemoved(name -> told.get(me).add("-" + name)).onSubgroupAdded((sg, properties) ->
        {
            told.get(me).add(sg.name() + ":" + properties);
            return sg.name().equals("orders") ? batch ->
            {
                for (int i = 0; i < batch.size(); i++)
                {
                    orders.get(me).add(ByteBuffer.wrap(batch.get(i).bytes()).getLong());
                }
            } : null;
        });
    }

    private static Object add(final Group g, final int window)
    {
        try
        {
            return g.addSubgroup(new SubgroupConfig("quotes", List.of(), List.of(), window, 64, DeliveryMode.ORDERED),
                "", Duration.ofSeconds(20));
        }
        catch (final IllegalStateException ex)
        {
            return ex.getMessage();
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private List<Meter.Id> ordersMeters(final int member)
    {
        return registries.get(member).getMeters().stream().map(Meter::getId)
            .filter(id -> "orders".equals(id.getTag("subgroup"))).toList();
    }

    private double delivered(final int member)
    {
        final FunctionCounter c = registries.get(member).find("weft.smc.delivered").tag("subgroup", "orders")
            .functionCounter();
        return c == null ? 0 : c.count();
    }

    private static void send(final Group g, final long first, final int n)
    {
        final Subgroup s = g.subgroup("orders");
        for (long v = first; v < first + n; v++)
        {
            assertTrue(s.send(ByteBuffer.allocate(8).putLong(v).array(), Duration.ofSeconds(10)) >= 0, "sent " + v);
        }
    }

    private void awaitOrders(final List<Integer> members, final int n)
        throws InterruptedException
    {
        for (final int i : members)
        {
            InJvmGroups.await(() -> orders.get(i).size() >= n, "member " + i + " delivered " + n + " on orders");
        }
        for (final int i : members)
        {
            assertEquals(orders.get(members.get(0)), orders.get(i), "member " + i + " delivered the same sequence");
        }
    }
}

package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.predicates.PassInvoker;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invoker mode through the Group API (tcp, members in one JVM, each with its own owner thread): the owner's own
 * waits run the passes, so that a send with a timeout on a full window, {@code addSubgroup} and {@code finish} all
 * complete on the one thread that runs the member; deliveries happen on that thread (a view change's trim on the
 * membership thread), in the same order everywhere.
 */
@Timeout(120)
class InvokerModeTest
{
    private static final int MESSAGES = 2_000; // per member, through a window of 16: the owner's send must wait

    private final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
        .subgroups(List.of(new SubgroupConfig("all", List.of(), List.of(), 16, 64, DeliveryMode.ORDERED)))
        .membership(new MembershipConfig(List.of(0, 1, 2), "invoker-test-secret", ViewChangeSends.WAIT,
            Duration.ofSeconds(30), true))
        .build();
    private final Map<Integer, List<Long>> delivered = new ConcurrentHashMap<>();
    private final Map<Integer, List<Long>> added = new ConcurrentHashMap<>();
    private final Map<Integer, Thread> owners = new ConcurrentHashMap<>();
    private final Map<Integer, String> wrongThread = new ConcurrentHashMap<>();

    @Test
    void theOwnersWaitsRunThePassesAndEveryMemberDeliversTheSameSequence() throws Exception
    {
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                builders.add(builder(config.forMember(i)).useInvoker());
            }
            final List<Group> groups = InJvmGroups.open(builders);
            final List<CompletableFuture<Boolean>> runs = new ArrayList<>();
            for (final Group g : groups)
            {
                final CompletableFuture<Boolean> run = new CompletableFuture<>();
                Thread.ofPlatform().name("owner-" + g.memberId()).start(() -> own(g, run));
                runs.add(run);
            }
            for (final CompletableFuture<Boolean> run : runs)
            {
                assertTrue(run.get(90, TimeUnit.SECONDS), "a member did not finish with every other");
            }
            assertEquals(Map.of(), wrongThread, "callbacks ran off the owner thread");
            assertEquals(3L * MESSAGES, delivered.get(0).size());
            for (int i = 1; i < 3; i++)
            {
                assertEquals(delivered.get(0), delivered.get(i), "member " + i + " delivered another sequence");
                assertEquals(added.get(0), added.get(i), "member " + i + " delivered another sequence on orders");
            }
            assertEquals(3, added.get(0).size(), "one message on the added subgroup from each member");
        }
    }

    @Test
    void aGroupWithoutTheInvokerSaysHowToGetOne() throws Exception
    {
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                builders.add(Group.builder(config.forMember(i)));
            }
            final List<Group> groups = InJvmGroups.open(builders);
            try
            {
                final IllegalStateException ex = assertThrows(IllegalStateException.class, groups.get(0)::invoker);
                assertTrue(ex.getMessage().contains("useInvoker()"), ex.getMessage());
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    /** The member's whole life on its owner thread: sends, a runtime subgroup, one send there, the finish barrier. */
    private void own(final Group g, final CompletableFuture<Boolean> result)
    {
        try
        {
            final int me = g.memberId();
            owners.put(me, Thread.currentThread());
            final PassInvoker invoker = g.invoker();
            final Subgroup all = g.subgroup("all");
            for (long i = 0; i < MESSAGES; i++)
            {
                // the window holds 16: without passes run by this wait, the send would time out
                assertTrue(all.send(ByteBuffer.allocate(8).putLong(me * 1_000_000L + i).array(),
                    Duration.ofSeconds(30)) >= 0, "member " + me + " could not send " + i);
            }
            final Subgroup orders = g.addSubgroup(new SubgroupConfig("orders", List.of(), List.of(), 16, 64,
                DeliveryMode.ORDERED), "", Duration.ofSeconds(30));
            assertTrue(orders.send(ByteBuffer.allocate(8).putLong(me).array(), Duration.ofSeconds(30)) >= 0);
            assertTrue(invoker.invokeUntil(() -> delivered.get(me).size() == 3 * MESSAGES &&
                added.get(me).size() == 3, System.nanoTime() + TimeUnit.SECONDS.toNanos(60)), "member " + me +
                " delivered " + delivered.get(me).size() + " and " + added.get(me).size());
            result.complete(g.finish(Duration.ofSeconds(30)));
        }
        catch (final Throwable ex)
        {
            g.close();
            result.completeExceptionally(ex);
        }
    }

    private GroupBuilder builder(final WeftConfig config)
    {
        final int me = config.memberId();
        delivered.put(me, new CopyOnWriteArrayList<>());
        added.put(me, new CopyOnWriteArrayList<>());
        return Group.builder(config)
            .onDelivery("all", m ->
            {
                checkThread(me);
                delivered.get(me).add(m.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED
                    .withOrder(java.nio.ByteOrder.BIG_ENDIAN), m.offset()));
            })
            .onSubgroupAdded((sg, properties) -> batch ->
            {
                for (int i = 0; i < batch.size(); i++)
                {
                    added.get(me).add(ByteBuffer.wrap(batch.get(i).bytes()).getLong());
                }
            });
    }

    private void checkThread(final int me)
    {
        final Thread t = Thread.currentThread();
        if (t != owners.get(me) && !t.getName().startsWith("weft-membership-")) // a trim: the membership thread
        {
            wrongThread.put(me, Thread.currentThread().getName());
        }
    }
}

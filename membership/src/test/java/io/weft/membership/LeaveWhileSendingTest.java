package io.weft.membership;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
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
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member leaves, or the group finishes, while another thread of one member goes on sending (a shutdown hook's
 * leave while the application runs): the departure refuses the sends that come after it, so it ends, and every send
 * that returned an index is delivered by the other members, once and in order. Before, such a send could return an
 * index and be left out of the last view's trim: lost.
 */
@Timeout(180)
class LeaveWhileSendingTest
{
    /** A thread of its own for each task: the common pool has one worker on two cores, which the sender keeps. */
    private static final Executor OWN_THREAD = task -> Thread.ofPlatform().start(task);

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aLeaveRefusesLaterSendsAndLosesNoneThatReturnedAnIndex(final TransportKind kind) throws Exception
    {
        departWhileSending(kind, true);
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aFinishRefusesLaterSendsAndLosesNoneThatReturnedAnIndex(final TransportKind kind) throws Exception
    {
        departWhileSending(kind, false);
    }

    /** Member 0 sends on one thread while another leaves (or every member finishes), five times. */
    private static void departWhileSending(final TransportKind kind, final boolean leave) throws Exception
    {
        for (int round = 0; round < 5; round++)
        {
            final WeftConfig config = InJvmGroups.oneSubgroup(kind, 3, "leave-while-sending-test").build();
            final Map<Integer, List<Long>> delivered = new ConcurrentHashMap<>();
            final List<Group> groups = new ArrayList<>();
            try (Members ignored = new Members(config))
            {
                groups.addAll(InJvmGroups.open(IntStream.range(0, 3).mapToObj(i ->
                {
                    final List<Long> mine = delivered.computeIfAbsent(i, k -> new CopyOnWriteArrayList<>());
                    return Group.builder(config.forMember(i)).onDelivery("all", m ->
                    {
                        if (m.senderId() == 0) // member 0's own counter, 8 bytes
                        {
                            mine.add(ByteBuffer.wrap(m.bytes()).getLong());
                        }
                    });
                }).toList()));
                final List<Long> sent = new CopyOnWriteArrayList<>();
                final CompletableFuture<String> sender = CompletableFuture.supplyAsync(() ->
                    sendUntilRefused(groups.getFirst(), sent), OWN_THREAD);
                InJvmGroups.await(() -> delivered.get(1).size() > 200 && delivered.get(2).size() > 200,
                    "members 1 and 2 delivered member 0's sends");

                final List<CompletableFuture<Boolean>> departures = new ArrayList<>();
                for (final Group g : leave ? groups.subList(0, 1) : groups)
                {
                    departures.add(CompletableFuture.supplyAsync(() -> depart(g, leave), OWN_THREAD));
                }
                for (final CompletableFuture<Boolean> d : departures)
                {
                    assertTrue(d.get(60, TimeUnit.SECONDS), "every departure ended within its timeout");
                }
                final String refusal = sender.get(30, TimeUnit.SECONDS);
                assertTrue(refusal.contains(leave ? "is leaving" : "is finishing") || refusal.contains("has left") ||
                    refusal.contains("closed"), "the sends after it are refused: " + refusal);
                for (final int stays : List.of(1, 2))
                {
                    if (leave)
                    {
                        InJvmGroups.await(() -> groups.get(stays).view().left().contains(0), "member " + stays +
                            " saw member 0 leave");
                    }
                    assertEquals(sent, delivered.get(stays), "member " + stays + " delivered every send of member 0 " +
                        "that returned an index, once, in order (" + sent.size() + " sent)");
                }
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    private static boolean depart(final Group g, final boolean leave)
    {
        try
        {
            return leave ? g.leave(Duration.ofSeconds(20)) : g.finish(Duration.ofSeconds(20));
        }
        catch (final InterruptedException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Sends 0, 1, 2, ... and records each that returned an index, until a send throws; returns its message. */
    private static String sendUntilRefused(final Group group, final List<Long> sent)
    {
        final Subgroup all = group.subgroup("all");
        for (long n = 0; ; n++)
        {
            try
            {
                if (all.send(ByteBuffer.allocate(8).putLong(n).array(), Duration.ofSeconds(1)) >= 0)
                {
                    sent.add(n);
                }
            }
            catch (final IllegalStateException ex)
            {
                return String.valueOf(ex.getMessage());
            }
        }
    }
}

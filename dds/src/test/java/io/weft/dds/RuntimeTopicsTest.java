package io.weft.dds;

import io.weft.config.DdsConfig;
import io.weft.config.MembershipConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Topics created while the domain runs (three participants in one JVM over shm, then a joiner): a logged topic
 * and a volatile one created by different members reach every member, whose readers get the same samples in the
 * same order, each member's log holds them all, and a member that joins later is given both topics with its view
 * and their log and history by state transfer, and a member that comes back with its log on disk catches up to the
 * same log. Repeats, conflicts and a taken topic number get clear answers.
 */
@Timeout(120)
class RuntimeTopicsTest
{
    @TempDir
    Path dir;

    @Test
    void topicsCreatedAtRunTimeServeEveryMemberAndLaterJoiners() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 4)
            .membership(new MembershipConfig(List.of(0, 1, 2), "runtime-topics-test-secret", ViewChangeSends.WAIT,
                Duration.ofSeconds(30), true))
            .dds(new DdsConfig(dir, List.of(new TopicConfig("configured", 1, QosLevel.ATOMIC_MULTICAST, List.of(),
                List.of(), 16, 64, 1)))).build();
        final List<DomainParticipant> participants = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            final List<CompletableFuture<DomainParticipant>> opening = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                final WeftConfig c = config.forMember(i);
                opening.add(Async.open(() -> DomainParticipant.open(c)));
            }
            for (final CompletableFuture<DomainParticipant> f : opening)
            {
                participants.add(f.get(60, TimeUnit.SECONDS));
            }
            final TopicConfig alarms = new TopicConfig("alarms", 7, QosLevel.LOGGED_STORAGE, List.of(0, 1), List.of(),
                32, 64, 1);
            final TopicConfig status = new TopicConfig("status", 8, QosLevel.VOLATILE_STORAGE, List.of(2), List.of(),
                32, 64, 4);
            final Topic<String> a = participants.get(1).createTopic(alarms, Codecs.utf8(), Duration.ofSeconds(20));
            final Topic<String> s = participants.get(2).createTopic(status, Codecs.utf8(), Duration.ofSeconds(20));
            assertEquals(QosLevel.LOGGED_STORAGE, a.qos());
            for (final DomainParticipant p : participants)
            {
                await(() -> p.topics().equals(List.of("configured", "alarms", "status")), "topics at " +
                    p.group().memberId() + ": " + p.topics());
            }
            assertEquals(7, participants.get(0).topic("alarms", Codecs.utf8()).id(), "known by name everywhere");

            final DataWriter<String> w0 = participants.get(0).createWriter(participants.get(0).topic("alarms",
                Codecs.utf8()));
            final DataWriter<String> w1 = participants.get(1).createWriter(a);
            final DataWriter<String> w2 = participants.get(2).createWriter(s);
            for (int i = 0; i < 50; i++)
            {
                w0.write("a0-" + i);
                w1.write("a1-" + i);
                w2.write("s-" + i);
            }
            assertTrue(w0.awaitDurable(Duration.ofSeconds(20)) && w1.awaitDurable(Duration.ofSeconds(20)),
                "alarms durable at every member");

            // readers created now get the log and the history first
            final List<List<String>> alarmsRead = new ArrayList<>();
            final List<List<String>> statusRead = new ArrayList<>();
            for (final DomainParticipant p : participants)
            {
                alarmsRead.add(read(p, "alarms"));
                statusRead.add(read(p, "status"));
            }
            for (int m = 0; m < 3; m++)
            {
                final List<String> al = alarmsRead.get(m);
                final List<String> st = statusRead.get(m);
                await(() -> al.size() == 100 && st.size() == 4, "member reads 100 alarms and 4 statuses");
                assertEquals(alarmsRead.get(0), al, "the same alarms in the same order");
                assertEquals(List.of("s-46", "s-47", "s-48", "s-49"), st, "KEEP_LAST 4");
                assertEquals(alarmsRead.get(0), logged(config.forMember(m)), "member " + m + "'s log holds every " +
                    "alarm, in order");
            }

            // repeats return the topic, conflicts and taken numbers are refused
            assertEquals("alarms", participants.get(2).createTopic(alarms, Codecs.utf8(), Duration.ofSeconds(5)).name());
            final IllegalStateException other = assertThrows(IllegalStateException.class, () -> participants.get(0)
                .createTopic(new TopicConfig("alarms", 7, QosLevel.ATOMIC_MULTICAST, List.of(), List.of(), 32, 64, 1),
                Codecs.utf8(), Duration.ofSeconds(5)));
            assertTrue(other.getMessage().contains("another description"), other.getMessage());
            final IllegalStateException number = assertThrows(IllegalStateException.class, () -> participants.get(0)
                .createTopic(new TopicConfig("sirens", 7, QosLevel.UNORDERED, List.of(), List.of(), 32, 64, 1),
                Codecs.utf8(), Duration.ofSeconds(5)));
            assertTrue(number.getMessage().contains("topic number 7"), number.getMessage());

            // two members create different topics with one number at once: the first in the agreed order gets it
            final CompletableFuture<String> left = CompletableFuture.supplyAsync(() -> create(participants.get(0),
                "left-wing", 9));
            final CompletableFuture<String> right = CompletableFuture.supplyAsync(() -> create(participants.get(2),
                "right-wing", 9));
            final List<String> outcomes = List.of(left.get(60, TimeUnit.SECONDS), right.get(60, TimeUnit.SECONDS));
            assertEquals(1, outcomes.stream().filter(o -> o.startsWith("created")).count(), outcomes.toString());
            assertTrue(outcomes.stream().anyMatch(o -> o.contains("topic number 9 is topic")), outcomes.toString());
            final String winner = outcomes.get(0).startsWith("created") ? "left-wing" : "right-wing";
            for (final DomainParticipant p : participants)
            {
                await(() -> p.topics().equals(List.of("configured", "alarms", "status", winner)), "only " + winner +
                    " at " + p.group().memberId() + ": " + p.topics());
            }

            // a later joiner gets the topics with its view, the log and the history by state transfer
            final DomainParticipant joiner = DomainParticipant.join(config.forMember(3));
            participants.add(joiner);
            assertEquals(List.of("configured", "alarms", "status", winner), joiner.topics());
            final List<String> joinerAlarms = read(joiner, "alarms");
            final List<String> joinerStatus = read(joiner, "status");
            await(() -> joinerAlarms.size() == 100 && joinerStatus.size() == 4, "the joiner reads the stored samples");
            assertEquals(alarmsRead.get(0), joinerAlarms);
            assertEquals(statusRead.get(0), joinerStatus);
            w1.write("after-join");
            await(() -> joinerAlarms.size() == 101, "the joiner reads live alarms");
            assertEquals("after-join", joinerAlarms.get(100));

            // member 2 goes away abruptly and comes back with its log on disk: it catches up to the same log
            participants.remove(2).close();
            for (final DomainParticipant p : participants)
            {
                await(() -> p.group().view().members().size() == 3, "member 2 removed at " + p.group().memberId());
            }
            for (int i = 0; i < 20; i++)
            {
                w1.write("while-away-" + i);
            }
            assertTrue(w1.awaitDurable(Duration.ofSeconds(20)), "durable at the three left");
            final DomainParticipant back = DomainParticipant.join(config.forMember(2));
            participants.add(back);
            assertEquals(List.of("configured", "alarms", "status", winner), back.topics());
            final List<String> backAlarms = read(back, "alarms");
            await(() -> backAlarms.size() == 121, "member 2 reads its log and what it missed");
            assertEquals(joinerAlarms.subList(0, 101), backAlarms.subList(0, 101));
            assertEquals("while-away-19", backAlarms.get(120));
            assertEquals(backAlarms, logged(config.forMember(2)), "member 2's log is the group's");
        }
        finally
        {
            participants.forEach(DomainParticipant::close);
        }
    }

    @Test
    void creatingATopicNeedsRuntimeSubgroups() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 1).dds(new DdsConfig(dir, List.of())).build();
        try (Members ignored = new Members(config); DomainParticipant p = DomainParticipant.open(config))
        {
            final IllegalStateException off = assertThrows(IllegalStateException.class, () -> p.createTopic(
                new TopicConfig("late", 1, QosLevel.UNORDERED, List.of(), List.of(), 16, 64, 1), Codecs.utf8(),
                Duration.ofSeconds(5)));
            assertTrue(off.getMessage().contains("weft.membership.runtime-subgroups"), off.getMessage());
        }
    }

    private static String create(final DomainParticipant p, final String name, final int id)
    {
        try
        {
            p.createTopic(new TopicConfig(name, id, QosLevel.ATOMIC_MULTICAST, List.of(), List.of(), 16, 64, 1),
                Codecs.utf8(), Duration.ofSeconds(20));
            return "created " + name;
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

    private static List<String> logged(final WeftConfig member)
    {
        try (SampleLog log = SampleLog.openReadOnly(DomainParticipant.logDirectory(member, "alarms")))
        {
            final List<String> logged = new ArrayList<>();
            log.read(0, e -> logged.add(new String(e.payload(), java.nio.charset.StandardCharsets.UTF_8)));
            return logged;
        }
    }

    private static List<String> read(final DomainParticipant p, final String topic)
    {
        final List<String> seen = new CopyOnWriteArrayList<>();
        p.createReader(p.topic(topic, Codecs.utf8()), (sample, info) -> seen.add(sample));
        return seen;
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting: " + what);
            }
            Thread.sleep(10);
        }
    }
}

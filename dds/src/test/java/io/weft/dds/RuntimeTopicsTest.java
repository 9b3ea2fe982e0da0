package io.weft.dds;

import io.weft.config.DdsConfig;
import io.weft.config.MembershipConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
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
import java.util.function.Supplier;

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
        final WeftConfig config = config(4);
        final List<DomainParticipant> participants = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            openThree(config, participants);
            final TopicConfig alarms = new TopicConfig("alarms", 7, QosLevel.LOGGED_STORAGE, List.of(0, 1), List.of(),
                32, 64, 1);
            final TopicConfig status = new TopicConfig("status", 8, QosLevel.VOLATILE_STORAGE, List.of(2), List.of(),
                32, 64, 4);
            final Topic<String> a = participants.get(1).createTopic(alarms, Codecs.utf8(), Duration.ofSeconds(20));
            final Topic<String> s = participants.get(2).createTopic(status, Codecs.utf8(), Duration.ofSeconds(20));
            assertEquals(QosLevel.LOGGED_STORAGE, a.qos());
            for (final DomainParticipant p : participants)
            {
                Await.until(() -> p.topics().equals(List.of("configured", "alarms", "status")), "topics at " +
                    p.group().memberId() + ": " + p.topics());
            }
            assertEquals(7, participants.get(0).topic("alarms", Codecs.utf8()).id(), "known by name everywhere");

            final DataWriter<String> w0 = participants.get(0).createWriter(participants.get(0).topic("alarms",
                Codecs.utf8()));
            final DataWriter<String> w1 = participants.get(1).createWriter(a);
            final DataWriter<String> w2 = participants.get(2).createWriter(s);
            final List<List<String>> statusLive = new ArrayList<>(); // readers from before the first status
            for (final DomainParticipant p : participants)
            {
                statusLive.add(read(p, "status"));
            }
            List<String> midStream = null; // a reader created while the statuses flow: history, then live
            for (int i = 0; i < 50; i++)
            {
                w0.write("a0-" + i);
                w1.write("a1-" + i);
                w2.write("s-" + i);
                if (i == 25)
                {
                    midStream = read(participants.get(0), "status");
                }
            }
            assertTrue(w0.awaitDurable(Duration.ofSeconds(20)) && w1.awaitDurable(Duration.ofSeconds(20)),
                "alarms durable at every member");
            final List<String> allStatuses = new ArrayList<>();
            for (int i = 0; i < 50; i++)
            {
                allStatuses.add("s-" + i);
            }
            for (final List<String> live : statusLive)
            {
                Await.until(() -> live.size() >= 50, () -> "every status delivered: " + live.size());
                assertEquals(allStatuses, live, "every status once, in order");
            }
            final List<String> mid = midStream;
            final int first = allStatuses.indexOf(mid.getFirst());
            assertEquals(allStatuses.subList(first, 50), mid, "a reader created mid-stream: its history then the " +
                "live samples, without a gap or a repeat");
            assertTrue(mid.size() >= 24, "it has the history of 4 and the 24 written after it: " + mid);

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
                final int member = m;
                Await.until(() -> al.size() == 100 && st.size() == 4,
                    () -> "member " + member + " reads 100 alarms and 4 statuses: " + al.size() + " and " + st);
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
                Await.until(() -> p.topics().equals(List.of("configured", "alarms", "status", winner)),
                    () -> "only " + winner + " at " + p.group().memberId() + ": " + p.topics());
            }

            // a later joiner gets the topics with its view, the log and the history by state transfer
            final DomainParticipant joiner = DomainParticipant.join(config.forMember(3));
            participants.add(joiner);
            assertEquals(List.of("configured", "alarms", "status", winner), joiner.topics());
            final List<String> joinerAlarms = read(joiner, "alarms");
            final List<String> joinerStatus = read(joiner, "status");
            Await.until(() -> joinerAlarms.size() == 100 && joinerStatus.size() == 4,
                "the joiner reads the stored samples");
            assertEquals(alarmsRead.get(0), joinerAlarms);
            assertEquals(statusRead.get(0), joinerStatus);
            w1.write("after-join");
            Await.until(() -> joinerAlarms.size() == 101, "the joiner reads live alarms");
            assertEquals("after-join", joinerAlarms.get(100));

            // member 2 goes away abruptly and comes back with its log on disk: it catches up to the same log
            participants.remove(2).close();
            for (final DomainParticipant p : participants)
            {
                Await.until(() -> p.group().view().members().size() == 3, "member 2 removed at " +
                    p.group().memberId());
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
            Await.until(() -> backAlarms.size() == 121, "member 2 reads its log and what it missed");
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
    void aDeletedTopicEndsEverywhereAfterTheSameSamplesKeepsItsLogAsideAndItsNameServesAgain() throws Exception
    {
        final WeftConfig config = config(3);
        final List<DomainParticipant> participants = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            openThree(config, participants);
            final TopicConfig alarms = new TopicConfig("alarms", 7, QosLevel.LOGGED_STORAGE, List.of(), List.of(),
                32, 64, 1);
            final Topic<String> a = participants.get(0).createTopic(alarms, Codecs.utf8(), Duration.ofSeconds(20));
            for (final DomainParticipant p : participants)
            {
                Await.until(() -> p.topics().contains("alarms"), "alarms at " + p.group().memberId());
            }
            final DataWriter<String> w0 = participants.get(0).createWriter(a);
            for (int i = 0; i < 50; i++)
            {
                w0.write("old-" + i);
            }
            assertTrue(w0.awaitDurable(Duration.ofSeconds(20)), "durable at every member");

            // member 2 goes away with the old log on disk; the topic is deleted while it is away
            participants.remove(2).close();
            for (final DomainParticipant p : participants)
            {
                Await.until(() -> p.group().view().members().size() == 2, "member 2 removed at " +
                    p.group().memberId());
            }
            final List<CompletableFuture<List<String>>> iterated = new ArrayList<>();
            final List<CompletableFuture<Void>> told = new ArrayList<>();
            for (final DomainParticipant p : participants)
            {
                final CompletableFuture<Void> deleted = new CompletableFuture<>();
                p.createReader(p.topic("alarms", Codecs.utf8()), new SampleListener<>()
                {
                    @Override
                    public void onSample(final String sample, final SampleInfo info)
                    {
                    }

                    @Override
                    public void onTopicDeleted()
                    {
                        deleted.complete(null);
                        // told first: what it throws used to keep the reader below from ending, and the log open
                        throw new IllegalStateException("an application listener that throws on deletion");
                    }
                });
                told.add(deleted);
                final DataReader<String> queue = p.createReader(p.topic("alarms", Codecs.utf8()));
                iterated.add(CompletableFuture.supplyAsync(() ->
                {
                    final List<String> seen = new ArrayList<>();
                    queue.forEach(sample -> seen.add(sample.value())); // ends when the topic is deleted
                    return seen;
                }));
            }
            final SamplePublisher<String> publisher = participants.get(1).createPublisher(participants.get(1)
                .topic("alarms", Codecs.utf8()));
            final CompletableFuture<Long> completed = new CompletableFuture<>();
            publisher.subscribe(new java.util.concurrent.Flow.Subscriber<>()
            {
                private long n;

                @Override
                public void onSubscribe(final java.util.concurrent.Flow.Subscription subscription)
                {
                    subscription.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(final Sample<String> item)
                {
                    n++;
                }

                @Override
                public void onError(final Throwable throwable)
                {
                    completed.completeExceptionally(throwable);
                }

                @Override
                public void onComplete()
                {
                    completed.complete(n);
                }
            });
            w0.write("last");
            participants.get(1).deleteTopic(a, Duration.ofSeconds(20));
            final List<String> expected = new ArrayList<>();
            for (int i = 0; i < 50; i++)
            {
                expected.add("old-" + i);
            }
            expected.add("last");
            for (int m = 0; m < 2; m++)
            {
                final DomainParticipant p = participants.get(m);
                assertEquals(expected, iterated.get(m).get(30, TimeUnit.SECONDS), "member " + m + " read every " +
                    "sample, then the iteration ended");
                told.get(m).get(30, TimeUnit.SECONDS);
                Await.until(() -> !p.topics().contains("alarms"), "alarms gone at " + m);
                assertEquals(List.of(), p.group().meterRegistry().find("weft.dds.samples.delivered")
                    .tag("topic", "alarms").meters(), "the topic's meters are gone");
                final Path grave = graveOf(config.forMember(m));
                assertEquals(expected, logged(grave), "member " + m + "'s log is kept aside");
                final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                    () -> p.topic("alarms", Codecs.utf8()));
                assertTrue(unknown.getMessage().contains("no topic named"), unknown.getMessage());
            }
            assertEquals(51L, completed.get(30, TimeUnit.SECONDS), "the subscriber completed after every sample");
            final IllegalStateException writeAfter = assertThrows(IllegalStateException.class, () -> w0.write("x"));
            assertTrue(writeAfter.getMessage().contains("alarms was deleted"), writeAfter.getMessage());
            final IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> participants.get(0).deleteTopic(a, Duration.ofSeconds(5)));
            assertTrue(twice.getMessage().contains("deleted already"), twice.getMessage());
            final IllegalStateException configured = assertThrows(IllegalStateException.class,
                () -> participants.get(0).deleteTopic(participants.get(0).topic("configured", Codecs.utf8()),
                Duration.ofSeconds(5)));
            assertTrue(configured.getMessage().contains("is configured"), configured.getMessage());

            // the name again: a new topic with an empty log; member 2 comes back with the old log, which it sets aside
            final Topic<String> again = participants.get(1).createTopic(alarms, Codecs.utf8(), Duration.ofSeconds(20));
            final DataWriter<String> w1 = participants.get(1).createWriter(again);
            for (int i = 0; i < 5; i++)
            {
                w1.write("new-" + i);
            }
            assertTrue(w1.awaitDurable(Duration.ofSeconds(20)), "durable at both");
            final DomainParticipant back = DomainParticipant.join(config.forMember(2));
            participants.add(back);
            final List<String> backAlarms = read(back, "alarms");
            Await.until(() -> backAlarms.size() == 5, "member 2 reads the new topic's samples only: " + backAlarms);
            assertEquals(List.of("new-0", "new-1", "new-2", "new-3", "new-4"), backAlarms);
            assertEquals(backAlarms, logged(config.forMember(2)), "member 2's log is the new topic's");
            assertEquals(backAlarms, logged(config.forMember(0)));
            assertEquals(expected.subList(0, 50), logged(graveOf(config.forMember(2))), "its old log is kept aside");
        }
        finally
        {
            participants.forEach(DomainParticipant::close);
        }
    }

    /** A domain of {@code members} (0-2 in view 0) with runtime topics on and one configured topic. */
    private WeftConfig config(final int members)
    {
        return TestGroups.builder(TransportKind.SHM, members)
            .membership(new MembershipConfig(List.of(0, 1, 2), "runtime-topics-test-secret", ViewChangeSends.WAIT,
                Duration.ofSeconds(30), true))
            .dds(new DdsConfig(dir, List.of(new TopicConfig("configured", 1, QosLevel.ATOMIC_MULTICAST, List.of(),
                List.of(), 16, 64, 1)))).build();
    }

    /** Opens the participants of members 0, 1 and 2 at once (view 0 needs them all) into {@code participants}. */
    private static void openThree(final WeftConfig config, final List<DomainParticipant> participants)
        throws Exception
    {
        participants.addAll(Async.openAll(List.of(0, 1, 2).stream()
            .<Supplier<DomainParticipant>>map(i -> () -> DomainParticipant.open(config.forMember(i)))
            .toList()));
    }

    /** The one deleted log of alarms in the member's graveyard. */
    private static Path graveOf(final WeftConfig member) throws java.io.IOException
    {
        final Path graveyard = DomainParticipant.logDirectory(member, "alarms").getParent()
            .resolveSibling("member-" + member.memberId() + ".deleted");
        try (java.util.stream.Stream<Path> graves = java.nio.file.Files.list(graveyard))
        {
            final List<Path> all = graves.toList();
            assertEquals(1, all.size(), all.toString());
            return all.getFirst();
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
        return logged(DomainParticipant.logDirectory(member, "alarms"));
    }

    private static List<String> logged(final Path directory)
    {
        try (SampleLog log = SampleLog.openReadOnly(directory))
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
}

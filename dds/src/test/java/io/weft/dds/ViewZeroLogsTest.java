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
import io.weft.testkit.SmallDisk;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A whole group started again from logs of different sizes (a member was out while the others wrote). View 0 takes
 * no state, so each member went on from its own log: the next sample took a different position at each (10 at one
 * member and 0 at the other, in a two-member run before {@link ViewZeroLogs}), for good. Now a member whose log of a
 * topic is shorter fetches what it lacks from one holding the most, and the next sample takes one position
 * everywhere; without a secret to fetch with, or when logs of one size end differently, every member refuses,
 * naming the sizes or the last entries, and no sample is written.
 */
@Timeout(120)
class ViewZeroLogsTest
{
    private static final String SECRET = "view-zero-logs-test-secret";

    @TempDir
    Path dir;
    /** Three members and one logged topic, "track", that member 0 publishes. */
    private WeftConfig.Builder three;

    @BeforeEach
    void threeMembers()
    {
        three = group(3, List.of(topic("track", 4, 0)));
    }

    @Test
    void aShorterLogFetchesWhatItLacksAndTheNextSampleTakesOnePositionEverywhere() throws Exception
    {
        final WeftConfig all = three.membership(membership(List.of(), SECRET)).build();
        try (Members ignored = new Members(all))
        {
            logsOf30And30And20(all, SECRET);

            // readers created before enable: replayed from the member's log, then (member 2) the entries it fetched
            final List<ConcurrentLinkedQueue<Long>> positions = List.of(new ConcurrentLinkedQueue<>(),
                new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
            final List<DomainParticipant> restarted = Async.openAll(all, m ->
            {
                final DomainParticipant p = DomainParticipant.builder(m).create();
                final ConcurrentLinkedQueue<Long> seen = positions.get(m.memberId());
                p.createReader(p.topic("track", Codecs.utf8()), (sample, info) -> seen.add(info.position()));
                try
                {
                    return p.enable(false);
                }
                catch (final RuntimeException ex)
                {
                    p.close();
                    throw ex;
                }
            });
            for (final DomainParticipant p : restarted)
            {
                assertEquals(0, p.group().view().id(), "no member left or joined: " + p.group().view());
            }
            write(restarted, "track", 0, 1);
            Await.until(() -> positions.stream().allMatch(q -> q.size() >= 31), () -> "positions " + positions);
            for (final ConcurrentLinkedQueue<Long> seen : positions)
            {
                assertEquals(LongStream.range(0, 31).boxed().toList(), List.copyOf(seen), "each position once, in order");
            }
            assertEquals(List.of(31L, 31L, 31L), sizes(all, "track", 3));
        }
    }

    @Test
    void withoutASecretToJoinWithEveryMemberRefusesAndTheStartItNamesGoesOn() throws Exception
    {
        final WeftConfig all = three.membership(membership(List.of(), null)).build();
        try (Members ignored = new Members(all))
        {
            logsOf30And30And20(all, null);
            for (final String refusal : refusals(all, 3))
            {
                assertTrue(refusal.contains("entries by member: {track={0=30, 1=30, 2=20}}") &&
                    refusal.contains("Without weft.membership.secret") && refusal.contains("{track=[0, 1]}"),
                    refusal);
            }
            assertEquals(List.of(30L, 30L, 20L), sizes(all, "track", 3), "nothing written");

            // the start the error describes: members 0 and 1 as view 0, member 2 joins (with a secret)
            final WeftConfig longest = three.membership(membership(List.of(0, 1), SECRET)).build();
            final List<DomainParticipant> restarted = new ArrayList<>(open(longest, List.of(0, 1)));
            restarted.add(DomainParticipant.builder(longest.forMember(2)).join());
            write(restarted, "track", 0, 1);
            assertEquals(List.of(31L, 31L, 31L), sizes(all, "track", 3));
        }
    }

    /**
     * Logs of 20, 30 and 10 entries: members 0 and 2 are both shorter than member 1, and member 0 leads view 0. Both
     * fetch from member 1; every member ends with member 1's log and the next sample.
     */
    @Test
    void twoShorterLogsOneOfThemTheLeaderBothFetchFromTheLongest() throws Exception
    {
        final WeftConfig.Builder group = twoPublishers(3);
        final WeftConfig all = group.membership(membership(List.of(), SECRET)).build();
        try (Members ignored = new Members(all))
        {
            write(Async.openAll(all, member -> DomainParticipant.builder(member).open()), "track", 0, 10);
            write(open(group.membership(membership(List.of(0, 1), SECRET)).build(), List.of(0, 1)), "track", 0, 10);
            write(open(group.membership(membership(List.of(1), SECRET)).build(), List.of(1)), "track", 0, 10);
            assertEquals(List.of(20L, 30L, 10L), sizes(all, "track", 3));
            write(Async.openAll(all, member -> DomainParticipant.builder(member).open()), "track", 1, 1);
            assertEquals(List.of(31L, 31L, 31L), sizes(all, "track", 3));
        }
    }

    /**
     * Member 0 alone wrote one topic, member 1 alone the other: no log is the longest of both, as after a power cut
     * that caught each topic's log thread somewhere else at each member. Each fetches the topic it lacks from the other
     * (before fetching, no member could catch up by joining, and both refused).
     */
    @Test
    void eachMemberFetchesTheTopicWhereItsLogIsShorterFromTheOther() throws Exception
    {
        final WeftConfig.Builder group = group(2, List.of(topic("left", 4, 0), topic("right", 5, 1)));
        final WeftConfig all = group.membership(membership(List.of(), SECRET)).build();
        try (Members ignored = new Members(all))
        {
            write(open(group.membership(membership(List.of(0), SECRET)).build(), List.of(0)), "left", 0, 5);
            write(open(group.membership(membership(List.of(1), SECRET)).build(), List.of(1)), "right", 0, 7);
            assertEquals(List.of(5L, 0L), sizes(all, "left", 2));
            assertEquals(List.of(0L, 7L), sizes(all, "right", 2));
            final List<DomainParticipant> restarted = Async.openAll(all,
                member -> DomainParticipant.builder(member).open());
            final DomainParticipant p = restarted.get(1);
            final DataWriter<String> right = p.createWriter(p.topic("right", Codecs.utf8()));
            right.write("after the restart");
            assertTrue(right.awaitDurable(Duration.ofSeconds(30)), "durable within 30 s");
            write(restarted, "left", 0, 1);
            assertEquals(List.of(6L, 6L), sizes(all, "left", 2));
            assertEquals(List.of(8L, 8L), sizes(all, "right", 2));
            assertEquals(read(all, 0, "left"), read(all, 1, "left"), "one log of left");
            assertEquals(read(all, 0, "right"), read(all, 1, "right"), "one log of right");
        }
    }

    /**
     * Members 0 and 1 write 10 samples together (with member 2, if any), then each alone 5 more as a view 0 of its
     * own: logs of 15 entries that end differently (and 10 at member 2). Before the last entries were compared both
     * went on, each with its own history. Now member 2 fetches from member 0, and every member refuses.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void logsThatEndDifferentlyAreRefusedAtEveryMember(final int members) throws Exception
    {
        final WeftConfig.Builder group = twoPublishers(members);
        final WeftConfig all = group.membership(membership(List.of(), SECRET)).build();
        try (Members ignored = new Members(all))
        {
            endDifferently(group, all);
            final Map<Integer, String> lastCrcs = new TreeMap<>();
            for (int m = 0; m < members; m++)
            {
                try (SampleLog log = SampleLog.open(DomainParticipant.logDirectory(all.forMember(m % 2), "track")))
                {
                    lastCrcs.put(m, String.format("%08x", (int)log.held()[1])); // member 2 gets member 0's
                }
            }
            for (final String refusal : refusals(all, members))
            {
                assertTrue(refusal.contains("members " + lastCrcs.keySet() + " hold logs of 15 entries whose last " +
                    "entries differ (CRC-32C by member: " + lastCrcs + ")") &&
                    refusal.contains("not copies of one history"), refusal);
            }
            assertEquals(Collections.nCopies(members, 15L), sizes(all, "track", members), "no sample written");
            if (members == 3)
            {
                assertEquals(read(all, 0, "track"), read(all, 2, "track"), "member 2 fetched member 0's");
            }
        }
    }

    /**
     * Member 2 fetches 12 MB into a log on a 4 MiB tmpfs: the full disk faults its appends (an {@link Error}). It
     * refuses at once, naming the fetch and the fault, and closes its group; members 0 and 1, whose logs agree, remove
     * it and go on. Before, the error passed the fetch's and the check's failure handling: it reached the caller
     * bare, and member 2's group stayed open, the others waiting for its announcement.
     */
    @Test
    void aFetchIntoAFullDiskIsRefusedAndTheOthersGoOn() throws Exception
    {
        SmallDisk.assumeAvailable();
        final WeftConfig.Builder group = group(3, List.of(new TopicConfig("big", 5, QosLevel.LOGGED_STORAGE,
            List.of(0), List.of(), 16, 65536, 1)));
        final WeftConfig all = group.membership(membership(List.of(), SECRET)).build();
        final Path full = DomainParticipant.logDirectory(all.forMember(2), "big").getParent();
        try (Members ignored = new Members(all))
        {
            final List<DomainParticipant> two = open(group.membership(membership(List.of(0, 1), SECRET)).build(),
                List.of(0, 1));
            try
            {
                final DataWriter<byte[]> w = two.getFirst().createWriter(two.getFirst().topic("big", Codecs.bytes()));
                for (int i = 0; i < 200; i++)
                {
                    w.write(new byte[60_000]);
                }
                assertTrue(w.awaitDurable(Duration.ofSeconds(30)), "durable within 30 s");
            }
            finally
            {
                two.forEach(DomainParticipant::close);
            }
            try (SmallDisk ignoredDisk = SmallDisk.mount(full, 4))
            {
                final List<CompletableFuture<DomainParticipant>> opening = new ArrayList<>();
                for (int m = 0; m < 3; m++)
                {
                    final WeftConfig member = all.forMember(m);
                    opening.add(Async.open(() -> DomainParticipant.builder(member).open()));
                }
                final ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> opening.get(2).get(60, TimeUnit.SECONDS));
                final String why = String.valueOf(refused.getCause().getMessage());
                assertTrue(why.contains("fetching what this member's logs of [big] lack from member 0 failed: " +
                    "java.io.IOError: java.io.IOException: appending entry ") && why.contains("/member-2/big is full, "),
                    refused.getCause().toString());
                final List<DomainParticipant> on = List.of(opening.get(0).get(60, TimeUnit.SECONDS),
                    opening.get(1).get(60, TimeUnit.SECONDS));
                try
                {
                    Await.until(() -> on.stream().allMatch(p -> p.group().view().members().equals(List.of(0, 1))),
                        "members 0 and 1 remove member 2");
                    final DataWriter<byte[]> w = on.getFirst().createWriter(on.getFirst().topic("big", Codecs.bytes()));
                    w.write(new byte[8]);
                    assertTrue(w.awaitDurable(Duration.ofSeconds(30)), "members 0 and 1 go on");
                }
                finally
                {
                    on.forEach(DomainParticipant::close);
                }
            }
        }
    }

    /** All members write 10 samples, then members 0 and 1 each 5 more alone, each a view 0 of its own. */
    private static void endDifferently(final WeftConfig.Builder group, final WeftConfig all) throws Exception
    {
        write(Async.openAll(all, member -> DomainParticipant.builder(member).open()), "track", 0, 10);
        write(open(group.membership(membership(List.of(0), SECRET)).build(), List.of(0)), "track", 0, 5);
        write(open(group.membership(membership(List.of(1), SECRET)).build(), List.of(1)), "track", 0, 5);
    }

    /** All three write 20 samples, then members 0 and 1 (view 0 without member 2) 10 more. */
    private void logsOf30And30And20(final WeftConfig all, final String secret) throws Exception
    {
        write(Async.openAll(all, member -> DomainParticipant.builder(member).open()), "track", 0, 20);
        write(open(three.membership(membership(List.of(0, 1), secret)).build(), List.of(0, 1)), "track", 0, 10);
        assertEquals(List.of(30L, 30L, 20L), sizes(all, "track", 3));
    }

    private WeftConfig.Builder group(final int members, final List<TopicConfig> topics)
    {
        return TestGroups.builder(TransportKind.SHM, members).dds(new DdsConfig(dir, topics));
    }

    /** {@code members} members and one logged topic, "track", that members 0 and 1 publish. */
    private WeftConfig.Builder twoPublishers(final int members)
    {
        return group(members, List.of(new TopicConfig("track", 4, QosLevel.LOGGED_STORAGE, List.of(0, 1), List.of(),
            16, 64, 1)));
    }

    private static TopicConfig topic(final String name, final int id, final int publisher)
    {
        return new TopicConfig(name, id, QosLevel.LOGGED_STORAGE, List.of(publisher), List.of(), 16, 64, 1);
    }

    private static MembershipConfig membership(final List<Integer> initialView, final String secret)
    {
        return new MembershipConfig(initialView, secret, ViewChangeSends.WAIT, Duration.ofSeconds(30));
    }

    private static List<DomainParticipant> open(final WeftConfig config, final List<Integer> members)
        throws Exception
    {
        return Async.openAll(members.stream().map(config::forMember)
            .map(m -> (Supplier<DomainParticipant>)() -> DomainParticipant.builder(m).open()).toList());
    }

    /** Every member opens as view 0 at once; each must refuse (one that opens is closed): their messages. */
    private static List<String> refusals(final WeftConfig config, final int members) throws Exception
    {
        final List<CompletableFuture<DomainParticipant>> opening = new ArrayList<>();
        for (int m = 0; m < members; m++)
        {
            final WeftConfig member = config.forMember(m);
            opening.add(Async.open(() -> DomainParticipant.builder(member).open()));
        }
        final List<String> refusals = new ArrayList<>();
        for (final CompletableFuture<DomainParticipant> f : opening)
        {
            try
            {
                f.get(60, TimeUnit.SECONDS).close();
            }
            catch (final ExecutionException ex)
            {
                assertInstanceOf(IllegalStateException.class, ex.getCause());
                refusals.add(ex.getCause().getMessage());
            }
        }
        assertEquals(members, refusals.size(), "every member refuses: " + refusals);
        return refusals;
    }

    /** The first participant (a publisher of {@code topic}) writes {@code samples}, waits until durable; all close. */
    private static void write(final List<DomainParticipant> participants, final String topic, final int writer,
        final int samples)
    {
        try
        {
            final DomainParticipant p = participants.get(writer);
            final DataWriter<String> w = p.createWriter(p.topic(topic, Codecs.utf8()));
            for (int i = 0; i < samples; i++)
            {
                w.write("sample " + i);
            }
            assertTrue(w.awaitDurable(Duration.ofSeconds(30)), "durable within 30 s");
        }
        finally
        {
            participants.forEach(DomainParticipant::close);
        }
    }

    /** Member {@code member}'s log of {@code topic}: each entry's position, publisher, time and CRC. */
    private static List<String> read(final WeftConfig config, final int member, final String topic)
    {
        final List<String> entries = new ArrayList<>();
        try (SampleLog log = SampleLog.open(DomainParticipant.logDirectory(config.forMember(member), topic)))
        {
            log.read(0, s -> entries.add(s.position() + "/" + s.publisherId() + "/" + s.sourceNanos() + "/" + s.crc()));
        }
        return entries;
    }

    private static List<Long> sizes(final WeftConfig config, final String topic, final int members)
    {
        final List<Long> sizes = new ArrayList<>();
        for (int m = 0; m < members; m++)
        {
            try (SampleLog log = SampleLog.open(DomainParticipant.logDirectory(config.forMember(m), topic)))
            {
                sizes.add(log.count());
            }
        }
        return sizes;
    }
}

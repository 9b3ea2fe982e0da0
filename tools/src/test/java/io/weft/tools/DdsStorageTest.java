package io.weft.tools;

import io.weft.config.QosLevel;
import io.weft.config.SampleKey;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.testkit.Await;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The storage levels of the DDS layer with real processes: a late joiner gets exactly the volatile history (the last
 * {@code history} samples before its first live one) and then every sample; logged storage loses and duplicates
 * nothing while members are killed with kill -9 at random moments and restarted, 20 times, and at 20 other random
 * moments the durability frontier is within every member's log on disk.
 */
@Timeout(300)
class DdsStorageTest
{
    private static final int HISTORY = 16;
    private static final Pattern WRITTEN = Pattern.compile("member (\\d+): WRITTEN (\\d+) samples");
    private static final Pattern HOLDS =
        Pattern.compile("topic record: state transfer brought \\d+ log entries from position (\\d+); the log holds " +
            "(\\d+)");
    private static final Pattern TRANSFER =
        Pattern.compile("topic record: state transfer brought (\\d+) log entries from position (\\d+)");
    /**
     * A whole line: a member's stdout and stderr share one file, and a log line (which starts with a time, digits)
     * can land inside a stdout line that a full buffer split; CI once read "12951" + "18:..." as 1295118.
     */
    private static final Pattern FRONTIER = Pattern.compile("(?m)^member \\d+: FRONTIER record (\\d+)$");

    @TempDir
    Path dir;

    @Test
    void aLateJoinerGetsTheVolatileHistoryThenEverySample() throws Exception
    {
        final List<TopicConfig> topics = List.of(
            new TopicConfig("engine", 3, QosLevel.VOLATILE_STORAGE, List.of(0, 1), List.of(), 256, 64, HISTORY));
        try (DdsRun run = new DdsRun(TransportKind.TCP, 3, List.of(0, 1), dir, topics))
        {
            for (int id = 0; id < 2; id++)
            {
                run.start(id, false, "--count", "2000", "--rate", "400");
            }
            run.process(0).awaitOutput("member 0: READY", Duration.ofSeconds(60));
            awaitReads(run, "engine", "-0-", 300);
            run.start(2, true, "--count", "0");
            run.process(2).awaitOutput("member 2: READY in view 1", Duration.ofSeconds(60));
            for (int id = 0; id < 2; id++)
            {
                run.process(id).awaitOutput("member " + id + ": READ-ALL", Duration.ofSeconds(90));
            }
            awaitReads(run, "engine", "-2-", -1); // member 2 read up to the last position
            run.endAll();
            final Map<String, List<DdsRun.Read>> reads = run.reads("engine");
            final List<DdsRun.Read> all = only(reads, "-0-");
            final List<DdsRun.Read> joiner = only(reads, "-2-");
            final List<DdsRun.Read> stored = joiner.stream().filter(DdsRun.Read::stored).toList();
            assertEquals(HISTORY, stored.size(), "the joiner got " + stored.size() + " stored samples");
            final long first = joiner.getFirst().position();
            assertTrue(first >= 300 - HISTORY, "joined after 300 samples, history from " + first);
            for (int i = 0; i < joiner.size(); i++)
            {
                final DdsRun.Read r = joiner.get(i);
                assertEquals(i < HISTORY, r.stored(), "stored samples come first, then live ones: " + r);
                assertEquals(all.get((int)(first + i)).sample(), r.sample(), "the joiner's sample at " + (first + i));
            }
            assertEquals(all.size(), first + joiner.size(), "the joiner read up to the last sample");
        }
    }

    /**
     * KEEP_LAST per key with real processes: the key is the publisher's id (the sample's first 4 bytes), so a late
     * joiner gets the last {@code HISTORY} samples of each of the two publishers before its first live sample, in the
     * topic's order, then every later sample.
     */
    @Test
    void aLateJoinerGetsTheLastSamplesOfEveryKey() throws Exception
    {
        final List<TopicConfig> topics = List.of(new TopicConfig("engine", 3, QosLevel.VOLATILE_STORAGE, List.of(0, 1),
            List.of(), 256, 64, HISTORY, new SampleKey(0, 4, 16)));
        try (DdsRun run = new DdsRun(TransportKind.TCP, 3, List.of(0, 1), dir, topics))
        {
            run.start(0, false, "--count", "2000", "--rate", "400");
            run.start(1, false, "--count", "2000", "--rate", "100"); // a slower key: its history reaches further back
            run.process(0).awaitOutput("member 0: READY", Duration.ofSeconds(60));
            awaitReads(run, "engine", "-0-", 400);
            run.start(2, true, "--count", "0");
            run.process(2).awaitOutput("member 2: READY in view 1", Duration.ofSeconds(60));
            awaitReads(run, "engine", "-2-", 2 * HISTORY + 100);
            run.endAll();
            final Map<String, List<DdsRun.Read>> reads = run.reads("engine");
            final List<DdsRun.Read> all = only(reads, "-0-");
            final List<DdsRun.Read> joiner = only(reads, "-2-");
            final List<DdsRun.Read> stored = joiner.stream().filter(DdsRun.Read::stored).map(DdsRun.Read::sample)
                .toList();
            final long firstLive = joiner.stream().filter(r -> !r.stored()).findFirst().orElseThrow().position();
            final List<DdsRun.Read> expected = new ArrayList<>();
            for (final int publisher : List.of(0, 1))
            {
                final List<DdsRun.Read> before = all.stream().filter(r -> r.position() < firstLive &&
                    r.publisher() == publisher).toList();
                expected.addAll(before.subList(Math.max(0, before.size() - HISTORY), before.size()));
            }
            expected.sort(java.util.Comparator.comparingLong(DdsRun.Read::position));
            assertEquals(2 * HISTORY, expected.size(), "both publishers wrote " + HISTORY + " samples before the join");
            assertEquals(expected, stored, "the joiner's history: the last " + HISTORY + " samples of each key");
            final List<DdsRun.Read> live = joiner.stream().filter(r -> !r.stored()).toList();
            final int both = Math.min(live.size(), all.size() - (int)firstLive); // member 0 ended first
            assertTrue(both >= 100, "the joiner and member 0 read " + both + " samples both");
            assertEquals(all.subList((int)firstLive, (int)firstLive + both), live.subList(0, both),
                "then every sample from its first live one, in order");
        }
    }

    /**
     * Three members log a topic two of them publish; 4 times (system property {@code test.weft.kills} for a longer
     * run: {@code ./weft test -pl tools -Dtest=DdsStorageTest -Dtest.weft.kills=200}) a random member is killed with
     * kill -9 at a random moment and restarted (it replays its log, joins and receives the rest). At the end every member's log holds
     * the same samples, each (publisher, process, counter) once, every process's samples a gap-free prefix of what
     * it wrote, and everything the publishers alive at the end wrote.
     */
    @Test
    void loggedStorageLosesAndDuplicatesNothingAcrossRepeatedKills() throws Exception
    {
        final List<TopicConfig> topics = List.of(
            new TopicConfig("record", 4, QosLevel.LOGGED_STORAGE, List.of(0, 1), List.of(), 256, 64, HISTORY));
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        try (DdsRun run = new DdsRun(TransportKind.TCP, 3, List.of(), dir, topics))
        {
            for (int id = 0; id < 3; id++)
            {
                run.start(id, false, "--count", "10000000", "--rate", "300");
            }
            for (int id = 0; id < 3; id++)
            {
                run.process(id).awaitOutput("member " + id + ": READY", Duration.ofSeconds(60));
            }
            run.log(0, "record"); // the first read of a queue in this JVM is slow; not while the group is frozen
            final List<Integer> kills = new ArrayList<>();
            final List<Long> frontiers = new ArrayList<>();
            final List<Long> transferred = new ArrayList<>(); // log entries each restarted member received
            final int rounds = Integer.getInteger("test.weft.kills", 4);
            for (int k = 0; k < rounds; k++)
            {
                TimeUnit.MILLISECONDS.sleep(200 + random.nextInt(1300));
                frontiers.add(frontierWithinEveryLog(run, seed));
                final int victim = random.nextInt(3);
                kills.add(victim);
                run.kill(victim);
                run.start(victim, true, "--count", "10000000", "--rate", "300");
                run.process(victim).awaitOutput("member " + victim + ": READY", Duration.ofSeconds(60));
                final Matcher t = TRANSFER.matcher(run.process(victim).output());
                assertTrue(t.find(), "no state transfer line:\n" + run.process(victim).output());
                assertTrue(Long.parseLong(t.group(2)) > 0, "the restarted member had a log, yet it received the whole " +
                    "log again: " + t.group());
                transferred.add(Long.parseLong(t.group(1)));
            }
            for (int id = 0; id < 3; id++)
            {
                run.command(id, "stop");
            }
            final Map<String, Long> written = new HashMap<>();
            for (int id = 0; id < 2; id++)
            {
                run.awaitOutput(id, "member " + id + ": DURABLE record true", Duration.ofSeconds(60));
                final Matcher m = WRITTEN.matcher(run.process(id).output());
                assertTrue(m.find(), run.process(id).output());
                written.put(id + "/" + run.process(id).pid(), Long.parseLong(m.group(2)));
            }
            run.endAll();
            final List<DdsRun.Read> log = run.log(0, "record");
            for (int id = 1; id < 3; id++)
            {
                assertEquals(log, run.log(id, "record"), "seed " + seed + ", kills " + kills + ": member " + id +
                    "'s log differs from member 0's");
            }
            final Set<String> seen = new HashSet<>();
            final Map<String, Long> next = new HashMap<>();
            for (int i = 0; i < log.size(); i++)
            {
                final DdsRun.Read r = log.get(i);
                final String process = r.publisher() + "/" + r.incarnation();
                assertEquals(i, r.position(), "positions are the log's order");
                assertTrue(seen.add(process + "/" + r.counter()), "seed " + seed + ": duplicated " + r);
                assertEquals(next.getOrDefault(process, 0L), r.counter(), "seed " + seed + ": a gap before " + r);
                next.put(process, r.counter() + 1);
            }
            written.forEach((process, count) -> assertEquals(count, next.getOrDefault(process, 0L),
                "seed " + seed + ": publisher process " + process + " wrote " + count + " samples, the log holds " +
                next.getOrDefault(process, 0L)));
            assertTrue(frontiers.getLast() > frontiers.getFirst(), "the frontier moved: " + frontiers);
            System.out.printf("kills %s: %d samples in every log, %d publisher processes; frontiers checked against " +
                "the logs on disk: %s; log entries sent to each restarted member (only what it lacked): %s%n", kills,
                log.size(), next.size(), frontiers, transferred);
        }
    }

    /**
     * Five members started again from their logs; member 4's is short, and the holder it fetches from, member 0, is
     * killed with kill -9 during the fetch. Member 4's fetch fails; members 1-3 (a majority) install view 1 without
     * member 0 (and without member 4, unless it acknowledged that change before it exited), where the topic has no
     * sender (member 0 is its only one) and its subgroup no longer runs: they can no longer agree on their logs, and
     * refuse at once, naming the sender that left.
     * Before, they waited for the announcements of members that were gone until the connect timeout (30 s), then
     * refused with "did not compare their logs within 30000 ms".
     */
    @Test
    void aHolderKilledWhileAnotherFetchesFromItIsRefusedAtOnce() throws Exception
    {
        final List<TopicConfig> topics = List.of(new TopicConfig("big", 5, QosLevel.LOGGED_STORAGE, List.of(0),
            List.of(), 16, 65536, 1));
        try (DdsRun run = new DdsRun(TransportKind.TCP, 5, List.of(), dir, topics))
        {
            for (int id = 0; id < 5; id++)
            {
                run.start(id, false, "--count", "1000", "--rate", "500", "--size", "60000");
            }
            for (int id = 0; id < 5; id++)
            {
                run.process(id).awaitOutput("member " + id + ": READY", Duration.ofSeconds(60));
            }
            run.kill(4); // its log holds what it received by now: a few entries, or none
            run.awaitOutput(0, "member 0: DURABLE big true", Duration.ofSeconds(120));
            for (int id = 0; id < 4; id++)
            {
                run.kill(id); // members 0-3 hold 1,000 entries of 60 KB
            }
            assertTrue(run.log(4, "big").size() < 1_000, "member 4 missed writes");

            for (int id = 0; id < 5; id++)
            {
                run.start(id, false, "--count", "0");
            }
            run.awaitOutput(0, "fetches state", Duration.ofSeconds(60));
            run.kill(0);
            // Member 4 exits once its fetch fails: the view that leaves member 0 out may still hold member 4
            // ("view 1 [1, 2, 3, 4] failed [0]") if member 4 acknowledged that change before it exited.
            final Pattern refusal = Pattern.compile("topic big: view \\d+ \\[[1-4, ]+] failed \\[[0-4, ]+] holds " +
                "none of its senders \\[0]");
            int named = 0;
            final StringBuilder outputs = new StringBuilder();
            for (int id = 1; id < 5; id++)
            {
                final int code = run.process(id).awaitExit(Duration.ofSeconds(60));
                final String out = run.process(id).output();
                assertTrue(code != 0, "member " + id + " refuses:\n" + out);
                assertFalse(out.contains("did not compare their logs within"), out);
                named += refusal.matcher(out).find() ? 1 : 0;
                outputs.append("member ").append(id).append(":\n").append(out);
            }
            // the others may find a minority first
            assertTrue(named >= 1, "a member names the sender that left:\n" + outputs);
            assertTrue(run.process(4).output().contains("fetching what this member's logs of [big] lack from " +
                "member 0 failed"), run.process(4).output());
        }
    }

    /**
     * The whole group killed with kill -9 (member 2 first, while the others go on writing) and started again, every
     * member as view 0. Member 2's log is shorter: it fetches the entries it lacks from a member holding the most
     * before any sample is written (before {@code ViewZeroLogs} each member went on from its own log, and one sample
     * took different positions). Every member ends with the longest log before the restart followed by what was
     * written after, each sample once.
     */
    @Test
    void aWholeGroupKilledAtOnceStartsAgainFromItsLongestLog() throws Exception
    {
        final List<TopicConfig> topics = List.of(
            new TopicConfig("record", 4, QosLevel.LOGGED_STORAGE, List.of(0, 1), List.of(), 256, 64, HISTORY));
        try (DdsRun run = new DdsRun(TransportKind.TCP, 3, List.of(), dir, topics))
        {
            for (int id = 0; id < 3; id++)
            {
                run.start(id, false, "--count", "10000000", "--rate", "300");
            }
            for (int id = 0; id < 3; id++)
            {
                run.process(id).awaitOutput("member " + id + ": READY", Duration.ofSeconds(60));
            }
            Await.until(() -> run.log(2, "record").size() >= 200, "200 entries in member 2's log");
            run.kill(2);
            final int killedAt = run.log(2, "record").size();
            Await.until(() -> run.log(0, "record").size() >= killedAt + 200 &&
                run.log(1, "record").size() >= killedAt + 200, "200 more entries at members 0 and 1");
            run.kill(0);
            run.kill(1);
            final List<List<DdsRun.Read>> before = List.of(run.log(0, "record"), run.log(1, "record"),
                run.log(2, "record"));
            final List<DdsRun.Read> longest = before.stream().max(java.util.Comparator.comparingInt(List::size))
                .orElseThrow();
            for (final List<DdsRun.Read> log : before)
            {
                assertEquals(longest.subList(0, log.size()), log, "every log a prefix of the longest");
            }

            for (int id = 0; id < 3; id++)
            {
                run.start(id, false, "--count", "300", "--rate", "300");
            }
            for (int id = 0; id < 3; id++)
            {
                run.process(id).awaitOutput("member " + id + ": READY", Duration.ofSeconds(60));
            }
            assertTrue(run.process(2).output().contains("member 2 fetched what its logs of [record] lacked"),
                run.process(2).output());
            final Matcher t = HOLDS.matcher(run.process(2).output());
            final List<long[]> transfers = new ArrayList<>(); // from, then what the log holds
            while (t.find())
            {
                transfers.add(new long[] {Long.parseLong(t.group(1)), Long.parseLong(t.group(2))});
            }
            assertEquals(1, transfers.size(), "one fetch:\n" + run.process(2).output());
            assertEquals(killedAt, transfers.getFirst()[0], "member 2 received what its log lacked, not all of it");
            assertEquals(longest.size(), transfers.getFirst()[1], "member 2's log then holds the longest");
            for (int id = 0; id < 2; id++)
            {
                run.awaitOutput(id, "member " + id + ": DURABLE record true", Duration.ofSeconds(60));
            }
            for (int id = 0; id < 3; id++)
            {
                run.command(id, "stop"); // the last to end is alone: it must not ask its stopped group for frontiers
            }
            run.endAll();
            final List<DdsRun.Read> log = run.log(0, "record");
            for (int id = 1; id < 3; id++)
            {
                assertEquals(log, run.log(id, "record"), "member " + id + "'s log differs from member 0's");
            }
            assertEquals(longest, log.subList(0, longest.size()), "the longest log before the restart comes first");
            assertEquals(longest.size() + 600, log.size(), "then the 300 samples of each publisher");
            for (int i = 0; i < log.size(); i++)
            {
                assertEquals(i, log.get(i).position(), "positions are the log's order");
            }
            System.out.printf("logs before the restart: %d, %d, %d entries; member 2 fetched %d; %d after the run%n",
                before.get(0).size(), before.get(1).size(), before.get(2).size(), longest.size() - killedAt,
                log.size());
        }
    }

    /**
     * A log larger than every member's heap (-Xmx64m) reaches a joiner whole: the donor writes it as it reads it,
     * in authenticated chunks, and the joiner appends each batch as it arrives (it used to travel as one message
     * built in memory at both ends, so a log past the heap, or past 1 GiB, could not reach a joiner at all).
     * Long ({@code ./weft test -Plong}): CI's joiners receive small logs through the same chunks.
     */
    @Test
    @Tag("long")
    void aJoinerGetsALogLargerThanEveryHeap() throws Exception
    {
        final int heapMiB = 64;
        final int samples = 1600; // of 64 KiB: 100 MiB (fewer: each member writes it to disk, CI's may be slow)
        final List<TopicConfig> topics = List.of(
            new TopicConfig("record", 4, QosLevel.LOGGED_STORAGE, List.of(0), List.of(), 16, 65536, HISTORY));
        try (DdsRun run = new DdsRun(TransportKind.TCP, 3, List.of(0, 1), dir, topics))
        {
            run.startWithHeap(heapMiB, 0, false, "--count", String.valueOf(samples), "--rate", "0", "--size",
                "65536");
            run.startWithHeap(heapMiB, 1, false, "--count", "0");
            run.awaitOutput(0, "member 0: DURABLE record true", Duration.ofSeconds(120));
            run.startWithHeap(heapMiB, 2, true, "--count", "0");
            run.process(2).awaitOutput("member 2: READY in view 1", Duration.ofSeconds(120));
            final Matcher t = TRANSFER.matcher(run.process(2).output());
            assertTrue(t.find(), "no state transfer line:\n" + run.process(2).output());
            assertEquals(samples + " 0", t.group(1) + " " + t.group(2), "the joiner, with no log, gets all of it");
            for (int id = 0; id < 3; id++)
            {
                run.command(id, "stop"); // the last to end is alone: it must not ask its stopped group for frontiers
            }
            run.endAll();
            final List<DdsRun.Read> log = run.log(0, "record");
            assertEquals(samples, log.size());
            assertEquals(log, run.log(2, "record"), "the joiner's log is the donor's");
        }
    }

    /**
     * Freezes every member (SIGSTOP), then checks that the highest durability frontier any of them printed is within
     * the log on disk of every member, and resumes them. Logs only grow, so a frontier printed before the freeze that
     * passes a log read during it was false when printed.
     */
    private static long frontierWithinEveryLog(final DdsRun run, final long seed) throws Exception
    {
        for (int id = 0; id < 3; id++)
        {
            run.process(id).signal("STOP");
        }
        try
        {
            long frontier = 0;
            for (int id = 0; id < 3; id++)
            {
                final Matcher m = FRONTIER.matcher(run.process(id).output());
                while (m.find())
                {
                    frontier = Math.max(frontier, Long.parseLong(m.group(1)));
                }
            }
            for (int id = 0; id < 3; id++)
            {
                final int logged = run.log(id, "record").size();
                assertTrue(logged >= frontier, "seed " + seed + ": a member printed the durability frontier " +
                    frontier + ", member " + id + "'s log holds only " + logged);
            }
            return frontier;
        }
        finally
        {
            for (int id = 0; id < 3; id++)
            {
                run.process(id).signal("CONT");
            }
        }
    }

    private static List<DdsRun.Read> only(final Map<String, List<DdsRun.Read>> reads, final String member)
    {
        final List<List<DdsRun.Read>> matching = reads.entrySet().stream().filter(e -> e.getKey().contains(member))
            .map(Map.Entry::getValue).toList();
        assertEquals(1, matching.size(), member + " in " + reads.keySet());
        return matching.getFirst();
    }

    /** Waits until a member's read log has {@code count} lines (-1: as many as member 0's, which is complete). */
    private static void awaitReads(final DdsRun run, final String topic, final String member, final int count)
        throws Exception
    {
        Await.until(() ->
        {
            final Map<String, List<DdsRun.Read>> reads;
            try
            {
                reads = run.reads(topic);
            }
            catch (final java.io.IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
            final List<DdsRun.Read> mine = reads.entrySet().stream().filter(e -> e.getKey().contains(member))
                .map(Map.Entry::getValue).findFirst().orElse(List.of());
            final long target = count >= 0 ? count : only(reads, "-0-").getLast().position();
            return !mine.isEmpty() && (count >= 0 ? mine.size() >= count : mine.getLast().position() >= target);
        }, Duration.ofSeconds(60), Duration.ofMillis(50),
            () -> member + " to read " + (count >= 0 ? count + " samples" : "as far as member 0") + " of " + topic);
    }
}

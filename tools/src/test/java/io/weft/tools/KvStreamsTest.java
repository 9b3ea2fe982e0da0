package io.weft.tools;

import io.weft.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XAutoClaimParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntry;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Streams with three member processes and Jedis clients, as an event log uses them: producers at two members add
 * entries with {@code *} IDs while readers at two members wait in XREAD BLOCK, and every reader and every member holds
 * one log, in one order, with the same IDs; a reader waiting for {@code $} gets the next entry added at another member;
 * a member killed with kill -9 gets the stream back when it joins again, and the whole group killed gets it back from
 * its logs, each ready to add after the last ID given (docs/kv.md, Streams).
 */
@Timeout(180)
class KvStreamsTest
{
    private static final int PER_PRODUCER = 300;

    @TempDir
    Path dir;

    @Test
    void producersAndWaitingReadersAtEveryMemberShareOneLog() throws Exception
    {
        try (KvProcesses kv = new KvProcesses(dir, 3, "linearizable", dir.resolve("logs")))
        {
            final List<ConcurrentLinkedQueue<StreamEntry>> read = List.of(new ConcurrentLinkedQueue<>(),
                new ConcurrentLinkedQueue<>());
            final List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++)
            {
                final int member = r + 1;
                final ConcurrentLinkedQueue<StreamEntry> into = read.get(r);
                readers.add(Thread.ofPlatform().name("reader-" + member).start(() -> readAll(kv, member, into)));
            }
            final List<Thread> producers = new ArrayList<>();
            for (final int member : new int[] {0, 2})
            {
                producers.add(Thread.ofPlatform().name("producer-" + member).start(() ->
                {
                    try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member)))
                    {
                        for (int i = 0; i < PER_PRODUCER; i++)
                        {
                            j.xadd("events", StreamEntryID.NEW_ENTRY, Map.of("from", "p" + member, "n", "" + i));
                        }
                    }
                }));
            }
            for (final Thread t : producers)
            {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(t.isAlive(), t.getName() + " added its entries");
            }
            for (final Thread t : readers)
            {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(t.isAlive(), t.getName() + " read every entry");
            }
            final List<String> log = logAt(kv, 0);
            assertEquals(2 * PER_PRODUCER, log.size());
            for (int i = 1; i < log.size(); i++)
            {
                assertTrue(id(log.get(i)).compareTo(id(log.get(i - 1))) > 0, "IDs grow at " + i);
            }
            for (final String producer : List.of("p0", "p2"))
            {
                final List<String> sent = read.get(0).stream().filter(e -> e.getFields().get("from").equals(producer))
                    .map(e -> e.getFields().get("n")).toList();
                assertEquals(PER_PRODUCER, sent.size());
                for (int i = 0; i < PER_PRODUCER; i++)
                {
                    assertEquals("" + i, sent.get(i), producer + "'s entries in the order it added them");
                }
            }
            assertEquals(log, logAt(kv, 1), "member 1 holds the same log");
            assertEquals(log, logAt(kv, 2), "member 2 holds the same log");
            assertEquals(log, texts(List.copyOf(read.get(0))), "the reader at member 1 read the log in its order");
            assertEquals(log, texts(List.copyOf(read.get(1))), "the reader at member 2 read the log in its order");

            // a reader waiting for $ at member 1 gets the next entry, added at member 0, and that one alone
            try (Jedis waiter = new Jedis("127.0.0.1", kv.ports.get(1), 60_000);
                 Jedis producer = new Jedis("127.0.0.1", kv.ports.get(0)))
            {
                final ConcurrentLinkedQueue<StreamEntry> next = new ConcurrentLinkedQueue<>();
                final Thread waiting = Thread.ofPlatform().start(() -> waiter.xread(
                    XReadParams.xReadParams().block(0), Map.of("events", StreamEntryID.XREAD_NEW_ENTRY))
                    .forEach(stream -> next.addAll(stream.getValue())));
                Await.until(() -> infoAt(kv, 1).contains("blocked_clients:1"), () -> infoAt(kv, 1));
                final StreamEntryID added = producer.xadd("events", StreamEntryID.NEW_ENTRY, Map.of("last", "1"));
                waiting.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(waiting.isAlive(), "the entry ended the wait");
                assertEquals(List.of(added), next.stream().map(StreamEntry::getID).toList());
                assertEquals(2 * PER_PRODUCER + 1, producer.xlen("events"));
                producer.xadd("trimmed", XAddParams.xAddParams().id("5-1").maxLen(1), Map.of("a", "1"));
                producer.xadd("trimmed", XAddParams.xAddParams().id("5-2").maxLen(1), Map.of("b", "2"));
                producer.xdel("trimmed", new StreamEntryID(5, 2)); // no entries left; its last ID stays 5-2
            }

            kv.get(2).kill();
            kv.start(2, true);
            kv.awaitServing(2);
            final List<String> before = logAt(kv, 0);
            assertEquals(before, logAt(kv, 2), "member 2 got the stream when it joined again");
            kv.killAllAndColdStart();
            for (int member = 0; member < 3; member++)
            {
                assertEquals(before, logAt(kv, member), "member " + member + " got the stream from its log");
                try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member)))
                {
                    assertEquals(0, j.xlen("trimmed"));
                    assertEquals("stream", j.type("trimmed"), "a stream with no entries stays");
                }
            }
            try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(1)))
            {
                assertEquals("5-3", new String((byte[])j.sendCommand(Protocol.Command.XADD, "trimmed", "5-*", "c", "3"),
                    StandardCharsets.UTF_8), "the last ID given came back with the stream");
            }
        }
    }

    /**
     * A consumer group with a worker at each member: workers wait in XREADGROUP BLOCK with {@code >} and acknowledge
     * what they get while a producer adds 300 jobs at member 0; every job reaches one worker once, nothing stays
     * pending, and every member answers the same XINFO GROUPS. A worker that got jobs and did not acknowledge them
     * (its member killed with kill -9 and joined again) leaves them pending, and XAUTOCLAIM at another member gives
     * them to another consumer.
     */
    @Test
    void aConsumerGroupWithAWorkerAtEveryMemberDeliversEachJobOnce() throws Exception
    {
        final int jobs = 300;
        try (KvProcesses kv = new KvProcesses(dir, 3, "linearizable");
             Jedis producer = new Jedis("127.0.0.1", kv.ports.get(0)))
        {
            assertEquals("OK", producer.xgroupCreate("jobs", "workers", new StreamEntryID(0, 0), true));
            final ConcurrentLinkedQueue<String> done = new ConcurrentLinkedQueue<>();
            final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            final List<Thread> workers = new ArrayList<>();
            for (int member = 0; member < 3; member++)
            {
                final int at = member;
                workers.add(Thread.ofPlatform().name("worker-" + at).start(() ->
                {
                    try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(at), 60_000))
                    {
                        while (!stop.get())
                        {
                            final List<Map.Entry<String, List<StreamEntry>>> got = j.xreadGroup("workers",
                                "worker-" + at, XReadGroupParams.xReadGroupParams().count(10).block(500),
                                Map.of("jobs", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
                            for (final StreamEntry e : got == null ? List.<StreamEntry>of() : got.getFirst().getValue())
                            {
                                done.add(e.getFields().get("job"));
                                j.xack("jobs", "workers", e.getID());
                            }
                        }
                    }
                }));
            }
            for (int i = 0; i < jobs; i++)
            {
                producer.xadd("jobs", StreamEntryID.NEW_ENTRY, Map.of("job", "" + i));
            }
            Await.until(() -> done.size() >= jobs, () -> done.size() + " of " + jobs + " jobs done");
            stop.set(true);
            for (final Thread t : workers)
            {
                t.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(t.isAlive(), t.getName() + " stopped");
            }
            assertEquals(jobs, done.size(), "no job twice");
            assertEquals(jobs, new java.util.HashSet<>(done).size(), "every job once");
            assertEquals(0, producer.xpending("jobs", "workers").getTotal(), "nothing pending");
            final String groups = groupsAt(kv, 0);
            assertTrue(groups.contains("entries-read, " + jobs + ", lag, 0"), groups);
            assertEquals(groups, groupsAt(kv, 1));
            assertEquals(groups, groupsAt(kv, 2));

            // jobs a worker got and never acknowledged stay pending across a kill -9 and a join, and another takes them
            producer.xadd("jobs", StreamEntryID.NEW_ENTRY, Map.of("job", "late-1"));
            producer.xadd("jobs", StreamEntryID.NEW_ENTRY, Map.of("job", "late-2"));
            try (Jedis crashing = new Jedis("127.0.0.1", kv.ports.get(2)))
            {
                assertEquals(2, crashing.xreadGroup("workers", "crashing", XReadGroupParams.xReadGroupParams(),
                    Map.of("jobs", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY)).getFirst().getValue().size());
            }
            kv.get(2).kill();
            kv.start(2, true);
            kv.awaitServing(2);
            try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(2)))
            {
                assertEquals(Map.of("crashing", 2L), j.xpending("jobs", "workers").getConsumerMessageCount(),
                    "the joined member holds the pending jobs");
            }
            try (Jedis rescuer = new Jedis("127.0.0.1", kv.ports.get(1)))
            {
                final Map.Entry<StreamEntryID, List<StreamEntry>> claimed = rescuer.xautoclaim("jobs", "workers",
                    "rescuer", 0, new StreamEntryID(0, 0), XAutoClaimParams.xAutoClaimParams().count(10));
                assertEquals(List.of("late-1", "late-2"), claimed.getValue().stream().map(e -> e.getFields().get("job"))
                    .toList());
                assertEquals(Map.of("rescuer", 2L), producer.xpending("jobs", "workers").getConsumerMessageCount());
            }
        }
    }

    private static String groupsAt(final KvProcesses kv, final int member)
    {
        try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member)))
        {
            return render(j.sendCommand(Protocol.Command.XINFO, "GROUPS", "jobs"));
        }
    }

    /** A reply of Jedis's raw command: byte arrays as text, lists in brackets. */
    private static String render(final Object reply)
    {
        return reply instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : reply instanceof List<?> l ?
            l.stream().map(KvStreamsTest::render).toList().toString() : String.valueOf(reply);
    }

    /** Reads "events" at {@code member} with XREAD BLOCK from its start until it has every producer's entries. */
    private static void readAll(final KvProcesses kv, final int member, final ConcurrentLinkedQueue<StreamEntry> into)
    {
        try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member), 60_000))
        {
            StreamEntryID after = new StreamEntryID(0, 0);
            while (into.size() < 2 * PER_PRODUCER)
            {
                final List<Map.Entry<String, List<StreamEntry>>> streams = j.xread(
                    XReadParams.xReadParams().count(50).block(10_000), Map.of("events", after));
                for (final Map.Entry<String, List<StreamEntry>> stream : streams == null ? List.<Map.Entry<String,
                    List<StreamEntry>>>of() : streams)
                {
                    into.addAll(stream.getValue());
                    after = stream.getValue().getLast().getID();
                }
            }
        }
    }

    /** The entries of "events" at {@code member}, each as its ID and fields. */
    private static List<String> logAt(final KvProcesses kv, final int member)
    {
        try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member)))
        {
            return texts(j.xrange("events", "-", "+"));
        }
    }

    private static List<String> texts(final List<StreamEntry> entries)
    {
        return entries.stream().map(e -> e.getID() + " " + new java.util.TreeMap<>(e.getFields())).toList();
    }

    private static StreamEntryID id(final String text)
    {
        return new StreamEntryID(text.substring(0, text.indexOf(' ')));
    }

    private static String infoAt(final KvProcesses kv, final int member)
    {
        try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member)))
        {
            return j.info("clients");
        }
    }
}

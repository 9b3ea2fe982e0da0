package io.weft.tools;

import io.weft.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
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

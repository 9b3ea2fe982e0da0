package io.weft.tools;

import io.weft.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.args.SortedSetOption;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The blocking list commands with three member processes and Jedis clients, as a job queue uses them: workers at every
 * member wait in BRPOP while a producer pushes at one, and every job reaches one worker once; a wait ends at its
 * timeout with nil, an item pushed at another member (or a list renamed onto its key) ends it at once, a list made
 * another type in the batch that filled it does not (and leaves the member serving), BLMOVE moves what it waited for,
 * BLMPOP takes up to its count, BZPOPMIN and BZMPOP wait for a sorted set as BLPOP for a list (and neither type ends
 * the other's wait), commands pipelined after a blocking one wait for it, and a client that went while it waited takes
 * nothing (and runs none of them). Before, BLPOP and the others were unknown commands (docs/kv.md, Lists).
 */
@Timeout(180)
class KvBlockingTest
{
    private static final int JOBS = 1_000;

    @TempDir
    Path dir;

    @Test
    void workersAtEveryMemberTakeEachJobOnceAndWaitsEndAsRedisEndsThem() throws Exception
    {
        try (KvProcesses kv = new KvProcesses(dir, 3, "linearizable");
             Jedis producer = new Jedis("127.0.0.1", kv.ports.get(0));
             Jedis waiter = new Jedis("127.0.0.1", kv.ports.get(1)))
        {
            // a wait that nothing ends: nil at its timeout, and nothing left waiting at the member
            final long start = System.nanoTime();
            assertNull(waiter.blpop(0.5, "empty"));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(450), "ended at its timeout");
            assertTrue(waiter.info("clients").contains("blocked_clients:0"), waiter.info("clients"));

            // a push at member 0 ends a wait at member 1 (no timeout), and BLMOVE at member 2 moves the next item
            final AtomicReference<Object> popped = new AtomicReference<>();
            final Thread blpop = Thread.ofPlatform().start(() -> popped.set(waiter.blpop(0, "q")));
            Await.until(() -> producer.info("clients").contains("blocked_clients:0") &&
                infoAt(kv, 1).contains("blocked_clients:1"), () -> "member 1 to hold the wait: " + infoAt(kv, 1));
            producer.rpush("q", "first");
            blpop.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(blpop.isAlive(), "the push ended the wait");
            assertEquals(List.of("q", "first"), popped.get());
            try (Jedis mover = new Jedis("127.0.0.1", kv.ports.get(2)))
            {
                final Thread blmove = Thread.ofPlatform().start(() -> popped.set(
                    mover.blmove("q", "done", ListDirection.LEFT, ListDirection.RIGHT, 0)));
                Await.until(() -> infoAt(kv, 2).contains("blocked_clients:1"), () -> infoAt(kv, 2));
                producer.rpush("q", "second");
                blmove.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(blmove.isAlive(), "the push ended the move's wait");
                assertEquals("second", popped.get());
            }
            assertEquals(List.of("second"), waiter.lrange("done", 0, -1));

            // any write that stores a list ends a wait on its key, a RENAME onto it too
            final Thread renamed = Thread.ofPlatform().start(() -> popped.set(waiter.blpop(0, "target")));
            Await.until(() -> infoAt(kv, 1).contains("blocked_clients:1"), () -> infoAt(kv, 1));
            producer.rpush("source", "moved");
            producer.rename("source", "target");
            renamed.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(renamed.isAlive(), "the RENAME ended the wait");
            assertEquals(List.of("target", "moved"), popped.get());

            // a list filled and made another type in one batch (a transaction) wakes no one, and the member where a
            // client waits on it serves on; a list pushed there later ends the wait
            final Thread retyped = Thread.ofPlatform().start(() -> popped.set(waiter.blpop(0, "retyped")));
            Await.until(() -> infoAt(kv, 1).contains("blocked_clients:1"), () -> infoAt(kv, 1));
            final Transaction t = producer.multi();
            t.rpush("retyped", "x");
            t.set("retyped", "a string");
            assertEquals(List.of(1L, "OK"), t.exec());
            try (Jedis other = new Jedis("127.0.0.1", kv.ports.get(1)))
            {
                assertEquals("a string", other.get("retyped"), "member 1 serves on");
                assertEquals("OK", other.set("after", "1"));
            }
            assertTrue(retyped.isAlive(), "still waiting");
            producer.del("retyped");
            producer.rpush("retyped", "y");
            retyped.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(retyped.isAlive(), "the push ended the wait");
            assertEquals(List.of("retyped", "y"), popped.get());

            // sorted sets: a ZADD at member 0 ends a BZPOPMIN wait at member 1, which takes the lowest member; a sorted
            // set ends no wait for a list (BLPOP at member 2 on the same key waits on, until a list is pushed there)
            final AtomicReference<Object> listWait = new AtomicReference<>();
            try (Jedis listWaiter = new Jedis("127.0.0.1", kv.ports.get(2)))
            {
                final Thread blpopDue = Thread.ofPlatform().start(() -> listWait.set(listWaiter.blpop(0, "due")));
                final Thread bzpop = Thread.ofPlatform().start(() -> popped.set(waiter.bzpopmin(0, "due")));
                Await.until(() -> infoAt(kv, 1).contains("blocked_clients:1") &&
                    infoAt(kv, 2).contains("blocked_clients:1"), () -> infoAt(kv, 1) + infoAt(kv, 2));
                producer.zadd("due", java.util.Map.of("b", 2.0, "a", 1.0));
                bzpop.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(bzpop.isAlive(), "the ZADD ended the wait");
                assertEquals(new KeyValue<>("due", new Tuple("a", 1.0)), popped.get());
                assertTrue(blpopDue.isAlive() && infoAt(kv, 2).contains("blocked_clients:1"), "a list's wait waits on");
                producer.del("due");
                producer.rpush("due", "job");
                blpopDue.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(blpopDue.isAlive(), "the push ended the wait");
                assertEquals(List.of("due", "job"), listWait.get());
            }
            // BZMPOP: from the first of its keys that has members, up to COUNT of them
            final Thread bzmpop = Thread.ofPlatform().start(() -> popped.set(waiter.bzmpop(0, SortedSetOption.MAX, 2,
                "none", "board")));
            Await.until(() -> infoAt(kv, 1).contains("blocked_clients:1"), () -> infoAt(kv, 1));
            producer.zadd("board", java.util.Map.of("p1", 10.0, "p2", 20.0, "p3", 30.0));
            bzmpop.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(bzmpop.isAlive(), "the ZADD ended the wait");
            assertEquals(new KeyValue<>("board", List.of(new Tuple("p3", 30.0), new Tuple("p2", 20.0))), popped.get());

            // BLMPOP: from the first of its keys that has items, up to COUNT of them (before: an unknown command)
            final Thread blmpop = Thread.ofPlatform().start(() -> popped.set(waiter.blmpop(0, ListDirection.RIGHT, 2,
                "none", "batch")));
            Await.until(() -> infoAt(kv, 1).contains("blocked_clients:1"), () -> infoAt(kv, 1));
            producer.rpush("batch", "j1", "j2", "j3");
            blmpop.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(blmpop.isAlive(), "the push ended the wait");
            assertEquals(new KeyValue<>("batch", List.of("j3", "j2")), popped.get());

            // commands pipelined after a blocking one wait for it, as in Redis: the SET applies after the BLPOP took
            // its item (before, it applied in the batch that parked the BLPOP, so member 1 read "1" here at once)
            try (java.net.Socket pipelined = new java.net.Socket("127.0.0.1", kv.ports.get(2)))
            {
                pipelined.setSoTimeout((int)TimeUnit.SECONDS.toMillis(30));
                pipelined.getOutputStream().write(ascii("BLPOP held 0\r\nSET heldset 1\r\nGET heldset\r\n"));
                Await.until(() -> infoAt(kv, 2).contains("blocked_clients:1"), () -> infoAt(kv, 2));
                assertNull(waiter.get("heldset"), "the SET waits for the BLPOP");
                producer.rpush("held", "x");
                final String replies = "*2\r\n$4\r\nheld\r\n$1\r\nx\r\n+OK\r\n$1\r\n1\r\n";
                assertEquals(replies, new String(pipelined.getInputStream().readNBytes(replies.length()),
                    java.nio.charset.StandardCharsets.US_ASCII));
                assertEquals("1", waiter.get("heldset"));
            }

            // a client that goes while it waits takes nothing: the next push stays in the list, and what it pipelined
            // after the BLPOP never runs
            final java.net.Socket gone = new java.net.Socket("127.0.0.1", kv.ports.get(2));
            gone.getOutputStream().write(ascii("BLPOP left 0\r\nSET gone 1\r\n"));
            Await.until(() -> infoAt(kv, 2).contains("blocked_clients:1"), () -> infoAt(kv, 2));
            gone.close();
            Await.until(() -> infoAt(kv, 2).contains("blocked_clients:0"), () -> infoAt(kv, 2));
            producer.rpush("left", "kept");
            assertEquals(List.of("kept"), waiter.lrange("left", 0, -1));
            assertNull(waiter.get("gone"), "held commands of a client gone are dropped");

            // a push of three items wakes the three clients waiting longest at a member, not its ten (a herd): the
            // writes applied are the push, three pops and a SET after them (before: the push, ten pops and the SET)
            final ConcurrentLinkedQueue<List<String>> crowdTook = new ConcurrentLinkedQueue<>();
            final List<Thread> crowd = new ArrayList<>();
            for (int c = 0; c < 10; c++)
            {
                crowd.add(Thread.ofPlatform().start(() ->
                {
                    try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(1)))
                    {
                        crowdTook.add(j.blpop(0, "crowd"));
                    }
                }));
            }
            Await.until(() -> infoAt(kv, 1).contains("blocked_clients:10"), () -> infoAt(kv, 1));
            final long before = writesAt(kv, 1);
            producer.rpush("crowd", "c1", "c2", "c3");
            Await.until(() -> crowdTook.size() == 3, () -> crowdTook + " taken");
            assertEquals("OK", waiter.set("crowdmark", "1"));
            assertEquals(before + 5, writesAt(kv, 1), "the push, three pops and the SET");
            producer.rpush("crowd", "c4", "c5", "c6", "c7", "c8", "c9", "c10");
            for (final Thread c : crowd)
            {
                c.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(c.isAlive(), "every push reached a waiter");
            }
            assertEquals(10, new HashSet<>(crowdTook).size(), crowdTook.toString());

            // a client woken by one key that pops from another of its keys leaves the first one's item to the next
            // waiter: A waits on ka and kb, B on kb; one transaction fills kb then ka; kb wakes A (waiting longest),
            // which pops from ka, its first key; kb's item then wakes B (before, B waited on with kb's item there)
            final AtomicReference<Object> first = new AtomicReference<>();
            final AtomicReference<Object> second = new AtomicReference<>();
            try (Jedis a = new Jedis("127.0.0.1", kv.ports.get(1)); Jedis b = new Jedis("127.0.0.1", kv.ports.get(1)))
            {
                final Thread waitsOnBoth = Thread.ofPlatform().start(() -> first.set(a.blpop(0, "ka", "kb")));
                Await.until(() -> infoAt(kv, 1).contains("blocked_clients:1"), () -> infoAt(kv, 1));
                final Thread waitsOnKb = Thread.ofPlatform().start(() -> second.set(b.blpop(0, "kb")));
                Await.until(() -> infoAt(kv, 1).contains("blocked_clients:2"), () -> infoAt(kv, 1));
                final Transaction both = producer.multi();
                both.rpush("kb", "x");
                both.rpush("ka", "y");
                assertEquals(List.of(1L, 1L), both.exec());
                waitsOnBoth.join(TimeUnit.SECONDS.toMillis(30));
                waitsOnKb.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(waitsOnBoth.isAlive() || waitsOnKb.isAlive(), "both waits ended: " + first + " " + second);
                assertEquals(List.of("ka", "y"), first.get());
                assertEquals(List.of("kb", "x"), second.get());
            }

            // workers at the three members, two each, waiting 0.2 s at a time; one producer
            final AtomicBoolean done = new AtomicBoolean();
            final ConcurrentLinkedQueue<String> taken = new ConcurrentLinkedQueue<>();
            final List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < 6; w++)
            {
                final int port = kv.ports.get(w % 3);
                workers.add(Thread.ofPlatform().start(() ->
                {
                    try (Jedis worker = new Jedis("127.0.0.1", port))
                    {
                        while (!done.get())
                        {
                            final KeyValue<String, String> job = worker.brpop(0.2, "jobs");
                            if (job != null)
                            {
                                taken.add(job.getValue());
                            }
                        }
                    }
                }));
            }
            for (int j = 0; j < JOBS; j++)
            {
                producer.lpush("jobs", "job-" + j);
            }
            Await.until(() -> taken.size() >= JOBS, () -> taken.size() + " of " + JOBS + " jobs taken");
            done.set(true);
            for (final Thread worker : workers)
            {
                worker.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(worker.isAlive());
            }
            final Set<String> distinct = new HashSet<>(taken);
            assertEquals(JOBS, taken.size(), "no job taken twice");
            assertEquals(JOBS, distinct.size());
            for (int m = 0; m < 3; m++)
            {
                assertTrue(infoAt(kv, m).contains("blocked_clients:0"), infoAt(kv, m));
                try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(m)))
                {
                    assertEquals(0, j.llen("jobs"), "member " + m);
                }
            }
        }
    }

    private static byte[] ascii(final String text)
    {
        return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static long writesAt(final KvProcesses kv, final int member)
    {
        try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member)))
        {
            final String info = j.info("replication");
            final int at = info.indexOf("weft_writes_applied:") + "weft_writes_applied:".length();
            return Long.parseLong(info.substring(at, info.indexOf('\r', at)));
        }
    }

        private static String infoAt(final KvProcesses kv, final int member)
    {
        try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(member)))
        {
            return j.info("clients");
        }
    }
}

package io.weft.tools;

import io.weft.config.LocalPorts;
import io.weft.testkit.Await;
import io.weft.testkit.MemberProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.SafeEncoder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SAVE, BGSAVE and LASTSAVE through two member processes of {@code weft kv}: each member writes its copy as
 * {@code dump.rdb} in its directory, and redis-server (Debian package redis-server, installed by .ci/run) loads the
 * file with the same contents: every type, expiries, a stream's consumer group; a key expired before the save is not
 * in it. So does the file {@code redis-cli --rdb} fetches from a member. And {@code weft kv-import} loads a
 * redis-server snapshot through one member, whole at the other.
 */
@Timeout(120)
class KvSaveTest
{
    @TempDir
    Path dir;

    @Test
    void aSavedStoreLoadsIntoRedisServerWithTheSameContents() throws Exception
    {
        try (KvProcesses kv = KvProcesses.with(dir, 2);
            Jedis a = new Jedis("127.0.0.1", kv.ports.get(0));
            Jedis b = new Jedis("127.0.0.1", kv.ports.get(1)))
        {
            assertEquals("OK", a.set("s", "v"));
            assertEquals("OK", a.set("t", "expires", SetParams.setParams().px(600_000)));
            assertEquals("OK", a.set("gone", "x", SetParams.setParams().px(1)));
            assertEquals(3, b.rpush("l", "a", "b", "c"));
            assertEquals(2, b.sadd("set", "x", "y"));
            assertEquals(2, a.hset("h", Map.of("f", "1", "g", "2")));
            assertEquals(2, b.zadd("z", Map.of("m", 1.5, "n", -2.0)));
            a.xadd("st", new StreamEntryID(1, 1), Map.of("f", "v"));
            assertEquals("OK", a.xgroupCreate("st", "g", new StreamEntryID(0, 0), false));
            Await.until(() -> !a.exists("gone"), "the 1 ms key to expire");

            final long before = System.currentTimeMillis() / 1000;
            assertEquals("Background saving started", a.bgsave());
            Await.until(() -> a.info("persistence").contains("\r\nrdb_saves:1\r\n"),
                () -> "the background save to end: " + a.info("persistence"));
            final String persistence = a.info("persistence");
            assertTrue(persistence.contains("\r\nrdb_bgsave_in_progress:0\r\n") &&
                persistence.contains("\r\nrdb_last_bgsave_status:ok\r\n") &&
                persistence.contains("\r\nrdb_changes_since_last_save:0\r\n"), persistence);
            assertTrue(a.lastsave() >= before, "LASTSAVE is the save's second");
            assertEquals("ERR syntax error", assertThrows(() -> a.sendCommand(Protocol.Command.BGSAVE, "NOW")));
            assertEquals("ERR syntax error", assertThrows(() -> a.sendCommand(Protocol.Command.BGSAVE, "SCHEDULE",
                "x")), "as redis-server 7.0.15 (it saved before)");
            assertEquals(Map.of("dir", dir.resolve("member-1").toString(), "dbfilename", "dump.rdb"),
                b.configGet("dir", "dbfilename"));
            assertEquals("OK", b.save()); // answered once the file is written
            assertEquals("OK", SafeEncoder.encode((byte[])a.sendCommand(Protocol.Command.MULTI)));
            assertEquals("ERR Command not allowed inside a transaction",
                assertThrows(() -> a.sendCommand(Protocol.Command.SAVE)));
            assertEquals("EXECABORT Transaction discarded because of previous errors.",
                assertThrows(() -> a.sendCommand(Protocol.Command.EXEC)));

            final byte[] first = Files.readAllBytes(dir.resolve("member-0").resolve("dump.rdb"));
            assertArrayEquals("REDIS0010".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(first, 9));
            assertLoadsIntoRedisServer(dir.resolve("member-1"), "dump.rdb");

            // redis-cli --rdb: REPLCONF rdb-only 1, then SYNC; a replica's PSYNC, or SYNC alone, is refused
            final Path fetched = dir.resolve("fetched");
            Files.createDirectories(fetched);
            final String cli = KvStoreGroupTest.redisCli(kv.ports.get(0), "--rdb", fetched.resolve("backup.rdb")
                .toString());
            assertTrue(cli.contains("Transfer finished with success"), cli);
            assertLoadsIntoRedisServer(fetched, "backup.rdb");
            assertTrue(assertThrows(() -> b.sendCommand(() -> SafeEncoder.encode("PSYNC"), "?", "-1"))
                .startsWith("ERR PSYNC is refused: the members of a weft group are peers"));
            assertTrue(assertThrows(() -> b.sendCommand(() -> SafeEncoder.encode("SYNC")))
                .startsWith("ERR SYNC is refused"));
            bgsaveInsideMultiSavesTheWholeTransaction(a, b);
        }
    }

    /**
     * BGSAVE inside MULTI is scheduled, as Redis answers it, and member 0, whose client sent it, begins the save once
     * the EXEC applied: its file holds the SET after the BGSAVE too; member 1 applies the EXEC and saves nothing.
     * REPLCONF is queued and answered at EXEC, as Redis does (both were refused inside MULTI before).
     */
    private void bgsaveInsideMultiSavesTheWholeTransaction(final Jedis a, final Jedis b) throws Exception
    {
        assertEquals("OK", SafeEncoder.encode((byte[])a.sendCommand(Protocol.Command.MULTI)));
        for (final String[] queued : List.of(new String[] {"SET", "s", "before"}, new String[] {"BGSAVE"},
            new String[] {"BGSAVE", "NOW"}, new String[] {"REPLCONF", "rdb-only", "0"},
            new String[] {"REPLCONF", "foo", "1"}, new String[] {"SET", "s", "v"}))
        {
            assertEquals("QUEUED", SafeEncoder.encode((byte[])a.sendCommand(() -> SafeEncoder.encode(queued[0]),
                Arrays.copyOfRange(queued, 1, queued.length))));
        }
        final List<?> replies = (List<?>)a.sendCommand(Protocol.Command.EXEC);
        assertEquals("[OK, Background saving scheduled, ERR syntax error, OK, ERR Unrecognized REPLCONF option: foo, " +
            "OK]", replies.stream()
            .map(r -> r instanceof byte[] bytes ? SafeEncoder.encode(bytes) : ((Exception)r).getMessage()).toList()
            .toString(), "as redis-server 7.0.15 answers them");
        Await.until(() -> a.info("persistence").contains("\r\nrdb_saves:2\r\n"),
            () -> "the scheduled save to end: " + a.info("persistence"));
        assertTrue(b.info("persistence").contains("\r\nrdb_saves:1\r\n"), "member 1's SAVE alone");
        assertLoadsIntoRedisServer(dir.resolve("member-0"), "dump.rdb");
    }

    /**
     * kv-import: a snapshot redis-server saved (every type in its small and large encodings, an integer key, an LZF
     * string, expiries, a stream's group with a pending entry) loads through one member, and another member then
     * holds what redis-server holds; a key that expired after the save is left out. A damaged file, and one with a
     * key in database 1, load nothing and say why.
     */
    @Test
    void aRedisServerSnapshotLoadsIntoTheStore() throws Exception
    {
        final Path redis = Files.createDirectories(dir.resolve("redis"));
        try (KvProcesses kv = KvProcesses.with(dir, 2);
            Jedis b = new Jedis("127.0.0.1", kv.ports.get(1));
            RedisServer server = new RedisServer(redis, "dump.rdb");
            Jedis r = server.client())
        {
            r.set("s", "v");
            r.set("12345", "an integer key");
            r.set("num", "42");
            r.set("long", "x".repeat(20_000)); // compressed with LZF in the file
            r.set("t", "expires", SetParams.setParams().px(600_000));
            r.set("soon", "gone by the load", SetParams.setParams().px(1_500));
            r.rpush("l", "a", "b", "c");
            for (int i = 0; i < 300; i++)
            {
                r.rpush("biglist", "item-" + i);
                r.sadd("ints", String.valueOf(i));
                r.sadd("words", "w" + i);
                r.hset("bighash", "f" + i, "v" + i);
                r.zadd("bigz", i * 0.5, "m" + i);
            }
            r.sadd("small", "x", "y");
            r.hset("h", Map.of("f", "1", "g", "2"));
            r.zadd("z", Map.of("m", 1.5, "n", -2.0));
            r.xadd("st", new StreamEntryID(1, 1), Map.of("f", "v"));
            r.xadd("st", new StreamEntryID(2, 1), Map.of("f", "w"));
            r.xgroupCreate("st", "g", new StreamEntryID(0, 0), false);
            r.xreadGroup("g", "c", XReadGroupParams.xReadGroupParams().count(1),
                Map.of("st", StreamEntryID.UNRECEIVED_ENTRY));
            assertEquals("OK", r.save());
            Await.until(() -> !r.exists("soon"), "the 1.5 s key to expire");

            final MemberProcess load = MemberProcess.start("import", dir, Weft.class, "kv-import", "--port",
                String.valueOf(kv.ports.get(0)), redis.resolve("dump.rdb").toString());
            assertEquals(0, load.awaitExit(Duration.ofSeconds(60)), load.output());
            assertTrue(load.output().contains("kv-import: 15 keys loaded into 127.0.0.1:" + kv.ports.get(0) +
                " from " + redis.resolve("dump.rdb") + " (1 expired in the file left out)"), load.output());
            assertSameContents(r, b);

            final byte[] file = Files.readAllBytes(redis.resolve("dump.rdb"));
            file[file.length / 2] ^= 0x5a;
            final Path damaged = Files.write(redis.resolve("damaged.rdb"), file);
            assertEquals("the file's CRC-64 does not match its bytes: it is damaged", refusal(kv, damaged));
            r.select(1);
            r.set("elsewhere", "x");
            assertEquals("OK", r.save());
            assertTrue(refusal(kv, redis.resolve("dump.rdb")).startsWith("the file holds keys of database 1 "));
            assertEquals(15, b.dbSize(), "nothing more was loaded");
        }
    }

    /** What kv-import says as it refuses {@code file}, loading nothing. */
    private static String refusal(final KvProcesses kv, final Path file) throws Exception
    {
        final MemberProcess load = MemberProcess.start("import-refused", file.getParent(), Weft.class, "kv-import",
            "--port", String.valueOf(kv.ports.get(0)), file.toString());
        assertEquals(2, load.awaitExit(Duration.ofSeconds(60)), load.output());
        final String prefix = "weft: kv-import: " + file + ": ";
        final String line = load.output().lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(
            () -> new AssertionError(load.output()));
        return line.substring(prefix.length());
    }

    /** {@code actual} holds every key {@code expected} holds, of the same type and value, expiring alike. */
    private static void assertSameContents(final Jedis expected, final Jedis actual)
    {
        final Set<String> keys = expected.keys("*");
        assertEquals(keys, actual.keys("*"));
        for (final String k : keys)
        {
            final String type = expected.type(k);
            assertEquals(type, actual.type(k), k);
            switch (type)
            {
                case "string" -> assertEquals(expected.get(k), actual.get(k), k);
                case "list" -> assertEquals(expected.lrange(k, 0, -1), actual.lrange(k, 0, -1), k);
                case "set" -> assertEquals(expected.smembers(k), actual.smembers(k), k);
                case "hash" -> assertEquals(expected.hgetAll(k), actual.hgetAll(k), k);
                case "zset" -> assertEquals(expected.zrangeWithScores(k, 0, -1), actual.zrangeWithScores(k, 0, -1),
                    k);
                default ->
                {
                    assertEquals(expected.xrange(k, (StreamEntryID)null, null).toString(),
                        actual.xrange(k, (StreamEntryID)null, null).toString(), k);
                    final var group = actual.xinfoGroups(k).getFirst();
                    assertEquals(expected.xinfoGroups(k).getFirst().getPending(), group.getPending(), k);
                    assertEquals(expected.xinfoGroups(k).getFirst().getLastDeliveredId(), group.getLastDeliveredId());
                }
            }
            final long ttl = actual.pttl(k);
            assertEquals(expected.pttl(k) > 0, ttl > 0, k + "'s expiry");
        }
    }

    /** redis-server, started on the file {@code name} in {@code saved}, holds what was written. */
    private static void assertLoadsIntoRedisServer(final Path saved, final String name) throws Exception
    {
        try (RedisServer server = new RedisServer(saved, name); Jedis r = server.client())
        {
            assertEquals(7, r.dbSize(), "the expired key is not in the file: " + r.keys("*"));
            assertEquals("v", r.get("s"));
            assertEquals("expires", r.get("t"));
            final long ttl = r.pttl("t");
            assertTrue(ttl > 0 && ttl <= 600_000, "the expiry came along: " + ttl);
            assertFalse(r.exists("gone"));
            assertEquals(List.of("a", "b", "c"), r.lrange("l", 0, -1));
            assertEquals(Set.of("x", "y"), r.smembers("set"));
            assertEquals(Map.of("f", "1", "g", "2"), r.hgetAll("h"));
            assertEquals(List.of(new Tuple("n", -2.0), new Tuple("m", 1.5)), r.zrangeWithScores("z", 0, -1));
            final List<StreamEntry> entries = r.xrange("st", (StreamEntryID)null, null);
            assertEquals(1, entries.size());
            assertEquals(Map.of("f", "v"), entries.getFirst().getFields());
            assertEquals("g", r.xinfoGroups("st").getFirst().getName());
            assertTrue(server.log().contains("DB loaded from disk"), server.log());
        }
    }

    /** A redis-server of this test on a free loopback port, with {@code name} in {@code dir} as its RDB file. */
    private static final class RedisServer implements AutoCloseable
    {
        private final Path dir;
        private final int port = LocalPorts.free(1).getFirst();
        private final Process process;

        RedisServer(final Path dir, final String name) throws IOException
        {
            this.dir = dir;
            try
            {
                process = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                    "--dir", dir.toString(), "--dbfilename", name, "--save", "", "--appendonly", "no")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("redis-server.out").toFile()).start();
            }
            catch (final IOException ex)
            {
                throw new AssertionError("redis-server is needed by this test: apt-get install redis-server " +
                    "(.ci/run does)", ex);
            }
        }

        /** A client, once the server answers (it has loaded its file). */
        Jedis client()
        {
            final Jedis r = new Jedis("127.0.0.1", port);
            Await.until(() -> ping(r), () -> "redis-server to load its file: " + log());
            return r;
        }

        String log()
        {
            try
            {
                return Files.readString(dir.resolve("redis-server.out"));
            }
            catch (final IOException ex)
            {
                return ex.toString();
            }
        }

        @Override
        public void close()
        {
            process.destroy();
            try
            {
                if (!process.waitFor(10, TimeUnit.SECONDS))
                {
                    process.destroyForcibly().waitFor();
                }
            }
            catch (final InterruptedException ex)
            {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private static boolean ping(final Jedis r)
    {
        try
        {
            return r.ping().equals("PONG");
        }
        catch (final RuntimeException ex) // not listening yet, or still loading
        {
            r.disconnect();
            return false;
        }
    }

    private static String assertThrows(final org.junit.jupiter.api.function.Executable call)
    {
        return org.junit.jupiter.api.Assertions.assertThrows(JedisDataException.class, call).getMessage();
    }
}

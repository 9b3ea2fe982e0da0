package io.weft.tools;

import io.weft.config.LocalPorts;
import io.weft.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.SafeEncoder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * in it. So does the file {@code redis-cli --rdb} fetches from a member.
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

            final long started = a.lastsave();
            assertEquals("Background saving started", a.bgsave());
            Await.until(() -> a.info("persistence").contains("\r\nrdb_saves:1\r\n"),
                () -> "the background save to end: " + a.info("persistence"));
            final String persistence = a.info("persistence");
            assertTrue(persistence.contains("\r\nrdb_bgsave_in_progress:0\r\n") &&
                persistence.contains("\r\nrdb_last_bgsave_status:ok\r\n") &&
                persistence.contains("\r\nrdb_changes_since_last_save:0\r\n"), persistence);
            assertTrue(a.lastsave() >= started, "LASTSAVE moves on");
            assertEquals("ERR syntax error", assertThrows(() -> a.sendCommand(Protocol.Command.BGSAVE, "NOW")));
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
            assertTrue(assertThrows(() -> b.sendCommand(() -> SafeEncoder.encode("SYNC"))).startsWith("ERR SYNC is refused"));
        }
    }

    /** redis-server, started on the file {@code name} in {@code saved}, holds what was written. */
    private static void assertLoadsIntoRedisServer(final Path saved, final String name) throws Exception
    {
        final int port = LocalPorts.free(1).getFirst();
        final Process server;
        try
        {
            server = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--dir", saved.toString(), "--dbfilename", name, "--save", "", "--appendonly", "no")
                .redirectErrorStream(true).redirectOutput(saved.resolve("redis-server.out").toFile()).start();
        }
        catch (final IOException ex)
        {
            throw new AssertionError("redis-server is needed by this test: apt-get install redis-server (.ci/run " +
                "does)", ex);
        }
        try (Jedis r = new Jedis("127.0.0.1", port))
        {
            Await.until(() -> ping(r), () -> "redis-server to load the file: " + log(saved));
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
            assertTrue(log(saved).contains("DB loaded from disk"), log(saved));
        }
        finally
        {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS))
            {
                server.destroyForcibly().waitFor();
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

    private static String log(final Path saved)
    {
        try
        {
            return Files.readString(saved.resolve("redis-server.out"));
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    private static String assertThrows(final org.junit.jupiter.api.function.Executable call)
    {
        return org.junit.jupiter.api.Assertions.assertThrows(JedisDataException.class, call).getMessage();
    }
}

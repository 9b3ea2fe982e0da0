package io.weft.tools;

import io.weft.testkit.Await;
import io.weft.testkit.SmallDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The key-value store's member 2 logs on a disk that fills (an 8 MiB tmpfs over its log directory; the client writes
 * 12 MB): the full disk faults its log's mapped write inside the delivery callback, and the member stops as if it had
 * crashed; members 0 and 1 remove it and serve on, every acknowledged write at both. Before, the fault left member
 * 2's delivery half done and it threw again on every pass, nobody removed it, and the writes stalled everywhere.
 * Reads are local here: member 2 must refuse them once stopped, rather than serve the state the others left behind.
 * Once room is made, member 2 starts again from its log and catches up: the fault left nothing of the append it cut
 * short (Chronicle committed the bytes written before it, and the log no longer opened: "an entry is 24 bytes long").
 */
@Timeout(180)
class KvFullDiskTest
{
    private static final int WRITES = 3_000;

    @TempDir
    Path dir;

    @Test
    void aMemberWhoseDiskFillsStopsAndTheOthersServeOn() throws Exception
    {
        SmallDisk.assumeAvailable();
        final Path logs = dir.resolve("logs");
        final String value = "v".repeat(4096);
        try (SmallDisk disk = SmallDisk.mount(logs.resolve("member-2"), 8);
             KvProcesses kv = new KvProcesses(dir, 3, "local", logs))
        {
            try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(0)))
            {
                for (int n = 0; n < WRITES; n++)
                {
                    assertEquals("OK", j.set("k" + n, value), "write " + n);
                }
            }
            final String stopped = "member 2 stopped: a trigger of its predicate thread threw java.io.IOError: " +
                "java.io.IOException: appending entry ";
            kv.get(2).awaitOutput("member 2: STOPPED: " + stopped, Duration.ofSeconds(30)); // then it exits
            try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(2)))
            {
                final JedisDataException refused = assertThrows(JedisDataException.class, () -> j.get("k0"));
                assertTrue(refused.getMessage().startsWith("CLUSTERDOWN " + stopped), refused.getMessage());
            }
            for (final int m : List.of(0, 1))
            {
                try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(m)))
                {
                    Await.until(() -> value.equals(j.get("k" + (WRITES - 1))), "member " + m + "'s last write");
                    assertEquals(WRITES + m, j.dbSize(), "member " + m + " (member 0's write after them included)");
                    assertEquals("OK", j.set("after-" + m, "1"), "member " + m + " serves on");
                }
            }
            assertTrue(kv.get(2).output().contains(" is full, "), kv.get(2).output());
            // room is made, and member 2 starts again from its log: the fault left nothing of its last append
            kv.get(2).kill();
            disk.grow(64);
            kv.start(2, true);
            kv.awaitServing(2);
            try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(2)))
            {
                Await.until(() -> "1".equals(j.get("after-1")), "member 2 has the writes made without it");
                assertEquals(WRITES + 2, j.dbSize());
                assertEquals(value, j.get("k" + (WRITES - 1)));
            }
        }
    }
}

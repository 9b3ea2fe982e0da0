package io.weft.tools;

import io.weft.testkit.SmallDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The key-value store's member 2 logs on a disk that fills (an 8 MiB tmpfs over its log directory; the client writes
 * 12 MB): the full disk faults its log's mapped write inside the delivery callback, and the member stops as if it had
 * crashed; members 0 and 1 remove it and serve on, every acknowledged write at both. Before, the fault left member
 * 2's delivery half done and it threw again on every pass, nobody removed it, and the writes stalled everywhere.
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
        try (SmallDisk ignoredDisk = SmallDisk.mount(logs.resolve("member-2"), 8);
             KvProcesses kv = new KvProcesses(dir, 3, "linearizable", logs))
        {
            try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(0)))
            {
                for (int n = 0; n < WRITES; n++)
                {
                    assertEquals("OK", j.set("k" + n, value), "write " + n);
                }
            }
            kv.get(2).awaitOutput("member 2: STOPPED: member 2 stopped: a trigger of its predicate thread threw " +
                "java.lang.InternalError", Duration.ofSeconds(30)); // then it exits
            for (final int m : List.of(0, 1))
            {
                try (Jedis j = new Jedis("127.0.0.1", kv.ports.get(m)))
                {
                    assertEquals(WRITES + m, j.dbSize(), "member " + m + " (member 0's write after them included)");
                    assertEquals(value, j.get("k" + (WRITES - 1)), "member " + m + "'s last write");
                    assertEquals("OK", j.set("after-" + m, "1"), "member " + m + " serves on");
                }
            }
        }
    }
}

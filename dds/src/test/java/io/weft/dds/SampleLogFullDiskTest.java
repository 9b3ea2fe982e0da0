package io.weft.dds;

import io.weft.testkit.SmallDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A log on a disk that fills (a 4 MiB tmpfs): the append that faults leaves nothing of itself in the log, which
 * opens again whole with every entry appended before. Chronicle committed the excerpt the fault cut short, and the log
 * no longer opened ("an entry of DIR is 24 bytes long"): a key-value member whose disk had filled could not start
 * again, even once space was freed.
 */
@Timeout(60)
class SampleLogFullDiskTest
{
    private static final int PAYLOAD = 60_000;

    @TempDir
    Path dir;

    @Test
    void anAppendTheFullDiskFaultsLeavesNothingOfItself() throws Exception
    {
        fill(false);
    }

    @Test
    void aRunTheFullDiskFaultsLeavesNothingOfItself() throws Exception
    {
        fill(true);
    }

    private void fill(final boolean runs) throws Exception
    {
        SmallDisk.assumeAvailable();
        final Path disk = dir.resolve("disk");
        final Path logDir = disk.resolve("log");
        try (SmallDisk ignored = SmallDisk.mount(disk, 4))
        {
            final long appended;
            try (SampleLog log = SampleLog.open(logDir, false))
            {
                final byte[] payload = new byte[PAYLOAD];
                final Throwable fault = assertThrows(Throwable.class, () ->
                {
                    for (int i = 0; i < 1_000; i++)
                    {
                        payload[0] = (byte)i;
                        if (runs)
                        {
                            log.appendRun(new int[] {1, 1}, new long[] {i, i}, new byte[][] {payload, payload},
                                new int[] {PAYLOAD, PAYLOAD}, log.count(), log.count() + 2);
                        }
                        else
                        {
                            log.append(1, i, payload, PAYLOAD);
                        }
                    }
                });
                assertTrue(fault.getMessage().contains("the disk of " + logDir + " is full"), fault.toString());
                appended = log.count();
                assertTrue(appended > 10, "appended " + appended);
            }
            try (SampleLog log = SampleLog.openReadOnly(logDir))
            {
                assertNull(log.verify(), "the log after the fault");
                assertEquals(appended, log.count(), "entries in the log");
            }
        }
    }
}

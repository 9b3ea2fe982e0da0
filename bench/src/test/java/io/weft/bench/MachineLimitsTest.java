package io.weft.bench;

import io.weft.bench.limits.MachineLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every machine limit that {@code weft bench compare} prints beside the systems is measured by its own processes and
 * reported: no probe fails and none leaves a NaN. The values are the host's and are not checked, apart from what
 * holds on any host (a gap over 1 ms is also a gap over 100 us).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MachineLimitsTest
{
    @Test
    void everyLimitIsMeasured() throws Exception
    {
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        final MachineLimits limits = MachineLimits.measure(new int[]{1024}, new long[]{1000},
            TimeUnit.MILLISECONDS.toNanos(300), TimeUnit.MILLISECONDS.toNanos(500),
            new PrintStream(log, true, StandardCharsets.UTF_8));
        final String described = String.join("\n", limits.describe());
        assertEquals(0, limits.failures().size(), described + "\n" + log.toString(StandardCharsets.UTF_8));
        assertFalse(limits.json().contains("null"), limits.json());
        final MachineLimits.Hiccups h = limits.hiccups();
        assertTrue(h.over100usPerCoreSecond() >= h.over1msPerCoreSecond() && h.over1msPerCoreSecond() >= 0, described);
        assertTrue(h.longestUs() == 0 || h.longestUs() > 100, described); // only gaps over 100 us are kept
        assertTrue(described.contains("hiccups, every core busy"), described);
        assertEquals(1, limits.crossCore().size(), described);
        assertTrue(limits.crossCore().getFirst().pingCpu() != limits.crossCore().getFirst().echoCpu(), described);
    }
}

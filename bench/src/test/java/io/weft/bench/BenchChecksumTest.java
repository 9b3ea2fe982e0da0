package io.weft.bench;

import io.weft.bench.steady.SteadyRun;
import io.weft.config.SmcConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bench's receive-side check is real: three Weft member processes on shm, one of which flips a payload byte of
 * one message after writing its checksum. The run must fail naming the checksum; the same run without the flip
 * passes, also without any Spindle technique (the ablation's baseline row). Nothing here is timed: the window only
 * has to be long enough for messages to flow.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BenchChecksumTest
{
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private static BenchOptions options(final long corruptMessage)
    {
        final BenchOptions o = new BenchOptions();
        o.transport = "shm";
        o.members = 3;
        o.senders = "all";
        o.size = 256;
        o.window = 100;
        o.steady.warmup = Duration.ofMillis(200);
        o.steady.measure = Duration.ofMillis(800);
        o.delayed = "one";
        o.steady.runs = 1;
        o.corruptMessage = corruptMessage;
        return o;
    }

    @Test
    void aCorruptedPayloadFailsTheRun() throws Exception
    {
        final SteadyRun.Outcome run = BenchRunner.once(options(100), SmcConfig.SPINDLE, 0, QUIET);
        assertNotNull(run.failure(), "the run with a flipped payload byte passed");
        assertTrue(run.failure().contains("payload checksum mismatch"), run.failure());
    }

    @Test
    void theSameRunWithoutCorruptionPasses() throws Exception
    {
        assertPasses(BenchRunner.once(options(-1), SmcConfig.SPINDLE, 0, QUIET));
    }

    @Test
    void theAblationBaselineFinishes() throws Exception
    {
        // no null-sends: senders stop at different counts, so each pads after its END until every END is delivered
        assertPasses(BenchRunner.once(options(-1), AblationCommand.ROWS.get("baseline"), 0, QUIET));
    }

    private static void assertPasses(final SteadyRun.Outcome run)
    {
        assertNull(run.failure());
        assertEquals(3, run.reports().size());
        for (final SteadyRun.Report r : run.reports())
        {
            assertEquals("ok", r.texts().get("check"));
            assertTrue(r.get("delivered_in_window") > 0, "member delivered nothing in the window: " + r.numbers());
            assertEquals(run.sum("sent"), r.get("delivered_total"), "every member delivers every message sent");
        }
    }
}

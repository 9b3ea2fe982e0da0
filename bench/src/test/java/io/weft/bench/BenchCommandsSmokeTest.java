package io.weft.bench;

import io.weft.tools.Weft;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code weft bench dds} and {@code weft bench kv} run end to end with real member processes, briefly: the figures
 * they print are not checked (no timing belongs in a test), only that every row ran and what each command adds
 * (the log ceiling, the ratios) is there. The full runs are in docs/benchmarks.md.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BenchCommandsSmokeTest
{
    /** Runs {@code weft bench ARGS} here, its standard output captured; fails naming the output if it fails. */
    private static String bench(final String... args)
    {
        final PrintStream old = System.out;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try
        {
            final CommandLine cli = Weft.registerConverters(new CommandLine(new BenchCommand())
                .addSubcommand("dds", new DdsBenchCommand()).addSubcommand("kv", new KvBenchCommand()));
            final int exit = cli.execute(args);
            final String out = bytes.toString(StandardCharsets.UTF_8);
            assertEquals(0, exit, "weft bench " + String.join(" ", args) + " failed:\n" + out);
            return out;
        }
        finally
        {
            System.setOut(old);
        }
    }

    @Test
    void ddsBenchRunsLoggedStorageBesideAtomicMulticastAndMeasuresTheLogCeiling()
    {
        final String out = bench("dds", "--levels", "atomic-multicast,logged-storage", "--runs", "1", "--warmup",
            "500ms", "--measure", "1s", "--transport", "shm");
        assertTrue(out.contains("dds logged-storage"), out);
        assertTrue(out.contains("logged storage over atomic multicast:"), out);
        assertTrue(out.contains("log ceiling: 3 processes appending"), out);
        assertTrue(!out.contains("NaN"), "a probe failed:\n" + out);
    }

    @Test
    void benchRunsInInvokerMode()
    {
        // every member's main thread sends and runs its passes; the deliveries are checked as in any run
        final String out = bench("--invoker", "--runs", "1", "--warmup", "500ms", "--measure", "1s", "--transport",
            "shm", "--size", "1024", "--senders", "half");
        assertTrue(out.contains("spindle-invoker"), out);
        assertTrue(!out.contains("FAILED"), out);
    }

    /** Long ({@code ./weft test -Plong}): CI runs the multicast bench in invoker mode and the dds bench without. */
    @Test
    @Tag("long")
    void ddsBenchRunsInInvokerMode()
    {
        // each member's main thread writes through its loans and runs the passes: its reader's callbacks run there
        final String out = bench("dds", "--invoker", "--levels", "logged-storage", "--runs", "1", "--warmup", "500ms",
            "--measure", "1s", "--transport", "shm");
        assertTrue(out.contains("dds logged-storage-invoker"), out);
        assertTrue(!out.contains("FAILED"), out);
    }

    /**
     * The replicated store in memory and logging (weft-kv-log: the members log every write; their logs hold more than a
     * mebibyte at the end), with the log's cost as a ratio.
     */
    @Test
    void kvBenchWarmsUpThenMeasuresTheReplicatedStoreInMemoryAndLogging()
    {
        // redis-benchmark comes with redis-tools (installed by .ci/run); redis-server and etcd are the bench's peers
        final String out = bench("kv", "--systems", "weft-kv,weft-kv-log", "--runs", "1", "--warmup", "2s",
            "--measure", "1s");
        for (final String row : List.of("| weft-kv | SET |", "| weft-kv | GET |", "| weft-kv-log | SET |",
            "| weft-kv-log | GET |", "SET: weft-kv-log (3 members, replicated) over weft-kv (the log's cost):"))
        {
            assertTrue(out.contains(row), row + " in:\n" + out);
        }
        final java.util.regex.Matcher written = java.util.regex.Pattern
            .compile("weft-kv-log's logs at the end of the run: (\\d+) KiB on disk").matcher(out);
        assertTrue(written.find(), out);
        assertTrue(Long.parseLong(written.group(1)) > 1024, "the logs hold the writes: " + out);
    }

    /** The job queue: workers in BLPOP at every member; the run fails if a job is lost or taken twice. */
    @Test
    void kvBenchRunsAJobQueueWithWorkersAtEveryMember()
    {
        final String out = bench("kv", "--systems", "weft-kv", "--tests", "jobs", "--clients", "20", "--rate", "200",
            "--runs", "1", "--warmup", "1s", "--measure", "1s");
        assertTrue(out.contains("jobs: 20 workers in BLPOP at each member, 200 pushes a second"), out);
        assertTrue(out.contains("| weft-kv | JOBS |"), out);
        assertTrue(out.contains("writes applied per job"), "read from the store's INFO: " + out);
    }
}

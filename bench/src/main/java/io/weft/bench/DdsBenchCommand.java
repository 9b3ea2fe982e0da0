package io.weft.bench;

import io.weft.bench.limits.MachineLimits;
import io.weft.config.QosLevel;
import io.weft.config.SmcConfig;
import io.weft.dds.SampleLog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code weft bench dds}: the same steady-state workload through the Group API and through a DDS topic of each QoS
 * level, in one invocation, with the ratios issue 15 asks for (logged storage over atomic multicast).
 */
@Command(name = "dds", description = "Throughput and latency of each DDS QoS level beside the raw Group API, in one " +
    "invocation.")
final class DdsBenchCommand implements java.util.concurrent.Callable<Integer>
{
    @Mixin
    BenchOptions options = new BenchOptions();

    @picocli.CommandLine.Option(names = "--levels", split = ",", description = "QoS levels to run beside the Group " +
        "API (default: all four: unordered, atomic-multicast, volatile-storage, logged-storage).")
    List<String> names = List.of("unordered", "atomic-multicast", "volatile-storage", "logged-storage");

    /**
     * The warm-up when logged storage runs and none is given: after 3 s its code (Chronicle's appender, the ring, the
     * CRC) was still being compiled, and its rate rose from about 320k to 455-472k samples/s with 10 s (shm, 1 KiB).
     */
    static final java.time.Duration LOGGED_WARMUP = java.time.Duration.ofSeconds(10);

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception
    {
        final Integer invalid = options.invalid();
        if (invalid != null)
        {
            return invalid;
        }
        final List<QosLevel> levels = new ArrayList<>();
        levels.add(null);
        for (final String name : names)
        {
            levels.add(QosLevel.parse("--levels", name));
        }
        final boolean warmupGiven = spec.commandLine().getParseResult().hasMatchedOption("--warmup");
        if (levels.contains(QosLevel.LOGGED_STORAGE) && !warmupGiven)
        {
            options.steady.warmup = LOGGED_WARMUP;
            System.out.println("warm-up " + LOGGED_WARMUP.toSeconds() + " s: logged storage is in steady state later " +
                "than the other rows (--warmup sets it)");
        }
        final List<BenchRunner.Row> rows = BenchRunner.table(options, levels.stream().map(level -> new BenchRunner.Spec(
            level == null ? "group-api" : "dds " + level.configName(), SmcConfig.SPINDLE, level)).toList());
        if (BenchRunner.exitCode(rows) == 0 && !options.json)
        {
            final BenchRunner.Row api = rows.getFirst();
            for (final BenchRunner.Row r : rows.subList(1, rows.size()))
            {
                System.out.printf(Locale.ROOT, "%s: %.2fx the Group API's throughput%n", r.name(),
                    r.msgsPerSec() / api.msgsPerSec());
            }
            final int atomic = levels.indexOf(QosLevel.ATOMIC_MULTICAST);
            final int logged = levels.indexOf(QosLevel.LOGGED_STORAGE);
            if (atomic > 0 && logged > 0)
            {
                System.out.printf(Locale.ROOT, "logged storage over atomic multicast: %.2fx the throughput, p50 " +
                    "%.2fx%n",
                    rows.get(logged).msgsPerSec() / rows.get(atomic).msgsPerSec(),
                    rows.get(logged).p50() / rows.get(atomic).p50());
                printLogCeiling(rows.get(atomic).msgsPerSec());
            }
        }
        return BenchRunner.exitCode(rows);
    }

    /**
     * What the host allows logged storage at all: every member appends every sample to its log, so the members'
     * logs append at once, sharing the cores, the page cache and the disk. Measured here with as many processes as
     * members, each appending to a new mapped file in the directory the members log to, doing nothing else.
     */
    private void printLogCeiling(final double atomicMsgsPerSec) throws InterruptedException
    {
        final Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        final int record = options.size + SampleLog.ENTRY_OVERHEAD;
        final double each = MachineLimits.logAppendsPerSec(dir, record, options.members,
            options.steady.warmup.toNanos(), options.steady.measure.toNanos(), System.out);
        // the machine's seconds per sample: the multicast's own (it fills the cores at its measured rate) plus the
        // logs' own
        final double both = 1 / (1 / atomicMsgsPerSec + 1 / each);
        System.out.printf(Locale.ROOT, "log ceiling: %d processes appending records of %d B at once, each to a new " +
            "mapped file in %s: %,.0f records/s each (median; %.2f us per record), so at most that many samples/s " +
            "doing nothing else (%.2fx atomic multicast's throughput), %,.0f with the multicast's own cost (%.2fx)%n",
            options.members, record, dir, each, 1e6 / each, each / atomicMsgsPerSec, both,
            both / atomicMsgsPerSec);
    }
}

package io.weft.bench.limits;

import io.weft.bench.steady.LoopbackPorts;
import io.weft.bench.steady.SteadyRun;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What this host can do at all, measured in the same invocation as the systems and with the same method
 * ({@link LimitMember}): memory bandwidth, a one-way SPSC ring between two processes per message size, a 3-process
 * token ring's round trip, how often the host takes a core from a running thread (hiccups), and loopback tcp
 * bandwidth and round trip, back to back and, per latency rate, paced with its ends on two cores. A probe that fails
 * leaves NaN and its reason.
 */
public record MachineLimits(double memcpyMBps, Map<Integer, Double> spscMsgsPerSec, double ringP50Us,
    double ringP99Us, double ringP999Us, Hiccups hiccups, double tcpMBps, double tcpRttP50Us, double tcpRttP99Us,
    List<CrossCoreRoundTrip> crossCore, List<String> failures)
{
    /**
     * Measures every limit; {@code sizes} are the message sizes of the SPSC ring, {@code rates} the pings a second of
     * the cross-core round trips (the latency rows' rates).
     */
    public static MachineLimits measure(final int[] sizes, final long[] rates, final long warmupNanos,
        final long measureNanos, final PrintStream log) throws Exception
    {
        final List<String> failures = new ArrayList<>();
        final SteadyRun.Outcome memcpy = probe(List.of(member("memcpy", "memcpy", warmupNanos, measureNanos)),
            warmupNanos, measureNanos, "memcpy", failures, log);
        final Map<Integer, Double> spsc = new LinkedHashMap<>();
        for (final int size : sizes)
        {
            final Path file = shmFile("spsc", LimitMember.RING_FILE_LENGTH);
            try
            {
                final SteadyRun.Outcome o = probe(List.of(
                    member("spsc-producer", "spsc-producer", warmupNanos, measureNanos, file.toString(),
                        String.valueOf(size)),
                    member("spsc-consumer", "spsc-consumer", warmupNanos, measureNanos, file.toString(),
                        String.valueOf(size))),
                    warmupNanos, measureNanos, "spsc " + size + " B", failures, log);
                spsc.put(size, o == null ? Double.NaN : o.reports().get(1).get("delivered_msgs_per_sec"));
            }
            finally
            {
                Files.deleteIfExists(file);
            }
        }
        final Path tokens = shmFile("ring", LimitMember.TOKEN_FILE_LENGTH);
        final SteadyRun.Outcome ring;
        try
        {
            final List<SteadyRun.Member> ranks = new ArrayList<>();
            for (int r = 0; r < 3; r++)
            {
                ranks.add(member("ring" + r, "ring", warmupNanos, measureNanos, tokens.toString(), String.valueOf(r)));
            }
            ring = probe(ranks, warmupNanos, measureNanos, "token ring", failures, log);
        }
        finally
        {
            Files.deleteIfExists(tokens);
        }
        final SteadyRun.Outcome gaps = probe(List.of(member("hiccups", "hiccups", warmupNanos, measureNanos)),
            warmupNanos, measureNanos, "hiccups", failures, log);
        final String port = String.valueOf(LoopbackPorts.consecutive(1)[0]);
        final SteadyRun.Outcome stream = probe(List.of(member("tcp-sink", "tcp-sink", warmupNanos, measureNanos, port),
            member("tcp-source", "tcp-source", warmupNanos, measureNanos, port)), warmupNanos, measureNanos,
            "tcp stream", failures, log);
        final String pingPort = String.valueOf(LoopbackPorts.consecutive(1)[0]);
        final SteadyRun.Outcome ping = probe(List.of(member("tcp-echo", "tcp-echo", warmupNanos, measureNanos,
            pingPort),
            member("tcp-ping", "tcp-ping", warmupNanos, measureNanos, pingPort)), warmupNanos, measureNanos,
            "tcp round trip", failures, log);
        final List<CrossCoreRoundTrip> crossCore = new ArrayList<>();
        final int[] cpus = Affinity.cpus();
        for (final long rate : rates)
        {
            if (cpus.length < 2)
            {
                failures.add("tcp round trip across cores at " + rate + "/s: this process may run on " + cpus.length +
                    " core(s), two are needed");
                crossCore.add(new CrossCoreRoundTrip(rate, -1, -1, Double.NaN, Double.NaN));
                continue;
            }
            final String pacedPort = String.valueOf(LoopbackPorts.consecutive(1)[0]);
            final SteadyRun.Outcome o = probe(List.of(
                member("tcp-echo", "tcp-echo", warmupNanos, measureNanos, pacedPort, String.valueOf(cpus[0])),
                member("tcp-ping", "tcp-ping", warmupNanos, measureNanos, pacedPort, String.valueOf(rate),
                    String.valueOf(cpus[1]))), warmupNanos, measureNanos,
                "tcp round trip across cores at " + rate + "/s", failures, log);
            crossCore.add(new CrossCoreRoundTrip(rate, cpus[1], cpus[0],
                o == null ? Double.NaN : o.reports().get(1).get("latency_p50_us"),
                o == null ? Double.NaN : o.reports().get(1).get("latency_p99_us")));
        }
        return new MachineLimits(
            memcpy == null ? Double.NaN : memcpy.reports().getFirst().get("mb_per_sec"), spsc,
            ring == null ? Double.NaN : ring.reports().getFirst().get("latency_p50_us"),
            ring == null ? Double.NaN : ring.reports().getFirst().get("latency_p99_us"),
            ring == null ? Double.NaN : ring.reports().getFirst().get("latency_p999_us"),
            Hiccups.of(gaps),
            stream == null ? Double.NaN : stream.reports().getFirst().get("mb_per_sec"),
            ping == null ? Double.NaN : ping.reports().get(1).get("latency_p50_us"),
            ping == null ? Double.NaN : ping.reports().get(1).get("latency_p99_us"), crossCore, failures);
    }

    /**
     * The 64-byte tcp round trip at {@code rate} pings a second, the pinger parked between pings and its two ends
     * pinned to different cores: each ping wakes a thread on the other core, as a multicast among more members than
     * cores must, and between pings the cores may go idle, as they do between the latency rows' messages.
     */
    public record CrossCoreRoundTrip(long rate, int pingCpu, int echoCpu, double p50Us, double p99Us)
    {
    }

    /** The cross-core round trip's p50 at {@code rate}, or NaN if it was not measured. */
    public double crossCoreP50Us(final long rate)
    {
        return crossCore.stream().filter(c -> c.rate() == rate).mapToDouble(CrossCoreRoundTrip::p50Us).findFirst()
            .orElse(Double.NaN);
    }

    /**
     * Records of {@code size} bytes per second that each of {@code processes} processes appends at once, each to a new
     * memory-mapped file of its own in {@code dir} ({@link LimitMember}'s {@code log-append}), as the members' logs
     * do: they share the cores, the page cache and the disk. The median over the processes, or NaN with the reason
     * printed.
     */
    public static double logAppendsPerSec(final Path dir, final int size, final int processes, final long warmupNanos,
        final long measureNanos, final PrintStream log) throws InterruptedException
    {
        final List<String> failures = new ArrayList<>();
        final List<SteadyRun.Member> appenders = new ArrayList<>();
        for (int i = 0; i < processes; i++)
        {
            appenders.add(member("log-append-" + i, "log-append", warmupNanos, measureNanos, dir.toString(),
                String.valueOf(size)));
        }
        final SteadyRun.Outcome o = probe(appenders, warmupNanos, measureNanos, "log append", failures, log);
        failures.forEach(f -> log.println("FAILED " + f));
        if (o == null)
        {
            return Double.NaN;
        }
        final double[] rates = o.reports().stream().mapToDouble(r -> r.get("delivered_msgs_per_sec")).sorted()
            .toArray();
        return rates[rates.length / 2];
    }

    /**
     * How often a thread that never waits, one per core, lost its core: gaps between two clock reads over 100 us and
     * over 1 ms, per second per core, and the longest gap.
     */
    public record Hiccups(double over100usPerCoreSecond, double over1msPerCoreSecond, double longestUs)
    {
        /** From the probe's report, or NaN if the probe failed. */
        static Hiccups of(final SteadyRun.Outcome probe)
        {
            if (probe == null)
            {
                return new Hiccups(Double.NaN, Double.NaN, Double.NaN);
            }
            final SteadyRun.Report r = probe.reports().getFirst();
            return new Hiccups(r.get("gaps_over_100us_per_core_s"), r.get("gaps_over_1ms_per_core_s"),
                r.get("longest_gap_us"));
        }
    }

    /** The shm ceiling for {@code size}-byte messages: the SPSC ring's rate. */
    public double shmMsgsPerSec(final int size)
    {
        return spscMsgsPerSec.getOrDefault(size, Double.NaN);
    }

    /** The loopback tcp ceiling for {@code size}-byte messages: stream bandwidth over the size. */
    public double tcpMsgsPerSec(final int size)
    {
        return tcpMBps * 1e6 / size;
    }

    /** Printable lines, one per limit. */
    public List<String> describe()
    {
        final List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "memcpy (1 MiB copies over 64 MiB regions): %,.0f MB/s", memcpyMBps));
        spscMsgsPerSec.forEach((size, rate) -> lines.add(String.format(Locale.ROOT,
            "SPSC ring between two processes over /dev/shm, %d B (payload written, read and checked): %,.0f msgs/s, " +
                "%,.0f MB/s",
            size, rate, rate * size / 1e6)));
        lines.add(String.format(Locale.ROOT, "3-process shm token ring round trip: p50 %.2f us, p99 %.2f us, p99.9 " +
            "%.2f us",
            ringP50Us, ringP99Us, ringP999Us));
        lines.add(String.format(Locale.ROOT, "hiccups, every core busy: %.2f gaps over 100 us and %.2f over 1 ms per " +
            "second per core, longest %.0f us", hiccups.over100usPerCoreSecond(), hiccups.over1msPerCoreSecond(),
            hiccups.longestUs()));
        lines.add(String.format(Locale.ROOT, "tcp loopback stream (64 KiB writes): %,.0f MB/s", tcpMBps));
        lines.add(String.format(Locale.ROOT, "tcp loopback round trip (64 B, TCP_NODELAY): p50 %.2f us, p99 %.2f us",
            tcpRttP50Us, tcpRttP99Us));
        crossCore.forEach(c -> lines.add(String.format(Locale.ROOT, "tcp loopback round trip across cores %d and %d " +
            "at %,d/s (64 B, parked between pings): p50 %.2f us, p99 %.2f us", c.pingCpu(), c.echoCpu(), c.rate(),
            c.p50Us(), c.p99Us())));
        failures.forEach(f -> lines.add("FAILED " + f));
        return lines;
    }

    /** The JSON object of every limit. */
    public String json()
    {
        final StringBuilder spsc = new StringBuilder();
        spscMsgsPerSec.forEach((size, rate) -> spsc.append(spsc.length() == 0 ? "" : ",")
            .append(String.format(Locale.ROOT, "\"%d\":%.0f", size, rate)));
        return String.format(Locale.ROOT, "{\"memcpy_mb_per_sec\":%.0f,\"spsc_msgs_per_sec\":{%s}," +
                "\"token_ring_rtt_p50_us\":%.2f,\"token_ring_rtt_p99_us\":%.2f,\"token_ring_rtt_p999_us\":%.2f," +
                "\"hiccups_over_100us_per_core_s\":%.2f,\"hiccups_over_1ms_per_core_s\":%.2f," +
                "\"hiccup_longest_us\":%.0f," +
                "\"tcp_stream_mb_per_sec\":%.0f,\"tcp_rtt_p50_us\":%.2f,\"tcp_rtt_p99_us\":%.2f," +
                "\"tcp_rtt_across_cores\":[%s],\"failures\":%d}",
            memcpyMBps, spsc, ringP50Us, ringP99Us, ringP999Us, hiccups.over100usPerCoreSecond(),
            hiccups.over1msPerCoreSecond(), hiccups.longestUs(), tcpMBps, tcpRttP50Us, tcpRttP99Us,
            crossCore.stream().map(c -> String.format(Locale.ROOT, "{\"rate\":%d,\"p50_us\":%.2f,\"p99_us\":%.2f}",
                c.rate(), c.p50Us(), c.p99Us())).collect(java.util.stream.Collectors.joining(",")), failures.size())
            .replace("NaN", "null");
    }

    private static SteadyRun.Member member(final String name, final String mode, final long warmupNanos,
        final long measureNanos, final String... extra)
    {
        final List<String> args = new ArrayList<>(List.of(mode, String.valueOf(warmupNanos),
            String.valueOf(measureNanos)));
        args.addAll(List.of(extra));
        return new SteadyRun.Member(name, LimitMember.class, args);
    }

    private static SteadyRun.Outcome probe(final List<SteadyRun.Member> members, final long warmupNanos,
        final long measureNanos, final String what, final List<String> failures, final PrintStream log)
        throws InterruptedException
    {
        final SteadyRun.Outcome o = SteadyRun.run(members, warmupNanos, measureNanos, false, log);
        if (o.failure() != null)
        {
            failures.add(what + ": " + o.failure());
            return null;
        }
        return o;
    }

    private static Path shmFile(final String what, final int length) throws IOException
    {
        final Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") :
            Path.of(System.getProperty("java.io.tmpdir"));
        final Path file = Files.createTempFile(dir, "weft-limit-" + what + "-", ".bin");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(length);
        }
        return file;
    }
}

package io.weft.bench;

import io.weft.bench.limits.MachineLimits;
import io.weft.bench.peers.AeronMember;
import io.weft.bench.peers.JGroupsMember;
import io.weft.bench.steady.LoopbackPorts;
import io.weft.bench.steady.SteadyRun;
import io.weft.config.SmcConfig;
import io.weft.tools.RdmaChoice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * {@code weft bench compare}: Weft beside JGroups (SEQUENCER total order over TCP) and Aeron (UDP and IPC) and
 * beside the machine's own limits, in one invocation, all on one steady-state method: every member its own JVM, a
 * warm-up, then a window by time in which every receiver counts; every sender writes and every receiver reads and
 * checks the whole payload. Throughput runs go flat out; latency runs send at fixed rates. Every run checks its
 * deliveries (once, in order, checksums; one total order for Weft and JGroups); a failed check replaces the number.
 */
@Command(name = "compare", description = "Weft beside JGroups, Aeron and the machine's limits, steady state, one invocation.")
final class CompareCommand implements Callable<Integer>
{
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    private static final int MEMBERS = 3;
    /**
     * Not defaults: weft-shm-invoker and weft-tcp-invoker, Weft in invoker mode (each member's sending thread runs its
     * passes); weft-rdma, Weft over the rdma transport with libfabric's {@code tcp;ofi_rxm} provider (software RDMA
     * through loopback tcp, like weft-tcp; {@code bench --transport rdma} chooses other providers and backends).
     */
    private static final List<String> SYSTEMS = List.of("weft-shm", "weft-tcp", "jgroups-tcp", "aeron-udp", "aeron-ipc",
        "weft-shm-invoker", "weft-tcp-invoker", "weft-rdma");

    @picocli.CommandLine.Mixin
    SteadyOptions steady = new SteadyOptions();

    @Option(names = "--sizes", defaultValue = "128,1024,10240", split = ",", description = "Message sizes of the throughput rows.")
    int[] sizes;

    @Option(names = "--patterns", defaultValue = "all,one", split = ",", description = "Sender patterns: all, one.")
    String[] patterns;

    @Option(names = "--systems", defaultValue = "weft-shm,weft-tcp,jgroups-tcp,aeron-udp,aeron-ipc", split = ",",
        description = "Systems to run (default: all but weft-shm-invoker, weft-tcp-invoker and weft-rdma).")
    String[] systems;

    @Option(names = "--rates", defaultValue = "1000,10000", split = ",",
        description = "Messages per second per sender of the latency runs; 0: none (default ${DEFAULT-VALUE}).")
    long[] rates;

    @Option(names = "--latency-sizes", defaultValue = "1024", split = ",", description = "Message sizes of the latency runs.")
    int[] latencySizes;

    @Option(names = "--limit-warmup", defaultValue = "1s", description = "Warm-up of each machine-limit probe.")
    Duration limitWarmup;

    @Option(names = "--limit-measure", defaultValue = "3s", description = "Window of each machine-limit probe.")
    Duration limitMeasure;

    @Option(names = "--no-limits", description = "Skip the machine-limit probes.")
    boolean noLimits;

    @Option(names = "--json", description = "Print JSON instead of tables.")
    boolean json;

    @Option(names = "--json-out", description = "Also write the JSON to this file.")
    java.nio.file.Path jsonOut;


    /**
     * One system on one workload: medians over runs (min-max of the throughput), or the reason it failed. p50, p99,
     * p999: send to own delivery at the senders; peerP50, peerP99, peerP999: send to delivery at the other members
     * (runs at a fixed rate; NaN flat out).
     */
    record Row(String pattern, int size, long rate, String system, double msgs, double msgsMin, double msgsMax,
        double mb,
        double p50, double p99, double p999, double peerP50, double peerP99, double peerP999, String failure)
    {
        String key()
        {
            return pattern + "/" + size + "/" + rate;
        }
    }

    @Override
    public Integer call() throws Exception
    {
        final String problem = validate();
        if (problem != null)
        {
            return io.weft.tools.Weft.refuse(problem);
        }
        final PrintStream log = steady.verbose ? System.err : QUIET;
        final Set<Integer> limitSizes = new TreeSet<>();
        Arrays.stream(sizes).forEach(limitSizes::add);
        Arrays.stream(latencySizes).forEach(limitSizes::add);
        final MachineLimits limits = noLimits ? null : MachineLimits.measure(
            limitSizes.stream().mapToInt(Integer::intValue).toArray(),
            Arrays.stream(rates).filter(r -> r > 0).toArray(), limitWarmup.toNanos(), limitMeasure.toNanos(), log);
        if (limits != null)
        {
            limits.describe().forEach(l -> System.err.println("compare: limit: " + l));
        }
        final List<Row> throughput = new ArrayList<>();
        for (final String pattern : patterns)
        {
            for (final int size : sizes)
            {
                for (final String system : systems)
                {
                    throughput.add(measure(pattern, size, 0, system, log));
                }
            }
        }
        final List<Row> latency = new ArrayList<>();
        for (final long rate : Arrays.stream(rates).filter(r -> r > 0).toArray())
        {
            for (final String pattern : patterns)
            {
                for (final int size : latencySizes)
                {
                    for (final String system : systems)
                    {
                        latency.add(measure(pattern, size, rate, system, log));
                    }
                }
            }
        }
        final String document = json(limits, throughput, latency);
        if (jsonOut != null)
        {
            java.nio.file.Files.writeString(jsonOut, document);
        }
        if (json)
        {
            System.out.println(document);
        }
        else
        {
            printTables(limits, throughput, latency);
        }
        final boolean ok = throughput.stream().allMatch(r -> r.failure() == null) &&
            latency.stream().allMatch(r -> r.failure() == null) && (limits == null || limits.failures().isEmpty());
        return ok ? 0 : 1;
    }

    private String validate()
    {
        for (final String s : systems)
        {
            if (!SYSTEMS.contains(s))
            {
                return "--systems: unknown system " + s + ", known: " + String.join(", ", SYSTEMS);
            }
        }
        final String noRdma = Arrays.asList(systems).contains("weft-rdma") ?
            RdmaChoice.libfabricMissing("--systems weft-rdma") : null;
        if (noRdma != null)
        {
            return noRdma;
        }
        for (final String p : patterns)
        {
            if (!p.equals("all") && !p.equals("one"))
            {
                return "--patterns takes all and one, was " + p;
            }
        }
        if (IntStream.concat(Arrays.stream(sizes), Arrays.stream(latencySizes))
            .anyMatch(s -> s < io.weft.bench.steady.Payload.HEADER_LENGTH || s > 1 << 20))
        {
            return "--sizes and --latency-sizes must be in " + io.weft.bench.steady.Payload.HEADER_LENGTH + "..1048576";
        }
        if (Arrays.stream(rates).anyMatch(r -> r < 0 || r > 1_000_000))
        {
            return "--rates must be in 1..1000000 messages per second per sender (0: no latency runs)";
        }
        if (limitMeasure.isZero() || limitMeasure.isNegative() || limitWarmup.isNegative())
        {
            return "--limit-measure must be positive and --limit-warmup >= 0";
        }
        return steady.validate();
    }

    private Row measure(final String pattern, final int size, final long rate, final String system,
        final PrintStream log) throws Exception
    {
        final List<double[]> results = new ArrayList<>();
        for (int r = 0; r < steady.runs; r++)
        {
            final Object result = once(pattern, size, rate, system, log);
            if (result instanceof String failure)
            {
                System.err.printf(Locale.ROOT, "compare: %s senders, %d B, %s, %s: FAILED %s%n", pattern, size,
                    rate == 0 ? "flat out" : rate + " msgs/s", system, failure);
                return new Row(pattern, size, rate, system, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, failure);
            }
            final double[] v = (double[])result;
            final String others = rate == 0 ? "" :
                String.format(Locale.ROOT, "; at the others p50 %.1f us, p99 %.1f us", v[5], v[6]);
            System.err.printf(Locale.ROOT, "compare: %s senders, %d B, %s, %s, run %d: %,.0f msgs/s per member, " +
                "p50 %.1f us, p99 %.1f us%s%n", pattern, size, rate == 0 ? "flat out" : rate + " msgs/s", system, r + 1,
                v[0], v[2], v[3], others);
            results.add(v);
        }
        final double[] msgs = results.stream().mapToDouble(v -> v[0]).sorted().toArray();
        return new Row(pattern, size, rate, system, median(results, 0), msgs[0], msgs[msgs.length - 1],
            median(results, 1), median(results, 2), median(results, 3), median(results, 4), median(results, 5),
            median(results, 6), median(results, 7), null);
    }

    private static double median(final List<double[]> runs, final int i)
    {
        final double[] v = runs.stream().mapToDouble(r -> r[i]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /**
     * One run: {msgs/s per member, MB/s, p50, p99, p99.9 us at the senders, p50, p99, p99.9 us at the other members},
     * or a String saying why it failed.
     */
    private Object once(final String pattern, final int size, final long rate, final String system,
        final PrintStream log) throws Exception
    {
        final int senders = pattern.equals("all") ? MEMBERS : 1;
        final SteadyRun.Outcome run;
        String aeronDir = null;
        if (system.startsWith("weft"))
        {
            final BenchOptions o = new BenchOptions();
            o.invoker = system.endsWith("-invoker");
            o.transport = system.substring(5, o.invoker ? system.length() - "-invoker".length() : system.length());
            o.members = MEMBERS;
            o.senders = pattern;
            o.size = size;
            o.window = 0; // auto, the default
            o.steady.warmup = steady.warmup;
            o.steady.measure = steady.measure;
            o.delayed = "one";
            o.steady.runs = 1;
            run = BenchRunner.once(o, SmcConfig.SPINDLE, rate, log);
        }
        else
        {
            final List<SteadyRun.Member> members = new ArrayList<>();
            final String w = String.valueOf(steady.warmup.toNanos());
            final String m = String.valueOf(steady.measure.toNanos());
            if (system.equals("jgroups-tcp"))
            {
                final String ports = Arrays.stream(LoopbackPorts.consecutive(MEMBERS)).mapToObj(String::valueOf)
                    .collect(Collectors.joining(","));
                for (int i = 0; i < MEMBERS; i++)
                {
                    members.add(new SteadyRun.Member("jg" + i, JGroupsMember.class, List.of(String.valueOf(i),
                        String.valueOf(MEMBERS), String.valueOf(senders), String.valueOf(size), String.valueOf(rate),
                        ports, w, m)));
                }
            }
            else
            {
                final String base = String.valueOf(LoopbackPorts.consecutive(2 * MEMBERS)[0]);
                aeronDir = "/dev/shm/aeron-weft-bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
                for (int i = 0; i < MEMBERS; i++)
                {
                    members.add(new SteadyRun.Member("aeron" + i, AeronMember.class, List.of(system.substring(6),
                        String.valueOf(i), String.valueOf(MEMBERS), String.valueOf(senders), String.valueOf(size),
                        String.valueOf(rate), base, aeronDir, w, m)));
                }
            }
            try
            {
                run = SteadyRun.run(members, steady.warmup.toNanos(), steady.measure.toNanos(),
                    system.equals("jgroups-tcp"), log);
            }
            finally
            {
                if (aeronDir != null)
                {
                    AeronMember.deleteDirectories(aeronDir, MEMBERS); // a driver deletes its files only when closed
                }
            }
        }
        if (run.failure() != null)
        {
            return run.failure();
        }
        return new double[] {run.mean("delivered_msgs_per_sec"), run.mean("mb_per_sec"),
            run.median("latency_p50_us", senders), run.median("latency_p99_us", senders),
            run.median("latency_p999_us", senders), run.receiversMedian("peer_latency_p50_us"),
            run.receiversMedian("peer_latency_p99_us"), run.receiversMedian("peer_latency_p999_us")};
    }

    private static boolean sharedMemory(final String system)
    {
        return system.startsWith("weft-shm") || system.equals("aeron-ipc");
    }

    /** The row's throughput over the machine's ceiling for its medium and size. */
    private static double overLimit(final MachineLimits limits, final Row r)
    {
        if (limits == null || r.failure() != null)
        {
            return Double.NaN;
        }
        return r.msgs() / (sharedMemory(r.system()) ? limits.shmMsgsPerSec(r.size()) : limits.tcpMsgsPerSec(r.size()));
    }

    /** The row's p50 over the latency floor of its medium (token ring or tcp round trip). */
    private static double overFloor(final MachineLimits limits, final Row r)
    {
        if (limits == null || r.failure() != null)
        {
            return Double.NaN;
        }
        return r.p50() / (sharedMemory(r.system()) ? limits.ringP50Us() : limits.tcpRttP50Us());
    }

    /** A tcp or udp row's p50 over the tcp round trip across cores at the row's rate; NaN for shared memory. */
    private static double overCrossCore(final MachineLimits limits, final Row r)
    {
        if (limits == null || r.failure() != null || sharedMemory(r.system()))
        {
            return Double.NaN;
        }
        return r.p50() / limits.crossCoreP50Us(r.rate());
    }

    private static double ratio(final Map<String, Row> byKey, final String weft, final Row peer,
        final Function<Row, Double> metric)
    {
        final Row w = byKey.get(peer.key() + "/" + weft);
        if (w == null || w.failure() != null || peer.failure() != null || peer.system().startsWith("weft"))
        {
            return Double.NaN;
        }
        return metric.apply(w) / Math.max(1e-9, metric.apply(peer));
    }

    private static Map<String, Row> index(final List<Row> rows)
    {
        return rows.stream().collect(Collectors.toMap(r -> r.key() + "/" + r.system(), r -> r, (a, b) -> a));
    }

    private void printTables(final MachineLimits limits, final List<Row> throughput, final List<Row> latency)
    {
        System.out.printf(Locale.ROOT, "Steady state: %d members, each its own JVM; warm-up %s, window %s, %d run(s) " +
            "per row (median, min-max).%n", MEMBERS, steady.warmup, steady.measure, steady.runs);
        if (limits != null)
        {
            System.out.println("Machine limits (same invocation):");
            limits.describe().forEach(l -> System.out.println("  " + l));
        }
        final Map<String, Row> t = index(throughput);
        System.out.printf("%nThroughput, flat out (msgs/s delivered per member):%n");
        System.out.printf("%-5s %6s %-16s %12s %23s %9s %9s %9s %9s%n", "send", "size", "system", "msgs/s", "(min-max)",
            "MB/s", "shm/peer", "tcp/peer", "x/limit");
        for (final Row r : throughput)
        {
            if (r.failure() != null)
            {
                System.out.printf("%-5s %6d %-16s FAILED: %s%n", r.pattern(), r.size(), r.system(), r.failure());
                continue;
            }
            System.out.printf(Locale.ROOT, "%-5s %6d %-16s %,12.0f %23s %9.1f %9s %9s %9s%n", r.pattern(), r.size(),
                r.system(), r.msgs(), String.format(Locale.ROOT, "(%,.0f-%,.0f)", r.msgsMin(), r.msgsMax()), r.mb(),
                fmt(ratio(t, "weft-shm", r, Row::msgs)), fmt(ratio(t, "weft-tcp", r, Row::msgs)),
                fmt(overLimit(limits, r)));
        }
        if (!latency.isEmpty())
        {
            final Map<String, Row> l = index(latency);
            System.out.printf("%nLatency at fixed rates (us; send to own delivery; medians over senders and runs):%n");
            System.out.printf("%-5s %6s %7s %-16s %9s %9s %9s %10s %10s %9s %9s%n", "send", "size", "rate", "system",
                "p50", "p99", "p99.9", "shm/peer", "tcp/peer", "p50/floor", "p50/xcore");
            for (final Row r : latency)
            {
                if (r.failure() != null)
                {
                    System.out.printf("%-5s %6d %7d %-16s FAILED: %s%n", r.pattern(), r.size(), r.rate(), r.system(),
                        r.failure());
                    continue;
                }
                System.out.printf(Locale.ROOT, "%-5s %6d %7d %-16s %9.1f %9.1f %9.1f %10s %10s %9s %9s%n", r.pattern(),
                    r.size(), r.rate(), r.system(), r.p50(), r.p99(), r.p999(), fmt(ratio(l, "weft-shm", r, Row::p50)),
                    fmt(ratio(l, "weft-tcp", r, Row::p50)), fmt(overFloor(limits, r)), fmt(overCrossCore(limits, r)));
            }
            System.out.printf("%nLatency at fixed rates (us; send to delivery at the other members, what a " +
                "subscriber waits; medians over those members and runs):%n");
            System.out.printf("%-5s %6s %7s %-16s %9s %9s %9s %10s %10s%n", "send", "size", "rate", "system", "p50",
                "p99", "p99.9", "shm/peer", "tcp/peer");
            for (final Row r : latency)
            {
                if (r.failure() == null)
                {
                    System.out.printf(Locale.ROOT, "%-5s %6d %7d %-16s %9.1f %9.1f %9.1f %10s %10s%n", r.pattern(),
                        r.size(), r.rate(), r.system(), r.peerP50(), r.peerP99(), r.peerP999(),
                        fmt(ratio(l, "weft-shm", r, Row::peerP50)), fmt(ratio(l, "weft-tcp", r, Row::peerP50)));
                }
            }
        }
        System.out.println();
        System.out.println("shm/peer, tcp/peer: Weft on shm (tcp) over the peer on the same workload (throughput: " +
            "above 1 is Weft faster; latency p50: below 1 is Weft faster). x/limit: the row over the machine's " +
            "ceiling for its medium (shm, ipc: the SPSC ring at that size; tcp, udp: loopback tcp bandwidth / size). " +
            "p50/floor: over the 3-process token ring's round trip (shm, ipc) or the tcp round trip (tcp, udp). " +
            "p50/xcore (tcp, udp): over the tcp round trip at the row's rate with its ends pinned to two cores, " +
            "parked between pings (three members on fewer cores wake threads across cores, and idle cores between " +
            "messages). Own delivery and delivery at the others differ by system: Weft delivers a message once every " +
            "member has it, at its sender too; JGroups' SEQUENCER coordinator delivers its own messages as it orders " +
            "them, the others once the ordered copy reaches them.");
    }

    private String json(final MachineLimits limits, final List<Row> throughput, final List<Row> latency)
    {
        final Map<String, Row> t = index(throughput);
        final Map<String, Row> l = index(latency);
        final StringBuilder b = new StringBuilder("{\n");
        b.append(String.format(Locale.ROOT,
            "\"method\":{\"members\":%d,\"warmup_s\":%.1f,\"measure_s\":%.1f,\"runs\":%d},%n",
            MEMBERS, steady.warmup.toMillis() / 1e3, steady.measure.toMillis() / 1e3, steady.runs));
        b.append("\"limits\":").append(limits == null ? "null" : limits.json()).append(",\n\"throughput\":[\n");
        for (int i = 0; i < throughput.size(); i++)
        {
            final Row r = throughput.get(i);
            b.append("  ").append(json(r, String.format(Locale.ROOT, "\"weft_shm_over_peer\":%s," +
                    "\"weft_tcp_over_peer\":%s,\"over_limit\":%s", num(ratio(t, "weft-shm", r, Row::msgs)),
                num(ratio(t, "weft-tcp", r, Row::msgs)), num(overLimit(limits, r)))))
                .append(i + 1 < throughput.size() ? ",\n" : "\n");
        }
        b.append("],\n\"latency\":[\n");
        for (int i = 0; i < latency.size(); i++)
        {
            final Row r = latency.get(i);
            b.append("  ").append(json(r, String.format(Locale.ROOT, "\"peer_latency_p50_us\":%s," +
                    "\"peer_latency_p99_us\":%s,\"peer_latency_p999_us\":%s,\"weft_shm_p50_over_peer\":%s," +
                    "\"weft_tcp_p50_over_peer\":%s,\"weft_shm_peer_p50_over_peer\":%s," +
                    "\"weft_tcp_peer_p50_over_peer\":%s,\"p50_over_floor\":%s,\"p50_over_cross_core\":%s",
                num(r.peerP50()), num(r.peerP99()), num(r.peerP999()), num(ratio(l, "weft-shm", r, Row::p50)),
                num(ratio(l, "weft-tcp", r, Row::p50)), num(ratio(l, "weft-shm", r, Row::peerP50)),
                num(ratio(l, "weft-tcp", r, Row::peerP50)), num(overFloor(limits, r)), num(overCrossCore(limits, r)))))
                .append(i + 1 < latency.size() ? ",\n" : "\n");
        }
        return b.append("]\n}").toString();
    }

    private static String json(final Row r, final String ratios)
    {
        final String head = String.format(Locale.ROOT, "{\"senders\":\"%s\",\"size\":%d,\"rate\":%d,\"system\":\"%s\",",
            r.pattern(), r.size(), r.rate(), r.system());
        if (r.failure() != null)
        {
            return head + "\"failure\":\"" + r.failure().replace('"', '\'') + "\"}";
        }
        return head + String.format(Locale.ROOT, "\"delivered_msgs_per_sec\":%.0f," +
                "\"delivered_msgs_per_sec_min\":%.0f,\"delivered_msgs_per_sec_max\":%.0f,\"mb_per_sec\":%.2f," +
                "\"latency_p50_us\":%.2f,\"latency_p99_us\":%.2f,\"latency_p999_us\":%.2f,%s}", r.msgs(), r.msgsMin(),
            r.msgsMax(), r.mb(), r.p50(), r.p99(), r.p999(), ratios);
    }

    private static String num(final double v)
    {
        return Double.isNaN(v) || Double.isInfinite(v) ? "null" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String fmt(final double v)
    {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
    }
}

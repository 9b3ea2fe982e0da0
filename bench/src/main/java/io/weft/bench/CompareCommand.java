package io.weft.bench;

import io.weft.bench.peers.AeronMember;
import io.weft.bench.peers.JGroupsMember;
import io.weft.config.SmcConfig;
import io.weft.examples.MemberProcesses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code weft bench compare}: Weft on shm and tcp beside JGroups (SEQUENCER total order over TCP) and Aeron (one
 * publisher over UDP and IPC), in one invocation, on the same workloads: 3 members, all senders and one sender,
 * 128 B / 1 KiB / 10 KiB. Throughput runs go flat out; latency runs send at a fixed moderate rate. Every run checks
 * its own delivery (counts; identical total-order hashes for JGroups); a failed check replaces the number.
 */
@Command(name = "compare", description = "Weft beside JGroups and Aeron, same workloads, one invocation.")
final class CompareCommand implements Callable<Integer>
{
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    private static final Pattern BENCH = Pattern.compile("^BENCH (.*)$");
    private static final Pattern TEXT = Pattern.compile("\"(hash|check)\":\"([^\"]*)\"");

    @Option(names = "--runs", defaultValue = "3", description = "Repetitions of every run (default ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--sizes", defaultValue = "128,1024,10240", split = ",", description = "Message sizes.")
    int[] sizes;

    @Option(names = "--patterns", defaultValue = "all,one", split = ",", description = "Sender patterns: all, one.")
    String[] patterns;

    @Option(names = "--scale", defaultValue = "1.0", description = "Multiplies every message count (0.1 for a quick look).")
    double scale;

    @Option(names = "--rate", defaultValue = "1000", description = "Messages per second per sender in latency runs.")
    long rate;

    @Option(names = "--json", description = "Print JSON rows instead of a table.")
    boolean json;

    private static final int MEMBERS = 3;

    /** One system on one workload: medians over runs, or the reason it failed. */
    record Row(String pattern, int size, String system, double msgs, double msgsMin, double msgsMax, double mb,
        double p50, double p99, String failure)
    {
    }

    @Override
    public Integer call() throws Exception
    {
        final List<Row> rows = new ArrayList<>();
        for (final String pattern : patterns)
        {
            for (final int size : sizes)
            {
                final List<String> systems = new ArrayList<>(List.of("weft-shm", "weft-tcp", "jgroups-tcp"));
                if (pattern.equals("one"))
                {
                    systems.addAll(List.of("aeron-udp", "aeron-ipc"));
                }
                for (final String system : systems)
                {
                    final Row row = measure(pattern, size, system);
                    System.err.printf(Locale.ROOT, "compare: %s senders, %d B, %s: %s%n", pattern, size, system,
                        row.failure() != null ? "FAILED " + row.failure() :
                            String.format(Locale.ROOT, "%.0f msgs/s, p50 %.0f us", row.msgs(), row.p50()));
                    rows.add(row);
                }
            }
        }
        print(rows);
        return rows.stream().allMatch(r -> r.failure() == null) ? 0 : 1;
    }

    private Row measure(final String pattern, final int size, final String system) throws Exception
    {
        final List<double[]> throughput = new ArrayList<>();
        final List<double[]> latency = new ArrayList<>();
        for (int r = 0; r < runs; r++)
        {
            final Object t = once(pattern, size, system, 0, count(system, size));
            if (t instanceof String failure)
            {
                return new Row(pattern, size, system, 0, 0, 0, 0, 0, 0, failure);
            }
            throughput.add((double[])t);
            final Object l = once(pattern, size, system, rate, Math.max(200, (long)(4 * rate * Math.min(1.0, scale * 4))));
            if (l instanceof String failure)
            {
                return new Row(pattern, size, system, 0, 0, 0, 0, 0, 0, "latency run: " + failure);
            }
            latency.add((double[])l);
        }
        final double[] msgs = throughput.stream().mapToDouble(v -> v[0]).sorted().toArray();
        return new Row(pattern, size, system, median(throughput, 0), msgs[0], msgs[msgs.length - 1],
            median(throughput, 1), median(latency, 2), median(latency, 3), null);
    }

    private long count(final String system, final int size)
    {
        final long base = switch (system)
        {
            case "weft-shm" -> 100_000;
            case "weft-tcp", "jgroups-tcp" -> 30_000;
            default -> 300_000;
        };
        return Math.max(1000, (long)(base * scale / (size >= 10240 ? 4 : 1)));
    }

    private static double median(final List<double[]> runs, final int i)
    {
        final double[] v = runs.stream().mapToDouble(r -> r[i]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** One run: {msgs/s per receiver, MB/s, p50 us, p99 us}, or a String saying why it failed. */
    private Object once(final String pattern, final int size, final String system, final long rate, final long messages)
        throws Exception
    {
        final int senders = pattern.equals("all") ? MEMBERS : 1;
        if (system.startsWith("weft"))
        {
            final BenchOptions o = new BenchOptions();
            o.transport = system.substring(5);
            o.members = MEMBERS;
            o.senders = pattern;
            o.size = size;
            o.window = 100;
            o.messages = messages;
            o.delayed = "one";
            o.runs = 1;
            final List<Map<String, Double>> result = BenchRunner.once(o, SmcConfig.SPINDLE, rate);
            if (result == null)
            {
                return "a member did not finish or failed its check";
            }
            final Map<String, Double> m = BenchRunner.reduce(result, o);
            return new double[] {m.get("msgs"), m.get("mb"), m.get("p50"), m.get("p99")};
        }
        final int[] ports = freePorts(MEMBERS + 2);
        try (MemberProcesses processes = new MemberProcesses(QUIET))
        {
            final List<Integer> receivers = new ArrayList<>();
            if (system.equals("jgroups-tcp"))
            {
                final String portList = String.join(",", Arrays.stream(ports).limit(MEMBERS).mapToObj(String::valueOf).toList());
                for (int i = 0; i < MEMBERS; i++)
                {
                    processes.start("jg" + i, JGroupsMember.class, List.of(String.valueOf(i), String.valueOf(MEMBERS),
                        String.valueOf(senders), String.valueOf(messages), String.valueOf(size), String.valueOf(rate),
                        portList));
                    receivers.add(i);
                }
            }
            else
            {
                final String mode = system.substring(6);
                final String dir = "/dev/shm/aeron-weft-bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
                final int base = ports[0];
                processes.start("pub", AeronMember.class, List.of("pub", mode, "0", String.valueOf(MEMBERS - 1),
                    String.valueOf(messages), String.valueOf(size), String.valueOf(rate), String.valueOf(base), dir));
                for (int i = 1; i < MEMBERS; i++)
                {
                    processes.start("sub" + i, AeronMember.class, List.of("sub", mode, String.valueOf(i),
                        String.valueOf(MEMBERS - 1), String.valueOf(messages), String.valueOf(size), String.valueOf(rate),
                        String.valueOf(base), dir));
                    receivers.add(i);
                }
            }
            final int[] codes = processes.awaitAll(TimeUnit.MINUTES.toNanos(6));
            final List<Map<String, Double>> results = new ArrayList<>();
            final List<String> hashes = new ArrayList<>();
            for (final int i : receivers)
            {
                for (final String line : processes.lines(i))
                {
                    final Matcher bench = BENCH.matcher(line);
                    if (bench.find())
                    {
                        results.add(BenchRunner.parse(line));
                        final Matcher text = TEXT.matcher(line);
                        while (text.find())
                        {
                            if (text.group(1).equals("check") && !text.group(2).equals("ok"))
                            {
                                return "member " + i + ": " + text.group(2);
                            }
                            if (text.group(1).equals("hash"))
                            {
                                hashes.add(text.group(2));
                            }
                        }
                    }
                }
            }
            if (codes == null)
            {
                return "timed out";
            }
            if (results.size() != receivers.size() || Arrays.stream(codes).anyMatch(c -> c != 0))
            {
                return "exit codes " + Arrays.toString(codes) + ", " + results.size() + " of " + receivers.size() +
                    " receivers reported";
            }
            if (system.equals("jgroups-tcp") && hashes.stream().distinct().count() != 1)
            {
                return "total order violated: members delivered different sequences " + hashes;
            }
            final List<Map<String, Double>> latencyRows = system.equals("jgroups-tcp") ? results.subList(0, senders) : results;
            return new double[] {
                results.stream().mapToDouble(m -> m.get("delivered_msgs_per_sec")).average().orElse(0),
                results.stream().mapToDouble(m -> m.get("mb_per_sec")).average().orElse(0),
                latencyRows.stream().mapToDouble(m -> m.get("latency_p50_us")).sorted().toArray()[latencyRows.size() / 2],
                latencyRows.stream().mapToDouble(m -> m.get("latency_p99_us")).sorted().toArray()[latencyRows.size() / 2]};
        }
    }

    private static int[] freePorts(final int n) throws Exception
    {
        final List<ServerSocket> sockets = new ArrayList<>();
        try
        {
            // Aeron uses base..base+n consecutively: find a base whose next ports are free too
            for (int attempt = 0; attempt < 50; attempt++)
            {
                final ServerSocket first = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                final int base = first.getLocalPort();
                first.close();
                if (base + n < 65000 && rangeFree(base, n))
                {
                    final int[] ports = new int[n];
                    for (int i = 0; i < n; i++)
                    {
                        ports[i] = base + i;
                    }
                    return ports;
                }
            }
            throw new IllegalStateException("no " + n + " consecutive free ports on 127.0.0.1");
        }
        finally
        {
            for (final ServerSocket s : sockets)
            {
                s.close();
            }
        }
    }

    private static boolean rangeFree(final int base, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            try (ServerSocket ignored = new ServerSocket(base + i, 1, InetAddress.getLoopbackAddress()))
            {
                // free
            }
            catch (final Exception ex)
            {
                return false;
            }
            try (java.net.DatagramSocket ignored = new java.net.DatagramSocket(base + i, InetAddress.getLoopbackAddress()))
            {
                // free for udp too
            }
            catch (final Exception ex)
            {
                return false;
            }
        }
        return true;
    }

    private void print(final List<Row> rows)
    {
        final Map<String, Row> weft = new LinkedHashMap<>();
        for (final Row r : rows)
        {
            if (r.system().startsWith("weft"))
            {
                weft.put(r.pattern() + r.size() + r.system(), r);
            }
        }
        if (json)
        {
            System.out.println("[");
            for (int i = 0; i < rows.size(); i++)
            {
                final Row r = rows.get(i);
                final Row shm = weft.get(r.pattern() + r.size() + "weft-shm");
                final Row tcp = weft.get(r.pattern() + r.size() + "weft-tcp");
                System.out.printf(Locale.ROOT, "  {\"senders\":\"%s\",\"size\":%d,\"system\":\"%s\",%s}%s%n", r.pattern(),
                    r.size(), r.system(), r.failure() != null ? "\"failure\":\"" + r.failure().replace('"', '\'') + "\"" :
                        String.format(Locale.ROOT, "\"delivered_msgs_per_sec\":%.0f,\"delivered_msgs_per_sec_min\":%.0f," +
                            "\"delivered_msgs_per_sec_max\":%.0f,\"mb_per_sec\":%.2f,\"latency_p50_us\":%.0f," +
                            "\"latency_p99_us\":%.0f,\"weft_shm_throughput_ratio\":%.2f,\"weft_tcp_throughput_ratio\":%.2f," +
                            "\"weft_shm_p50_ratio\":%.3f", r.msgs(), r.msgsMin(), r.msgsMax(), r.mb(), r.p50(), r.p99(),
                            ratio(shm, r, true), ratio(tcp, r, true), ratio(shm, r, false)),
                    i + 1 < rows.size() ? "," : "");
            }
            System.out.println("]");
            return;
        }
        System.out.printf("%-6s %6s %-12s %12s %21s %9s %8s %8s %10s %10s %10s%n", "send", "size", "system", "msgs/s",
            "(min-max)", "MB/s", "p50 us", "p99 us", "shm/peer", "tcp/peer", "p50 s/p");
        for (final Row r : rows)
        {
            if (r.failure() != null)
            {
                System.out.printf("%-6s %6d %-12s FAILED: %s%n", r.pattern(), r.size(), r.system(), r.failure());
                continue;
            }
            final Row shm = weft.get(r.pattern() + r.size() + "weft-shm");
            final Row tcp = weft.get(r.pattern() + r.size() + "weft-tcp");
            final boolean peer = !r.system().startsWith("weft");
            System.out.printf(Locale.ROOT, "%-6s %6d %-12s %12.0f %21s %9.2f %8.0f %8.0f %10s %10s %10s%n", r.pattern(),
                r.size(), r.system(), r.msgs(), String.format(Locale.ROOT, "(%.0f-%.0f)", r.msgsMin(), r.msgsMax()), r.mb(),
                r.p50(), r.p99(), peer ? fmt(ratio(shm, r, true)) : "", peer ? fmt(ratio(tcp, r, true)) : "",
                peer ? fmt(ratio(shm, r, false)) : "");
        }
        System.out.println("shm/peer, tcp/peer: Weft's throughput over the peer's; p50 s/p: Weft-on-shm's p50 latency over " +
            "the peer's (below 1 is better). Latency runs send " + rate + " msgs/s per sender.");
    }

    private static double ratio(final Row weft, final Row peer, final boolean throughput)
    {
        if (weft == null || weft.failure() != null || peer.failure() != null)
        {
            return Double.NaN;
        }
        return throughput ? weft.msgs() / peer.msgs() : weft.p50() / Math.max(1, peer.p50());
    }

    private static String fmt(final double v)
    {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
    }
}

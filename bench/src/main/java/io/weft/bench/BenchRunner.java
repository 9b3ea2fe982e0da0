package io.weft.bench;

import io.weft.config.ConfigWriter;
import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.examples.MemberProcesses;


import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/** Runs bench member processes for one configuration, {@code runs} times, and reduces them to a {@link Row}. */
final class BenchRunner
{
    private static final Pattern NUMBER = Pattern.compile("\"([a-z0-9_]+)\":(-?[0-9.]+|true|false)");
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    private static final Pattern HISTOGRAM = Pattern.compile("\"([a-z]+)_batch_histogram\":\"([^\"]*)\"");
    /** Member 0's batch-size histograms of the last run on this thread, as text. */
    private static final ThreadLocal<String> LAST_HISTOGRAMS = new ThreadLocal<>();

    /** One configuration's result: medians over runs, with min and max of the throughput. */
    record Row(String name, String transport, int members, String senders, int size, int window, double msgsPerSec,
        double msgsMin, double msgsMax, double mbPerSec, double p50, double p99, double p999, double writesPerMsg,
        long nulls, double sendBatch, double receiveBatch, double deliveryBatch, String histograms, String failure)
    {
        String json()
        {
            return String.format(Locale.ROOT, "{\"config\":\"%s\",\"transport\":\"%s\",\"members\":%d,\"senders\":\"%s\"," +
                "\"size\":%d,\"window\":%d,\"delivered_msgs_per_sec\":%.0f,\"delivered_msgs_per_sec_min\":%.0f," +
                "\"delivered_msgs_per_sec_max\":%.0f,\"mb_per_sec\":%.2f,\"latency_p50_us\":%.0f,\"latency_p99_us\":%.0f," +
                "\"latency_p999_us\":%.0f,\"pushes_per_delivered_msg\":%.3f,\"nulls_sent\":%d,\"send_batch_mean\":%.2f," +
                "\"receive_batch_mean\":%.2f,\"delivery_batch_mean\":%.2f%s}", name, transport, members, senders, size, window,
                msgsPerSec, msgsMin, msgsMax, mbPerSec, p50, p99, p999, writesPerMsg, nulls, sendBatch, receiveBatch,
                deliveryBatch, (histograms == null ? "" : ",\"batch_histograms_member0\":\"" + histograms + "\"") +
                (failure == null ? "" : ",\"failure\":\"" + failure + "\""));
        }
    }

    static Row run(final String name, final BenchOptions o, final SmcConfig smc, final PrintStream log) throws Exception
    {
        final List<Map<String, Double>> runs = new ArrayList<>();
        String histograms = null;
        for (int r = 0; r < o.runs; r++)
        {
            final List<Map<String, Double>> members = once(o, smc, o.rate);
            if (members == null)
            {
                return failed(name, o, "a member did not finish (see --runs 1 with the member output)");
            }
            histograms = LAST_HISTOGRAMS.get();
            final Map<String, Double> reduced = reduce(members, o);
            log.printf(Locale.ROOT, "  %s run %d: %.0f msgs/s per member, p50 %.0f us, %.2f writes/msg%n", name, r + 1,
                reduced.get("msgs"), reduced.get("p50"), reduced.get("writes_per_msg"));
            runs.add(reduced);
        }
        final double[] msgs = runs.stream().mapToDouble(m -> m.get("msgs")).sorted().toArray();
        return new Row(name, o.transport, o.members, o.senders, o.size, o.window, median(runs, "msgs"), msgs[0],
            msgs[msgs.length - 1], median(runs, "mb"), median(runs, "p50"), median(runs, "p99"), median(runs, "p999"),
            median(runs, "writes_per_msg"), (long)median(runs, "nulls"), median(runs, "send_batch"),
            median(runs, "receive_batch"), median(runs, "delivery_batch"), histograms, null);
    }

    private static Row failed(final String name, final BenchOptions o, final String why)
    {
        return new Row(name, o.transport, o.members, o.senders, o.size, o.window, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null,
            why);
    }

    private static double median(final List<Map<String, Double>> runs, final String key)
    {
        final double[] v = runs.stream().mapToDouble(m -> m.get(key)).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** Per-member results of one run, or null if a member failed. */
    static List<Map<String, Double>> once(final BenchOptions o, final SmcConfig smc) throws Exception
    {
        return once(o, smc, 0);
    }

    /** Per-member results of one run at {@code rate} messages per second per sender (0: flat out), or null. */
    static List<Map<String, Double>> once(final BenchOptions o, final SmcConfig smc, final long rate) throws Exception
    {
        final int senders = o.senderCount();
        final List<Integer> senderIds = IntStream.range(0, senders).boxed().toList();
        final WeftConfig config = WeftConfig.builder().memberId(0).groupName("bench-" + ProcessHandle.current().pid())
            .members(io.weft.examples.LocalGroups.loopbackMembers(o.members)).transport(TransportKind.parse("--transport", o.transport))
            .rdma(o.rdma.options())
            .subgroups(List.of(new SubgroupConfig("bench", List.of(), senderIds, o.window, o.size, DeliveryMode.ORDERED)))
            .smc(smc).build();
        final Path dir = Files.createTempDirectory("weft-bench");
        final Path file = Files.writeString(dir.resolve("bench.conf"), ConfigWriter.render(config));
        final int delayedCount = o.delayMicros <= 0 ? 0 : o.delayed.equals("one") ? 1 : Math.max(1, senders / 2);
        try (MemberProcesses processes = new MemberProcesses(QUIET))
        {
            for (int i = 0; i < o.members; i++)
            {
                // the last senders are the delayed ones
                final boolean delayed = i < senders && i >= senders - delayedCount;
                processes.start("b" + i, Main.class, List.of("bench-member", "--config", file.toString(), "--member",
                    String.valueOf(i), "--messages", String.valueOf(o.messages), "--size", String.valueOf(o.size),
                    "--delay-us", String.valueOf(delayed ? o.delayMicros : 0), "--callback-us",
                    String.valueOf(o.callbackMicros), "--active-senders", String.valueOf(senders), "--rate",
                    String.valueOf(rate)));
            }
            final int[] codes = processes.awaitAll(java.util.concurrent.TimeUnit.MINUTES.toNanos(6));
            if (codes == null || Arrays.stream(codes).anyMatch(c -> c != 0))
            {
                return null;
            }
            final List<Map<String, Double>> result = new ArrayList<>();
            for (int i = 0; i < o.members; i++)
            {
                for (final String line : processes.lines(i))
                {
                    if (line.startsWith("BENCH "))
                    {
                        result.add(parse(line));
                        if (i == 0)
                        {
                            final StringBuilder h = new StringBuilder();
                            final Matcher m = HISTOGRAM.matcher(line);
                            while (m.find())
                            {
                                h.append(h.length() == 0 ? "" : " ").append(m.group(1)).append('[').append(m.group(2)).append(']');
                            }
                            LAST_HISTOGRAMS.set(h.toString());
                        }
                    }
                }
            }
            return result.size() == o.members ? result : null;
        }
        finally
        {
            deleteTree(dir);
        }
    }

    static Map<String, Double> reduce(final List<Map<String, Double>> members, final BenchOptions o)
    {
        final int senders = o.senderCount();
        final Map<String, Double> r = new HashMap<>();
        r.put("msgs", members.stream().mapToDouble(m -> m.get("delivered_msgs_per_sec")).average().orElse(0));
        r.put("mb", members.stream().mapToDouble(m -> m.get("mb_per_sec")).average().orElse(0));
        // latency is measured at senders only
        final List<Map<String, Double>> s = members.subList(0, senders);
        r.put("p50", medianOf(s, "latency_p50_us"));
        r.put("p99", medianOf(s, "latency_p99_us"));
        r.put("p999", medianOf(s, "latency_p999_us"));
        final double writes = members.stream().mapToDouble(m -> m.get("writes")).sum();
        r.put("writes_per_msg", writes / ((double)o.messages * senders));
        r.put("nulls", members.stream().mapToDouble(m -> m.get("nulls_sent")).sum());
        r.put("send_batch", s.stream().mapToDouble(m -> m.get("send_batch_mean")).average().orElse(0));
        r.put("receive_batch", members.stream().mapToDouble(m -> m.get("receive_batch_mean")).average().orElse(0));
        r.put("delivery_batch", members.stream().mapToDouble(m -> m.get("delivery_batch_mean")).average().orElse(0));
        return r;
    }

    private static double medianOf(final List<Map<String, Double>> rows, final String key)
    {
        final double[] v = rows.stream().mapToDouble(m -> m.get(key)).sorted().toArray();
        return v.length == 0 ? 0 : v[v.length / 2];
    }

    static Map<String, Double> parse(final String line)
    {
        final Map<String, Double> m = new HashMap<>();
        final Matcher matcher = NUMBER.matcher(line);
        while (matcher.find())
        {
            final String v = matcher.group(2);
            m.put(matcher.group(1), v.equals("true") ? 1.0 : v.equals("false") ? 0.0 : Double.parseDouble(v));
        }
        return m;
    }

    static void deleteTree(final Path dir) throws IOException
    {
        try (var files = Files.list(dir))
        {
            for (final Path f : files.toList())
            {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(dir);
    }

    static void print(final List<Row> rows, final boolean json, final PrintStream out)
    {
        if (json)
        {
            out.println("[");
            for (int i = 0; i < rows.size(); i++)
            {
                out.println("  " + rows.get(i).json() + (i + 1 < rows.size() ? "," : ""));
            }
            out.println("]");
            return;
        }
        out.printf("%-22s %-4s %3s %-5s %6s %12s %21s %9s %8s %8s %8s %10s %9s %17s%n", "config", "tp", "n", "send",
            "size", "msgs/s", "(min-max)", "MB/s", "p50 us", "p99 us", "p999 us", "writes/msg", "nulls", "batch s/r/d");
        for (final Row r : rows)
        {
            if (r.failure() != null)
            {
                out.printf("%-22s %-4s %3d %-5s %6d FAILED: %s%n", r.name(), r.transport(), r.members(), r.senders(),
                    r.size(), r.failure());
                continue;
            }
            out.printf(Locale.ROOT, "%-22s %-4s %3d %-5s %6d %12.0f %21s %9.2f %8.0f %8.0f %8.0f %10.3f %9d %17s%n",
                r.name(), r.transport(), r.members(), r.senders(), r.size(), r.msgsPerSec(),
                String.format(Locale.ROOT, "(%.0f-%.0f)", r.msgsMin(), r.msgsMax()), r.mbPerSec(), r.p50(), r.p99(),
                r.p999(), r.writesPerMsg(), r.nulls(),
                String.format(Locale.ROOT, "%.1f/%.1f/%.1f", r.sendBatch(), r.receiveBatch(), r.deliveryBatch()));
        }
        out.println("batch-size histograms of member 0, last run (size range:batches):");
        for (final Row r : rows)
        {
            if (r.histograms() != null)
            {
                out.printf("  %-22s %s%n", r.name(), r.histograms());
            }
        }
    }
}

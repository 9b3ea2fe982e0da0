package io.weft.bench;

import io.weft.config.ConfigWriter;
import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.config.DdsConfig;
import io.weft.config.QosLevel;
import io.weft.config.SubgroupConfig;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.bench.steady.SteadyRun;


import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/** Runs bench member processes for one configuration, {@code runs} times, and reduces them to a {@link Row}. */
final class BenchRunner
{
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    /**
     * One configuration's result: medians over runs, with min and max of the throughput. p50, p99, p999: send to own
     * delivery at the senders; peerP50, peerP99: send to delivery at the other members (with --rate; NaN flat out).
     */
    record Row(String name, String transport, int members, String senders, int size, int window, double msgsPerSec,
        double msgsMin, double msgsMax, double mbPerSec, double p50, double p99, double p999, double peerP50,
        double peerP99, double writesPerMsg,
        long nulls, double sendBatch, double receiveBatch, double deliveryBatch, String histograms, String failure)
    {
        String json()
        {
            return String.format(Locale.ROOT,
                "{\"config\":\"%s\",\"transport\":\"%s\",\"members\":%d,\"senders\":\"%s\",\"size\":%d," +
                "\"window\":%d,\"delivered_msgs_per_sec\":%.0f,\"delivered_msgs_per_sec_min\":%.0f," +
                "\"delivered_msgs_per_sec_max\":%.0f,\"mb_per_sec\":%.2f,\"latency_p50_us\":%.0f," +
                "\"latency_p99_us\":%.0f,\"latency_p999_us\":%.0f,\"peer_latency_p50_us\":%s," +
                "\"peer_latency_p99_us\":%s,\"pushes_per_delivered_msg\":%.3f,\"nulls_sent\":%d," +
                "\"send_batch_mean\":%.2f,\"receive_batch_mean\":%.2f,\"delivery_batch_mean\":%.2f%s}",
                name, transport, members, senders, size, window,
                msgsPerSec, msgsMin, msgsMax, mbPerSec, p50, p99, p999, micros(peerP50, "null"),
                micros(peerP99, "null"), writesPerMsg, nulls, sendBatch, receiveBatch,
                deliveryBatch, (histograms == null ? "" : ",\"batch_histograms_member0\":\"" + histograms + "\"") +
                (failure == null ? "" : ",\"failure\":\"" + failure + "\""));
        }
    }

    /** One row of a table: its name, its multicast switches, and its DDS QoS level (null: the Group API). */
    record Spec(String name, SmcConfig smc, QosLevel qos)
    {
    }

    /**
     * Runs every row in order (in invoker mode named so), prints the table (JSON with {@code --json}, the progress
     * then on stderr) and returns the rows.
     */
    static List<Row> table(final BenchOptions o, final List<Spec> specs) throws Exception
    {
        final List<Row> rows = new ArrayList<>();
        for (final Spec spec : specs)
        {
            o.qos = spec.qos();
            rows.add(run(o.invoker ? spec.name() + "-invoker" : spec.name(), o, spec.smc(),
                o.json ? System.err : System.out));
        }
        print(rows, o.json, System.out);
        return rows;
    }

    /** The exit code of a table: 0 when every row ran, 1 when one failed. */
    static int exitCode(final List<Row> rows)
    {
        return rows.stream().allMatch(r -> r.failure() == null) ? 0 : 1;
    }

    static Row run(final String name, final BenchOptions o, final SmcConfig smc, final PrintStream log) throws Exception
    {
        final List<Map<String, Double>> runs = new ArrayList<>();
        String histograms = null;
        for (int r = 0; r < o.steady.runs; r++)
        {
            final SteadyRun.Outcome run = once(o, smc, o.rate, o.steady.verbose ? log : QUIET);
            if (run.failure() != null)
            {
                return failed(name, o, run.failure());
            }
            histograms = histograms(run.reports().getFirst());
            final Map<String, Double> reduced = reduce(run, o);
            log.printf(Locale.ROOT, "  %s run %d: %.0f msgs/s per member, p50 %.0f us (at the others %s us), " +
                "%.2f writes/msg%n", name, r + 1, reduced.get("msgs"), reduced.get("p50"),
                micros(reduced.get("peer_p50"), "-"), reduced.get("writes_per_msg"));
            runs.add(reduced);
        }
        final double[] msgs = runs.stream().mapToDouble(m -> m.get("msgs")).sorted().toArray();
        return new Row(name, o.transport, o.members, o.senders, o.size, o.slots(), median(runs, "msgs"), msgs[0],
            msgs[msgs.length - 1], median(runs, "mb"), median(runs, "p50"), median(runs, "p99"), median(runs, "p999"),
            median(runs, "peer_p50"), median(runs, "peer_p99"), median(runs, "writes_per_msg"),
            (long)median(runs, "nulls"), median(runs, "send_batch"), median(runs, "receive_batch"),
            median(runs, "delivery_batch"), histograms, null);
    }

    /** Member 0's batch-size histograms, as text. */
    private static String histograms(final SteadyRun.Report member0)
    {
        final StringBuilder h = new StringBuilder();
        for (final String kind : List.of("send", "receive", "delivery"))
        {
            final String text = member0.texts().get(kind + "_batch_histogram");
            if (text != null)
            {
                h.append(h.length() == 0 ? "" : " ").append(kind).append('[').append(text).append(']');
            }
        }
        return h.toString();
    }

    private static Row failed(final String name, final BenchOptions o, final String why)
    {
        return new Row(name, o.transport, o.members, o.senders, o.size, o.slots(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, null, why);
    }

    private static double median(final List<Map<String, Double>> runs, final String key)
    {
        final double[] v = runs.stream().mapToDouble(m -> m.get(key)).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** One run at {@code rate} messages per second per sender (0: flat out): the members' reports, or the failure. */
    static SteadyRun.Outcome once(final BenchOptions o, final SmcConfig smc, final long rate, final PrintStream log)
        throws Exception
    {
        final int senders = o.senderCount();
        final List<Integer> senderIds = IntStream.range(0, senders).boxed().toList();
        final Path dir = Files.createTempDirectory("weft-bench");
        final WeftConfig.Builder builder = WeftConfig.builder().memberId(0)
            .groupName("bench-" + ProcessHandle.current().pid())
            .members(io.weft.testkit.LocalGroups.loopbackMembers(o.members))
            .transport(TransportKind.parse("--transport", o.transport))
            .rdma(o.rdma.options()).shmZeroCopy(!o.shmCopy).tcpThreading(o.tcpThreading).smc(smc);
        if (o.qos == null)
        {
            builder.subgroups(List.of(new SubgroupConfig("bench", List.of(), senderIds, o.slots(), o.maxPayloadBytes(),
                DeliveryMode.ORDERED)));
        }
        else
        {
            builder.dds(new DdsConfig(dir.resolve("logs"), List.of(new TopicConfig("bench", 1, o.qos, senderIds,
                List.of(), o.slots(), o.maxPayloadBytes(), 1024))));
        }
        final WeftConfig config = builder.build();
        final Path file = Files.writeString(dir.resolve("bench.conf"), ConfigWriter.render(config));
        final int delayedCount = o.work.delayMicros() <= 0 ? 0 : o.delayed.equals("one") ? 1 : Math.max(1, senders / 2);
        try
        {
            final List<SteadyRun.Member> members = new ArrayList<>();
            for (int i = 0; i < o.members; i++)
            {
                // the last senders are the delayed ones
                final boolean delayed = i < senders && i >= senders - delayedCount;
                final List<String> args = new ArrayList<>(List.of("bench-member", "--config", file.toString(),
                    "--member", String.valueOf(i), "--size", String.valueOf(o.size),
                    "--warmup-ns", String.valueOf(o.steady.warmup.toNanos()),
                    "--measure-ns", String.valueOf(o.steady.measure.toNanos()), "--delay-us",
                    String.valueOf(delayed ? o.work.delayMicros() : 0), "--callback-us",
                    String.valueOf(o.work.callbackMicros()),
                    "--active-senders", String.valueOf(senders), "--rate", String.valueOf(rate)));
                if (o.qos != null)
                {
                    args.addAll(List.of("--qos", o.qos.configName()));
                }
                if (o.invoker)
                {
                    args.add("--invoker");
                }
                if (i == 0 && o.corruptMessage >= 0)
                {
                    args.addAll(List.of("--corrupt-message", String.valueOf(o.corruptMessage)));
                }
                members.add(new SteadyRun.Member("b" + i, Main.class, args));
            }
            return SteadyRun.run(members, o.steady.warmup.toNanos(), o.steady.measure.toNanos(),
                o.qos != io.weft.config.QosLevel.UNORDERED, log);
        }
        finally
        {
            io.weft.testkit.Trees.delete(dir);
        }
    }

    /** One run reduced: msgs/s and MB/s per member (mean), latency (median over senders), writes, batches. */
    static Map<String, Double> reduce(final SteadyRun.Outcome run, final BenchOptions o)
    {
        final int senders = o.senderCount();
        final Map<String, Double> r = new HashMap<>();
        r.put("msgs", run.mean("delivered_msgs_per_sec"));
        r.put("mb", run.mean("mb_per_sec"));
        r.put("p50", run.median("latency_p50_us", senders));
        r.put("p99", run.median("latency_p99_us", senders));
        r.put("p999", run.median("latency_p999_us", senders));
        r.put("peer_p50", run.receiversMedian("peer_latency_p50_us"));
        r.put("peer_p99", run.receiversMedian("peer_latency_p99_us"));
        r.put("writes_per_msg", run.sum("writes") / Math.max(1, run.sum("sent")));
        r.put("nulls", run.sum("nulls_sent"));
        r.put("send_batch", run.reports().subList(0, senders).stream().mapToDouble(m -> m.get("send_batch_mean"))
            .average().orElse(0));
        r.put("receive_batch", run.mean("receive_batch_mean"));
        r.put("delivery_batch", run.mean("delivery_batch_mean"));
        return r;
    }

    /** Whole microseconds, or {@code none} for NaN (no samples: a run flat out). */
    private static String micros(final double v, final String none)
    {
        return Double.isNaN(v) ? none : String.format(Locale.ROOT, "%.0f", v);
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
        out.printf("%-22s %-4s %3s %-5s %6s %12s %21s %9s %8s %8s %8s %13s %10s %9s %17s%n", "config", "tp", "n",
            "send", "size", "msgs/s", "(min-max)", "MB/s", "p50 us", "p99 us", "p999 us", "others p50/99", "writes/msg",
            "nulls", "batch s/r/d");
        for (final Row r : rows)
        {
            if (r.failure() != null)
            {
                out.printf("%-22s %-4s %3d %-5s %6d FAILED: %s%n", r.name(), r.transport(), r.members(), r.senders(),
                    r.size(), r.failure());
                continue;
            }
            out.printf(Locale.ROOT,
                "%-22s %-4s %3d %-5s %6d %12.0f %21s %9.2f %8.0f %8.0f %8.0f %13s %10.3f %9d %17s%n", r.name(),
                r.transport(), r.members(), r.senders(), r.size(), r.msgsPerSec(),
                String.format(Locale.ROOT, "(%.0f-%.0f)", r.msgsMin(), r.msgsMax()), r.mbPerSec(), r.p50(), r.p99(),
                r.p999(), Double.isNaN(r.peerP50()) ? "-" : micros(r.peerP50(), "-") + "/" + micros(r.peerP99(), "-"),
                r.writesPerMsg(), r.nulls(),
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

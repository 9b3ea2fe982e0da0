package io.weft.bench.steady;

import io.weft.testkit.MemberProcesses;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The coordinator side of the steady-state method: starts every member in its own JVM, waits until each printed
 * READY, gives them all one start instant ({@link SteadyClock}), waits for them to end and collects their
 * {@code BENCH} lines. A run fails, with the reason, when a member fails its delivery check, exits non-zero, reports
 * nothing, or (for total-order systems) when the members' hash chains differ.
 */
public final class SteadyRun
{
    /** Every member JVM alike: its own heap and G1, as steady state was measured for every system. */
    public static final List<String> MEMBER_JVM = List.of("-Xms512m", "-Xmx2g", "-XX:+UseG1GC");

    private static final Pattern FIELD = Pattern.compile("\"([a-z0-9_]+)\":(\"[^\"]*\"|[^,}]+)");
    private static final long READY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);
    private static final long GO_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private SteadyRun()
    {
    }

    /** A member process: its name, main class and arguments. */
    public record Member(String name, Class<?> main, List<String> args)
    {
    }

    /** One member's {@code BENCH} line. */
    public record Report(Map<String, Double> numbers, Map<String, String> texts)
    {
        public double get(final String key)
        {
            final Double v = numbers.get(key);
            if (v == null)
            {
                throw new IllegalStateException("a member's report has no " + key + ": " + numbers.keySet());
            }
            return v;
        }
    }

    /** The reports of every member in start order, or why the run failed. */
    public record Outcome(List<Report> reports, String failure)
    {
        /** Mean of {@code key} over every member. */
        public double mean(final String key)
        {
            return reports.stream().mapToDouble(r -> r.get(key)).average().orElse(0);
        }

        /** Sum of {@code key} over every member. */
        public double sum(final String key)
        {
            return reports.stream().mapToDouble(r -> r.get(key)).sum();
        }

        /**
         * Median of {@code key} over the {@code n} senders: the members that sent, whichever they are (a peer may
         * give the sender roles by its own order: JGroups members by their place in the view).
         */
        public double median(final String key, final int n)
        {
            final List<Report> senders = reports.stream().filter(r -> r.get("sent") > 0).toList();
            if (senders.size() != n)
            {
                throw new IllegalStateException(n + " senders expected, " + senders.size() + " members sent");
            }
            return middle(senders, key);
        }

        /**
         * Median of {@code key} over the members that timed other senders' messages (runs at a fixed rate); NaN
         * where none did (flat out).
         */
        public double receiversMedian(final String key)
        {
            return middle(reports.stream().filter(r -> r.get("peer_latency_samples") > 0).toList(), key);
        }

        private static double middle(final List<Report> members, final String key)
        {
            final double[] v = members.stream().mapToDouble(r -> r.get(key)).sorted().toArray();
            return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] :
                (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        }
    }

    /** Runs one measurement; member output goes to {@code log}. */
    public static Outcome run(final List<Member> members, final long warmupNanos, final long measureNanos,
        final boolean totalOrder, final PrintStream log) throws InterruptedException
    {
        try (MemberProcesses processes = new MemberProcesses(log))
        {
            for (final Member m : members)
            {
                processes.start(m.name(), m.main(), MEMBER_JVM, m.args());
            }
            final String notReady = awaitReady(processes, members);
            if (notReady != null)
            {
                return new Outcome(List.of(), notReady);
            }
            final byte[] go = ("GO " + (System.nanoTime() + GO_DELAY_NANOS) + "\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < members.size(); i++)
            {
                try
                {
                    final OutputStream in = processes.process(i).getOutputStream();
                    in.write(go);
                    in.flush();
                }
                catch (final IOException ex)
                {
                    return new Outcome(List.of(), members.get(i).name() + " could not be started: " + ex.getMessage());
                }
            }
            final int[] codes = processes.awaitAll(warmupNanos + measureNanos + SteadyClock.TAIL_NANOS +
                TimeUnit.SECONDS.toNanos(120));
            if (codes == null)
            {
                return new Outcome(List.of(), "timed out; last lines: " + lastLines(processes, members));
            }
            return collect(processes, members, codes, totalOrder);
        }
    }

    private static String awaitReady(final MemberProcesses processes, final List<Member> members)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
        for (int i = 0; i < members.size(); i++)
        {
            while (!processes.lines(i).contains("READY"))
            {
                final Process p = processes.process(i);
                if (!p.isAlive())
                {
                    return members.get(i).name() + " exited with " + p.exitValue() + " before it was ready: " +
                        last(processes.lines(i));
                }
                if (System.nanoTime() > deadline)
                {
                    return members.get(i).name() + " was not ready within 120 s: " + last(processes.lines(i));
                }
                Thread.sleep(5);
            }
        }
        return null;
    }

    private static Outcome collect(final MemberProcesses processes, final List<Member> members, final int[] codes,
        final boolean totalOrder)
    {
        final List<Report> reports = new ArrayList<>();
        for (int i = 0; i < members.size(); i++)
        {
            final Report report = processes.lines(i).stream().filter(l -> l.startsWith("BENCH ")).findFirst()
                .map(SteadyRun::parse).orElse(null);
            if (report == null)
            {
                return new Outcome(List.of(), members.get(i).name() + " reported nothing (exit code " + codes[i] +
                    "): " + last(processes.lines(i)));
            }
            final String check = report.texts().getOrDefault("check", "ok");
            if (!"ok".equals(check))
            {
                return new Outcome(List.of(), members.get(i).name() + ": " + check);
            }
            reports.add(report);
        }
        if (Arrays.stream(codes).anyMatch(c -> c != 0))
        {
            return new Outcome(List.of(), "exit codes " + Arrays.toString(codes) + ": " +
                lastLines(processes, members));
        }
        if (totalOrder && reports.stream().map(r -> r.texts().get("hash")).distinct().count() != 1)
        {
            return new Outcome(List.of(), "total order violated: the members' hash chains differ " +
                reports.stream().map(r -> r.texts().get("hash")).toList());
        }
        return new Outcome(reports, null);
    }

    /** Parses a {@code BENCH {...}} line. */
    public static Report parse(final String line)
    {
        final Map<String, Double> numbers = new HashMap<>();
        final Map<String, String> texts = new HashMap<>();
        final Matcher m = FIELD.matcher(line);
        while (m.find())
        {
            final String v = m.group(2).trim();
            if (v.startsWith("\""))
            {
                texts.put(m.group(1), v.substring(1, v.length() - 1));
            }
            else if (v.equals("true") || v.equals("false"))
            {
                numbers.put(m.group(1), v.equals("true") ? 1.0 : 0.0);
            }
            else
            {
                numbers.put(m.group(1), Double.parseDouble(v));
            }
        }
        return new Report(numbers, texts);
    }

    private static String lastLines(final MemberProcesses processes, final List<Member> members)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < members.size(); i++)
        {
            b.append(i == 0 ? "" : "; ").append(members.get(i).name()).append(": ").append(last(processes.lines(i)));
        }
        return b.toString();
    }

    private static String last(final List<String> lines)
    {
        return lines.isEmpty() ? "(no output)" : lines.getLast();
    }
}

package io.weft.bench;

import io.weft.config.ConfigWriter;
import io.weft.config.LocalPorts;
import io.weft.config.TransportKind;
import io.weft.tools.KvCommand;
import io.weft.testkit.MemberProcesses;
import io.weft.testkit.Trees;
import io.weft.tools.Weft;
import io.weft.bench.peers.EtcdCluster;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code weft bench kv}: {@code redis-benchmark} (Debian package redis-tools) against the replicated key-value store
 * (three members on loopback, linearizable reads) and against a single {@code redis-server} (in memory, no
 * persistence), a three-member etcd cluster, and on request both logging to disk with the same promise
 * ({@code weft-kv-log}, {@code redis-server-aof}), one system at a time, in one invocation, with the same client work
 * for all. Steady state:
 * each test first runs warm-up passes for {@code --warmup} (a JVM compiles its hot path for several seconds), and
 * the rate of the last sizes the measured pass to about {@code --measure}.
 */
@Command(name = "kv", description = "redis-benchmark against the replicated key-value store and a single " +
    "redis-server, in one invocation, with ratios.")
final class KvBenchCommand implements Callable<Integer>
{
    @Option(names = "--runs", defaultValue = "3", description = "Runs of each system (medians; default ${DEFAULT-VALUE}).")
    int runs;

    /** The replicated store's members and transport. */
    @picocli.CommandLine.Mixin
    io.weft.tools.LocalGroupOptions group = new io.weft.tools.LocalGroupOptions("tcp", 3, 1, 16, false);

    @Option(names = "--clients", defaultValue = "50", description = "redis-benchmark -c (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--pipeline", defaultValue = "16", description = "redis-benchmark -P (default ${DEFAULT-VALUE}).")
    int pipeline;

    @Option(names = "--size", defaultValue = "3", description = "redis-benchmark -d, value bytes (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--keys", defaultValue = "100000", description = "redis-benchmark -r, key space (default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--warmup", defaultValue = "10s", description = "Warm-up per test, before the measured pass " +
        "(default ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--measure", defaultValue = "10s", description = "Measured pass per test, about (default ${DEFAULT-VALUE}).")
    Duration measure;

    @Option(names = "--systems", split = ",", description = "Systems to run (default: weft-kv, redis-server, etcd; " +
        "etcd needs the Debian package etcd-server and is driven through its gRPC API, see docs/benchmarks.md). " +
        "Durable, with the same promise (a write survives kill -9 of a process, not a crash of the host): " +
        "weft-kv-log (members with --log, compacted every 64 MiB of writes) and redis-server-aof (an append-only " +
        "file the OS flushes: appendfsync no); etcd fsyncs each commit.")
    List<String> systems = List.of("weft-kv", "redis-server", "etcd");

    @Option(names = "--tests", split = ",", description = "redis-benchmark tests: set, get, hset and sadd (random " +
        "fields of one hash, members of one set; not run on etcd) (default: set, get); and jobs: a job queue, " +
        "--clients workers in BLPOP at each member (redis-server: as many at its one port), one producer pushing " +
        "--rate jobs a second, latency from a push to the worker that takes it (not run on etcd).")
    List<String> tests = List.of("set", "get");

    @Option(names = "--rate", defaultValue = "1000", description = "Jobs pushed a second in the jobs test " +
        "(default ${DEFAULT-VALUE}).")
    double rate;

    /** What {@code --tests} takes. */
    private static final List<String> TESTS = List.of("set", "get", "hset", "sadd", "jobs");

    /** What {@code --systems} takes. */
    private static final List<String> SYSTEMS = List.of("weft-kv", "weft-kv-log", "redis-server", "redis-server-aof",
        "etcd");

    /** Requests of the shortest pass: the first warm-up pass, which finds the rate, and the least measured one. */
    private static final long MIN_PASS = 20_000;

    private final PrintStream out = System.out;
    private int members;

    /** One measured pass: requests per second and latency percentiles in milliseconds, from redis-benchmark's CSV. */
    record Pass(double rps, double p50, double p95, double p99)
    {
    }

    @Override
    public Integer call() throws Exception
    {
        if (group.problem() != null)
        {
            return Weft.refuse(group.problem());
        }
        final TransportKind kind = group.transport();
        members = group.members();
        for (final String system : systems)
        {
            if (!SYSTEMS.contains(system))
            {
                System.err.println("weft: --systems takes " + String.join(", ", SYSTEMS) + ", not '" + system + "'");
                return Weft.EXIT_CONFIG;
            }
        }
        if (tests.isEmpty() || !TESTS.containsAll(tests))
        {
            return Weft.refuse("--tests takes " + String.join(", ", TESTS) + ", not " + String.join(",", tests));
        }
        if (!(rate >= 1 && rate <= 100_000) || clients < 1)
        {
            return Weft.refuse("--rate takes 1 to 100000 jobs a second and --clients at least 1, not " + rate +
                " and " + clients);
        }
        if (!onPath("redis-benchmark") || (systems.stream().anyMatch(s -> s.startsWith("redis")) &&
            !onPath("redis-server")) ||
            (systems.contains("etcd") && !onPath("etcd")))
        {
            System.err.println("weft: bench kv needs redis-benchmark, redis-server and etcd: apt-get install " +
                "redis-tools redis-server etcd-server (or leave systems out with --systems)");
            return Weft.EXIT_CONFIG;
        }
        final Path dir = Files.createTempDirectory("weft-bench-kv");
        final Map<String, List<Pass>> results = new LinkedHashMap<>();
        out.printf("bench kv: %s; warm-up %s then about %s per test; " +
            "%d run(s); weft-kv: %d members on %s, linearizable reads%s%n", clientWork(),
            warmup.toSeconds() + "s", measure.toSeconds() + "s", runs, members, kind.configName(),
            systems.stream().anyMatch(s -> s.endsWith("-log") || s.endsWith("-aof")) ? "; logs in " + dir : "");
        try
        {
            for (int run = 0; run < runs; run++)
            {
                // rotate which system goes first, so that none always meets a warmer (or hotter) machine
                for (int s = 0; s < systems.size(); s++)
                {
                    switch (systems.get((s + run) % systems.size()))
                    {
                        case "weft-kv" -> measureWeft(kind, dir, null, results);
                        case "weft-kv-log" -> measureWeft(kind, dir, dir.resolve("weft-kv-logs"), results);
                        case "redis-server" -> measureRedis(null, results);
                        case "redis-server-aof" -> measureRedis(dir.resolve("redis-aof"), results);
                        default -> measureEtcd(dir.resolve("etcd-" + run), results);
                    }
                }
            }
        }
        finally
        {
            Trees.delete(dir);
        }
        print(results);
        return 0;
    }

    /** The first line's account of the client work: redis-benchmark's arguments, the job queue's. */
    private String clientWork()
    {
        final List<String> benchmarked = tests.stream().filter(t -> !t.equals("jobs")).toList();
        final List<String> parts = new ArrayList<>();
        if (!benchmarked.isEmpty())
        {
            parts.add(String.format("redis-benchmark -c %d -P %d -d %d -r %d -t %s", clients, pipeline, size, keys,
                String.join(",", benchmarked)));
        }
        if (tests.contains("jobs"))
        {
            parts.add(String.format(Locale.ROOT, "jobs: %d workers in BLPOP at each member, %.0f pushes a second",
                clients, rate));
        }
        return String.join("; ", parts);
    }

        /** {@code logs}: where the members log (system weft-kv-log), or null (weft-kv, in memory). */
    private void measureWeft(final TransportKind kind, final Path dir, final Path logs,
        final Map<String, List<Pass>> results) throws Exception
    {
        final List<Integer> free = LocalPorts.free(3 * members);
        final Path file = Files.writeString(dir.resolve("kv.conf"),
            ConfigWriter.render(KvCommand.config(kind, free.subList(0, 2 * members))));
        final int port = free.get(2 * members);
        try (MemberProcesses processes = new MemberProcesses(new PrintStream(PrintStream.nullOutputStream())))
        {
            for (int i = 0; i < members; i++)
            {
                final List<String> args = new ArrayList<>(List.of("kv-member", "--config", file.toString(), "--member",
                    String.valueOf(i), "--port", String.valueOf(free.get(2 * members + i))));
                if (logs != null)
                {
                    args.addAll(List.of("--log", logs.resolve("member-" + i).toString()));
                }
                processes.start("kv" + i, Weft.class, args);
            }
            for (int i = 0; i < members; i++)
            {
                awaitPort(free.get(2 * members + i), processes.process(i));
            }
            measureTests(logs == null ? "weft-kv" : "weft-kv-log", free.subList(2 * members, 3 * members), results);
            for (int i = 0; i < members; i++)
            {
                processes.process(i).destroy();
            }
            processes.awaitAll(TimeUnit.SECONDS.toNanos(20));
        }
        finally
        {
            written("weft-kv-log's logs", logs);
        }
    }

    /** {@code aof}: where redis-server keeps its append-only file (system redis-server-aof), or null (in memory). */
    private void measureRedis(final Path aof, final Map<String, List<Pass>> results) throws Exception
    {
        final int port = LocalPorts.free(1).getFirst();
        final List<String> args = new ArrayList<>(List.of("redis-server", "--port", String.valueOf(port), "--bind",
            "127.0.0.1", "--save", "", "--daemonize", "no", "--appendonly", aof != null ? "yes" : "no"));
        if (aof != null)
        {
            args.addAll(List.of("--appendfsync", "no", "--dir", Files.createDirectories(aof).toString()));
        }
        final Process redis = new ProcessBuilder(args).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try
        {
            awaitPort(port, redis);
            measureTests(aof == null ? "redis-server" : "redis-server-aof", Collections.nCopies(members, port),
                results);
        }
        finally
        {
            redis.destroy();
            if (!redis.waitFor(10, TimeUnit.SECONDS))
            {
                redis.destroyForcibly();
            }
            written("redis-server-aof's append-only file", aof);
        }
    }

    /** Prints what a durable system wrote to {@code dir} by the end of its run (it logged), then deletes it. */
    private void written(final String what, final Path dir) throws IOException, InterruptedException
    {
        if (dir == null || !Files.isDirectory(dir))
        {
            return;
        }
        // du: the blocks written, where a log's file length counts the chunks it mapped ahead
        final Process du = new ProcessBuilder("du", "-sk", dir.toString()).redirectErrorStream(true).start();
        final String kib = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\\s")[0];
        du.waitFor(30, TimeUnit.SECONDS);
        out.printf(Locale.ROOT, "bench kv: %s at the end of the run: %s KiB on disk (du -sk)%n", what, kib);
        Trees.delete(dir);
    }

    private void measureEtcd(final Path dir, final Map<String, List<Pass>> results) throws Exception
    {
        try (EtcdCluster etcd = new EtcdCluster(dir, LocalPorts.free(2 * members)))
        {
            for (final String test : tests.stream().filter(t -> t.equals("set") || t.equals("get")).toList())
            {
                final EtcdCluster.Window w = etcd.run(test.equals("set"), clients * pipeline, keys, size, warmup,
                    measure);
                out.printf(Locale.ROOT, "bench kv: %-16s %s %,12.0f requests/s  p50 %.3f ms  p99 %.3f ms  errors %d%n",
                    "etcd", test.toUpperCase(Locale.ROOT), w.rps(), w.p50(), w.p99(), w.errors());
                results.computeIfAbsent("etcd " + test.toUpperCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(new Pass(w.rps(), w.p50(), w.p95(), w.p99()));
            }
        }
        // etcd's write-ahead log leaves dirty pages whose writeback would run during the next system's window
        new ProcessBuilder("sync").inheritIO().start().waitFor(60, TimeUnit.SECONDS);
    }

    /** {@code ports}: the port of each member of the store, or a single server's port as often. */
    private void measureTests(final String system, final List<Integer> ports, final Map<String, List<Pass>> results)
        throws Exception
    {
        final int port = ports.getFirst();
        for (final String test : tests)
        {
            final Pass pass;
            String perJob = "";
            if (test.equals("jobs"))
            {
                try (JobQueue queue = new JobQueue(ports, clients, "bench-jobs-" + System.nanoTime()))
                {
                    pass = queue.run(rate, warmup, measure);
                    perJob = Double.isNaN(queue.writesPerJob()) ? "" :
                        String.format(Locale.ROOT, "  writes applied per job %.2f", queue.writesPerJob());
                }
            }
            else
            {
                final Pass warm = warmUp(port, test);
                final long n = Math.max(MIN_PASS, (long)(warm.rps * measure.toMillis() / 1000.0));
                pass = benchmark(port, test, n, measure.multipliedBy(6));
            }
            out.printf(Locale.ROOT, "bench kv: %-16s %s %,12.0f requests/s  p50 %.3f ms  p99 %.3f ms%s%n", system,
                test.toUpperCase(Locale.ROOT), pass.rps, pass.p50, pass.p99, perJob);
            results.computeIfAbsent(system + " " + test.toUpperCase(Locale.ROOT), k -> new ArrayList<>()).add(pass);
        }
    }

    /** Passes of {@code test} until {@code --warmup} has passed, each sized by the rate of the one before. */
    private Pass warmUp(final int port, final String test) throws Exception
    {
        final long deadline = System.nanoTime() + warmup.toNanos();
        Pass warm = benchmark(port, test, MIN_PASS, warmup.plusSeconds(30));
        long left;
        while ((left = deadline - System.nanoTime()) > 0)
        {
            final long n = Math.max(MIN_PASS, (long)(warm.rps * left / 1e9));
            warm = benchmark(port, test, n, Duration.ofNanos(left).multipliedBy(6));
        }
        return warm;
    }

    /** Runs redis-benchmark for {@code n} requests of {@code test} and parses its CSV line. */
    private Pass benchmark(final int port, final String test, final long n, final Duration limit) throws Exception
    {
        final Process p = new ProcessBuilder("redis-benchmark", "-h", "127.0.0.1", "-p", String.valueOf(port), "-c",
            String.valueOf(clients), "-P", String.valueOf(pipeline), "-d", String.valueOf(size), "-r",
            String.valueOf(keys), "-n", String.valueOf(n), "-t", test, "--csv").redirectErrorStream(true).start();
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(limit.toMillis() + 30_000, TimeUnit.MILLISECONDS))
        {
            p.destroyForcibly();
            throw new IllegalStateException("redis-benchmark " + test + " did not finish within " + limit);
        }
        for (final String line : output.lines().toList())
        {
            final String[] f = line.replace("\"", "").split(",");
            if (f.length >= 7 && f[0].equalsIgnoreCase(test))
            {
                return new Pass(Double.parseDouble(f[1]), Double.parseDouble(f[4]), Double.parseDouble(f[5]),
                    Double.parseDouble(f[6]));
            }
        }
        throw new IllegalStateException("no result line for " + test + " in redis-benchmark's output:\n" + output);
    }

    private void print(final Map<String, List<Pass>> results)
    {
        out.println();
        out.println("| system | test | requests/s (median) | min-max | p50 ms | p95 ms | p99 ms |");
        out.println("|---|---|---|---|---|---|---|");
        final Map<String, Pass> medians = new LinkedHashMap<>();
        for (final Map.Entry<String, List<Pass>> e : results.entrySet())
        {
            // the run of median throughput; at the job queue's fixed rate, the run of median p50
            final List<Pass> sorted = e.getValue().stream().sorted(Comparator.comparingDouble(
                e.getKey().endsWith(" JOBS") ? Pass::p50 : Pass::rps)).toList();
            final Pass median = sorted.get(sorted.size() / 2);
            medians.put(e.getKey(), median);
            final String[] name = e.getKey().split(" ");
            out.printf(Locale.ROOT, "| %s | %s | %,.0f | %,.0f-%,.0f | %.3f | %.3f | %.3f |%n", name[0], name[1],
                median.rps, sorted.stream().mapToDouble(Pass::rps).min().orElseThrow(),
                sorted.stream().mapToDouble(Pass::rps).max().orElseThrow(), median.p50, median.p95, median.p99);
        }
        final String group = " (" + members + " members, replicated)";
        final List<String[]> pairs = List.of(new String[] {"weft-kv", "redis-server", " (one node)"},
            new String[] {"weft-kv", "etcd", " (" + members + " members)"},
            new String[] {"weft-kv-log", "redis-server-aof", " (one node; the same promise: survives kill -9)"},
            new String[] {"weft-kv-log", "etcd", " (" + members + " members; fsyncs each commit)"},
            new String[] {"weft-kv-log", "weft-kv", " (the log's cost)"});
        for (final String test : tests.stream().map(t -> t.toUpperCase(Locale.ROOT)).toList())
        {
            for (final String[] pair : pairs)
            {
                final Pass ours = medians.get(pair[0] + " " + test);
                final Pass other = medians.get(pair[1] + " " + test);
                if (ours != null && other != null)
                {
                    out.printf(Locale.ROOT, "bench kv: %s: %s%s over %s%s: %.2fx the throughput, p50 %.2fx%n", test,
                        pair[0], group, pair[1], pair[2], ours.rps / other.rps, ours.p50 / other.p50);
                }
            }
        }
    }

    private static void awaitPort(final int port, final Process process) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline)
        {
            if (!process.isAlive())
            {
                throw new IllegalStateException("a process exited with " + process.exitValue() + " before serving " +
                    "port " + port);
            }
            try (Socket s = new Socket())
            {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            }
            catch (final IOException ex)
            {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("nothing serves port " + port + " after 60 s");
    }

    private static boolean onPath(final String program)
    {
        for (final String d : System.getenv().getOrDefault("PATH", "").split(":"))
        {
            if (Files.isExecutable(Path.of(d, program)))
            {
                return true;
            }
        }
        return false;
    }
}

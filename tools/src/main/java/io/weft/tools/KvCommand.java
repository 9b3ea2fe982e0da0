package io.weft.tools;

import io.weft.config.ConfigLoader;
import io.weft.config.ConfigWriter;
import io.weft.config.LocalPorts;
import io.weft.config.MemberAddress;
import io.weft.config.MembershipConfig;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.examples.kv.KvReplica;
import io.weft.testkit.MemberProcesses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * {@code weft kv}: a local replicated key-value store of {@code --members} processes on loopback, each serving the
 * Redis protocol on its own port. Prints the ports, then keeps the store running (until Ctrl-C or
 * {@code --duration}); a member that dies (try {@code kill -9}) is started again and joins with the state of the
 * others.
 */
@Command(name = "kv", description = "A replicated key-value store that Redis clients talk to: --members processes " +
    "on loopback, each serving the Redis protocol; a member that dies is restarted and rejoins.")
public final class KvCommand implements Callable<Integer>
{
    /**
     * Commands up to this size less the batch headers (the subgroup's max-payload, the largest a subgroup takes; a
     * batch of small commands shares one message). 64 KiB before 2026-12-06: a value past 65,476 bytes was refused.
     */
    static final int MAX_PAYLOAD = SubgroupConfig.MAX_PAYLOAD;
    /**
     * Each sender's ring in max-payload messages, the least a subgroup takes: a record takes only its size, so two
     * 1 MiB slots hold as many small batches as a ring may, and a member proposes at most two batches at once.
     */
    static final int WINDOW = 2;

    @Mixin
    LocalGroupOptions group = new LocalGroupOptions("tcp", 3, 1, 16, false);

    @Mixin
    KvReplicaOptions replica = new KvReplicaOptions();

    @Option(names = "--log", description = "Keep the store durable: member i logs under DIR/member-i; starting again " +
        "with the same DIR recovers every acknowledged write.")
    Path log;

    @Option(names = "--duration", description = "Stop after this long (default: run until interrupted).")
    Duration duration;

    private volatile boolean stopping;

    @Option(names = "--dir", description = "Where the configuration goes, and without --log member i's dump.rdb " +
        "(SAVE, BGSAVE) in DIR/member-i (default: a new temporary directory, removed at the end).")
    Path dir;

    @Override
    public Integer call() throws Exception
    {
        final String problem = group.problem() != null ? group.problem() : replica.problem() != null ?
            replica.problem() : duration != null && (duration.isNegative() || duration.isZero()) ?
            "--duration must be positive, was " + duration : unusable(log);
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        final Path home = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("weft-kv");
        try (MemberProcesses processes = new MemberProcesses(System.out);
            LauncherEnd ignored = new LauncherEnd(processes, dir == null ? home : null, this::stopSupervising))
        {
            return run(group.transport(), home, processes);
        }
    }

    /** Why the members could not log in {@code log} (created here if need be), or null: once, not in each member. */
    private static String unusable(final Path log)
    {
        if (log == null)
        {
            return null;
        }
        try
        {
            return Files.isWritable(Files.createDirectories(log)) ? null : "--log " + log + " is not writable";
        }
        catch (final java.io.IOException ex)
        {
            return "--log " + log + ": cannot create it (" + ex + ")";
        }
    }

    /** Before the members end: the supervision loop must not start them again. */
    private void stopSupervising()
    {
        stopping = true;
    }

    private int run(final TransportKind kind, final Path home, final MemberProcesses processes) throws Exception
    {
        final int members = group.members();
        final List<Integer> free = LocalPorts.free(3 * members); // the group's two per member, then the Redis ports
        final WeftConfig config = config(kind, free.subList(0, 2 * members));
        final Path file = Files.writeString(home.resolve("kv.conf"), ConfigWriter.render(config));
        ConfigLoader.load(file);
        final List<Integer> ports = free.subList(2 * members, 3 * members);
        System.out.printf("kv: %d members on %s, reads %s, configuration %s%n", members, kind.configName(),
            replica.reads, file);
        final Duration run = duration == null ? Duration.ofDays(365) : duration;
        final List<Integer> current = new ArrayList<>();
        for (int i = 0; i < members; i++)
        {
            current.add(start(processes, "kv" + i, i, file, ports, false));
        }
        final Set<Integer> serving = new HashSet<>(); // process indexes that served: members of the group
        final String refusedAtStart = awaitGroup(processes, current, serving);
        if (refusedAtStart != null)
        {
            System.out.println("kv: FAILED: " + refusedAtStart);
            return SstMember.EXIT_MEMBER_FAILED;
        }
        for (int i = 0; i < members; i++)
        {
            if (!serving.contains(current.get(i)) && processes.process(current.get(i)).isAlive())
            {
                System.out.println("kv: FAILED: member " + i + " did not start serving within 60 s");
                return SstMember.EXIT_TIMEOUT;
            }
        }
        if (serving.isEmpty())
        {
            System.out.println("kv: FAILED: every member exited before serving (their output above says why)");
            return SstMember.EXIT_MEMBER_FAILED;
        }
        // a member that exited (say, behind every compacted log) is started again below, as a joiner
        System.out.println("kv: serving. Members and their Redis ports:");
        for (int i = 0; i < members; i++)
        {
            System.out.printf("kv:   member %d  127.0.0.1:%d  pid %d   redis-cli -p %d%s set a 1%n", i, ports.get(i),
                processes.process(current.get(i)).pid(), ports.get(i), replica.requirePassFile != null ? " --askpass" :
                "");
        }
        final long end = System.nanoTime() + run.toNanos();
        final Restarts restarts = new Restarts(members);
        while (System.nanoTime() < end && !stopping)
        {
            Thread.sleep(200); // supervision poll: a dead member is restarted as a joiner
            boolean groupAlive = false;
            for (final int index : current)
            {
                groupAlive |= served(processes, serving, index) && processes.process(index).isAlive();
            }
            if (stopping) // a member started after the launcher's end began is stopped by MemberProcesses itself
            {
                break;
            }
            if (!groupAlive)
            {
                restarts.reset();
                restartGroup(processes, current, file, ports);
            }
            for (int i = 0; i < members && groupAlive; i++)
            {
                final Process p = processes.process(current.get(i));
                final long now = System.nanoTime();
                if (!p.isAlive() && !restarts.waiting(i))
                {
                    System.out.println(restarts.exited(i, p.exitValue(), serving.contains(current.get(i)), now));
                }
                if (restarts.due(i, now))
                {
                    restarts.started(i);
                    current.set(i, start(processes, "kv" + i + "'", i, file, ports, true));
                }
            }
            final String refused = groupAlive ? null : awaitGroup(processes, current, serving);
            if (refused != null)
            {
                System.out.println("kv: FAILED: " + refused);
                return SstMember.EXIT_MEMBER_FAILED;
            }
        }
        System.out.println("kv: stopping");
        return 0;
    }

    /**
     * No member of the group is alive (a joiner that has not joined is none): joiners would wait for a group that is
     * gone, so every member starts again together, as view 0. With --log each recovers what it logged, and the group
     * every acknowledged write; without, the store starts empty.
     */
    private void restartGroup(final MemberProcesses processes, final List<Integer> current, final Path file,
        final List<Integer> ports) throws InterruptedException
    {
        System.out.printf("kv: every member of the group is down; starting the group again (%s)%n",
            log != null ? "each member recovers its log" : "the store starts empty: no --log");
        for (final int index : current)
        {
            final Process p = processes.process(index);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        for (int i = 0; i < current.size(); i++)
        {
            current.set(i, start(processes, "kv" + i + "+", i, file, ports, false));
        }
    }

    /**
     * After a start of the whole group (the first, or again): waits until each member serves or exits, for 60 s at
     * most; returns why the group cannot start ({@link #refusal}), or null.
     */
    private String awaitGroup(final MemberProcesses processes, final List<Integer> current, final Set<Integer> serving)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && !stopping)
        {
            final String refused = refusal(processes, current);
            if (refused != null)
            {
                return refused;
            }
            boolean waiting = false;
            for (final int index : current)
            {
                waiting |= !served(processes, serving, index) && processes.process(index).isAlive();
            }
            if (!waiting)
            {
                return null;
            }
            Thread.sleep(50);
        }
        return null;
    }

    /** A member of the group that refused to start (exit 2), which every start would repeat; else null. */
    private String refusal(final MemberProcesses processes, final List<Integer> current)
    {
        for (int i = 0; i < current.size(); i++)
        {
            final Process p = processes.process(current.get(i));
            if (!p.isAlive() && p.exitValue() == Weft.EXIT_CONFIG)
            {
                return "member " + i + " refused to start (exit 2: its output above says why), and the group starts " +
                    "again only with every member" + (log == null ? "" : "; repair its log, or move " +
                    log.resolve("member-" + i) + " aside: it then starts empty and takes what it lacks from the " +
                    "others' logs");
            }
        }
        return null;
    }

    /**
     * Whether process {@code index} has served, noted in {@code serving}: it said so, the one line of its output kept
     * ({@link #start}).
     */
    private static boolean served(final MemberProcesses processes, final Set<Integer> serving, final int index)
    {
        return serving.contains(index) || (!processes.lines(index).isEmpty() && serving.add(index));
    }

    /**
     * Starts member {@code member} as process {@code name}. Of its output, all printed, only the line saying it serves
     * is kept: the command may run for days, and before it kept every line (one per client that sent bad bytes).
     */
    private int start(final MemberProcesses processes, final String name, final int member, final Path file,
        final List<Integer> ports, final boolean join)
    {
        final String serves = "member " + member + ": kv serving";
        return processes.startKeeping(name, Weft.class, args(file, member, ports.get(member), join),
            line -> line.startsWith(serves));
    }

    private List<String> args(final Path file, final int member, final int port, final boolean join)
    {
        final List<String> args = new ArrayList<>(List.of("kv-member", "--config", file.toString(), "--member",
            String.valueOf(member), "--port", String.valueOf(port)));
        args.addAll(replica.forward());
        if (log != null)
        {
            args.addAll(List.of("--log", log.resolve("member-" + member).toString()));
        }
        else // SAVE's dump.rdb beside the configuration, not in the directory the launcher was started from
        {
            args.addAll(List.of("--dir", file.resolveSibling("member-" + member).toString()));
        }
        if (join)
        {
            args.add("--join");
        }
        return args;
    }

    /**
     * A group of loopback members with the subgroup {@value KvReplica#SUBGROUP}, joins allowed: member i has the sst
     * and control ports {@code ports[2i]} and {@code ports[2i+1]}.
     */
    public static WeftConfig config(final TransportKind kind, final List<Integer> ports)
    {
        final int n = ports.size() / 2;
        final List<MemberAddress> members = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            members.add(new MemberAddress(i, "127.0.0.1", ports.get(2 * i), ports.get(2 * i + 1)));
        }
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        return WeftConfig.builder().memberId(0).groupName("kv-" + ProcessHandle.current().pid())
            .members(members).transport(kind)
            .subgroups(List.of(SubgroupConfig.allMembers(KvReplica.SUBGROUP,
                WINDOW, MAX_PAYLOAD)))
            .smc(SmcConfig.SPINDLE)
            .membership(new MembershipConfig(IntStream.range(0, n).boxed().toList(),
                "kv-" + HexFormat.of().formatHex(secret), ViewChangeSends.WAIT, Duration.ofSeconds(30)))
            .build();
    }
}

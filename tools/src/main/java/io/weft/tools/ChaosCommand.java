package io.weft.tools;

import io.weft.config.ConfigWriter;
import io.weft.config.LocalPorts;
import io.weft.config.MemberAddress;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TcpOptions;
import io.weft.config.TransportThreading;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcesses;
import io.weft.testkit.Namespaces;
import io.weft.testkit.Trees;
import io.weft.testkit.VsCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Randomized fault injection: member processes multicast while, at random moments, members are killed (-9), frozen
 * (SIGSTOP past the failure timeout: alive with open connections but silent, like a cut or hung link; resumed, it
 * finds itself removed and stops), restarted (joining again with the same id), added, or leave gracefully; a
 * member's membership thread stalls (1.5 s in a view callback) during the view change of a kill; a member leaves
 * while the leader is frozen (the leave in flight, known to all, until the leader resumes).
 *
 * <p>Full send buffers: 1 KiB messages, windows of 400, 64 KiB send buffers over 32 KiB socket buffers (about
 * 200 KiB per connection with the kernel's); half of the freezes come with a burst (every other member sends 400
 * messages as fast as its window allows), so that on tcp their send buffers to the frozen member fill (their pushes
 * wait at most a failure timeout, then fail it). With root, the members live in two network namespaces joined by a
 * veth pair (the lower two thirds of the ids in one, the rest in the other), and two more faults cut the link: a
 * partition (the side with a majority of the view installs a view without the other side, whose members stop with
 * the minority error), and a partition with a leave in flight (the leader frozen while a member of the majority side
 * announces its leave, then the cut: the leaver counts on neither side). The link is healed after each; the stopped
 * members may join again later. One more fault adds a subgroup at run time, or removes one added before, as another
 * member is killed: at the end every survivor must hold the same runtime subgroups in the same order (each told of
 * an addition once, of a removal only of a subgroup it held), every one a surviving member asked for, and none a
 * surviving member asked to remove.
 *
 * <p>After every step it waits for the view to settle and checks the virtual-synchrony invariants on every member's
 * delivery log ({@link VsCheck}); at the end every surviving member must hold the same state and no successful send
 * may be lost. Same seed, same schedule of faults (the moments they hit the message stream differ).
 */
@Command(name = "chaos", description = "Randomized fault injection (kill -9, freeze, restart, join, leave, a stalled " +
    "membership thread, a leave while the leader is frozen, full tcp send buffers, a subgroup added or removed as a " +
    "member is killed, and with root a network partition " +
    "with or without a leave in flight) that " +
    "checks the virtual-synchrony invariants after every step; exits 0 only if they all hold.")
final class ChaosCommand implements Callable<Integer>
{
    private static final int MESSAGE_SIZE = 1024;
    private static final int WINDOW = 400;

    @Option(names = "--seed", description = "Seed of the fault schedule (default: random, printed for replay).")
    Long seed;

    @Option(names = "--duration", defaultValue = "PT2M", description = "How long to inject faults (default ${DEFAULT-VALUE}).")
    Duration duration;

    /** Members of view 0; one more id can join. */
    @picocli.CommandLine.Mixin
    LocalGroupOptions group = new LocalGroupOptions("tcp", 5, 3, 16, true);

    @Option(names = "--rate", defaultValue = "200", description = "Messages per second per member (default ${DEFAULT-VALUE}).")
    long rate;

    @Option(names = "--dir", description = "Where logs go (default: a new temporary directory, removed if all holds).")
    Path dir;

    @Option(names = "--invoker", description = "Every member in invoker mode: its main thread runs the passes.")
    boolean invoker;

    private final PrintStream out = System.out;
    private final ChaosMembers members = new ChaosMembers(out);
    private ChaosPartition cut; // null: no partitions
    private int viewZero; // members of view 0
    private Path file;
    private Path work;
    private int started;
    private final Map<String, Integer> addedBy = new java.util.LinkedHashMap<>(); // subgroup -> asking process index
    private final Map<String, Integer> removedBy = new java.util.LinkedHashMap<>(); // subgroup -> asking process index

    @Override
    public Integer call() throws Exception
    {
        final String problem = group.problem() != null ? group.problem() :
            rate < 1 ? "--rate must be at least 1, was " + rate :
            duration.isNegative() || duration.isZero() ? "--duration must be positive (a run without a fault checks " +
                "nothing), was " + duration :
            group.transport() == TransportKind.RDMA ? RdmaChoice.libfabricMissing("--transport rdma") : null;
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        viewZero = group.members();
        final long s = seed == null ? new Random().nextLong() : seed;
        final Random random = new Random(s);
        final boolean ownDir = dir == null;
        final TransportKind kind = group.transport();
        work = ownDir ? Files.createTempDirectory("weft-chaos") : Files.createDirectories(dir);
        out.printf("chaos: seed %d, %s%s, %d members + 1 joiner, %d msgs/s each, %s; logs in %s%n", s,
            kind.configName(), invoker ? " in invoker mode" : "", viewZero, rate, duration, work);
        final String noNamespaces = kind == TransportKind.SHM ? "shm has no network to cut" : Namespaces.unavailable();
        final Thread cleanup = Thread.ofPlatform().unstarted(this::closeNamespaces);
        try
        {
            if (noNamespaces == null)
            {
                cut = new ChaosPartition(viewZero + 1);
                Runtime.getRuntime().addShutdownHook(cleanup);
            }
            out.printf("chaos: partitions %s%n", cut == null ? "off: " + noNamespaces : "on: " + cut.sides());
            final WeftConfig config = config(kind);
            file = Files.writeString(work.resolve("group.conf"), ConfigWriter.render(config));
            try
            {
                return run(config, random, s, ownDir);
            }
            finally
            {
                ChaosEnd.removeShmFiles(config);
            }
        }
        finally
        {
            closeNamespaces();
            if (cut != null)
            {
                Weft.removeShutdownHook(cleanup);
            }
        }
    }

    private void closeNamespaces()
    {
        if (cut != null)
        {
            cut.close();
        }
    }

    private int run(final WeftConfig config, final Random random, final long s, final boolean ownDir) throws Exception
    {
        try (PrintStream memberOutput = new PrintStream(Files.newOutputStream(work.resolve("members.out")), true);
             MemberProcesses p = new MemberProcesses(memberOutput))
        {
            members.processes(p);
            for (int id = 0; id < viewZero; id++)
            {
                start(id, false);
            }
            members.deadIds.add(viewZero); // the spare id joins later
            if (!members.settle("start"))
            {
                return report(s, ownDir);
            }
            final long end = System.nanoTime() + duration.toNanos();
            int step = 0;
            while (System.nanoTime() < end && members.violations.isEmpty())
            {
                step++;
                TimeUnit.MILLISECONDS.sleep(300 + random.nextInt(1200));
                final String action = act(random);
                if (!members.settle("step " + step + ": " + action))
                {
                    break;
                }
                final List<VsCheck.Log> logs = VsCheck.read(work);
                final List<String> found = VsCheck.check(logs);
                out.printf("chaos: step %d: %s; view %d %s; invariants %s over %d logs%n", step, action,
                    members.currentView(), new TreeSet<>(members.live.keySet()), found.isEmpty() ? "hold" : "VIOLATED",
                    logs.size());
                members.violations.addAll(found);
            }
            if (members.violations.isEmpty())
            {
                finish();
            }
        }
        return report(s, ownDir);
    }

    private WeftConfig config(final TransportKind kind) throws IOException
    {
        final List<MemberAddress> book = new ArrayList<>();
        final List<Integer> ports = LocalPorts.free(2 * (viewZero + 1));
        for (int id = 0; id <= viewZero; id++)
        {
            final String host = cut == null ? "127.0.0.1" : cut.host(id);
            book.add(new MemberAddress(id, host, ports.get(2 * id), ports.get(2 * id + 1)));
        }
        final List<Integer> initial = new ArrayList<>();
        for (int id = 0; id < viewZero; id++)
        {
            initial.add(id);
        }
        return WeftConfig.builder().memberId(0).groupName("chaos" + Long.toHexString(System.nanoTime() & 0xffffff))
            .members(book).transport(kind).connectTimeout(Duration.ofSeconds(30))
            .tcp(new TcpOptions(TcpOptions.MIN_SEND_BUFFER, 32 * 1024, true, TransportThreading.AUTO))
            .subgroups(List.of(SubgroupConfig.allMembers("all", WINDOW, MESSAGE_SIZE)))
            .membership(new MembershipConfig(initial, "chaos-secret-" + Long.toHexString(new Random().nextLong()),
                ViewChangeSends.WAIT, Duration.ofSeconds(60), true))
            .build();
    }

    private void start(final int id, final boolean join)
    {
        final List<String> args = new ArrayList<>(List.of("vs-member", "--config", file.toString(), "--member",
            String.valueOf(id), "--dir", work.toString(), "--rate", String.valueOf(rate), "--size",
            String.valueOf(MESSAGE_SIZE), "--timeout", "PT30M"));
        if (join)
        {
            args.add("--join");
        }
        if (invoker)
        {
            args.add("--invoker");
        }
        final List<String> prefix = cut == null ? List.of() : cut.exec(id);
        // members check one writer per membership column (Sst#oneWriter): a second writer fails the run loudly
        members.started(id, members.processes().startWith(prefix, "m" + id + "." + started++, Weft.class,
            List.of("-Dio.weft.sst.checkWriters=true"), args));
    }

    /** One random fault or membership change, keeping a majority of the current view alive. */
    private String act(final Random random) throws Exception
    {
        final List<Integer> ids = new ArrayList<>(new TreeSet<>(members.live.keySet()));
        int roll = random.nextInt(15);
        if (roll >= 13 && cut != null)
        {
            final String partition = cut.partition(members, work, random, ids, roll == 14);
            if (partition != null)
            {
                return partition;
            }
            roll = 0; // no side would hold a majority: a join instead, which makes one likelier next time
        }
        if (roll >= 10 && roll < 13 && ids.size() >= 4)
        {
            return roll == 10 ? stallDuringKill(random, ids) : leaveWhileLeaderFrozen(random, ids);
        }
        if (!members.deadIds.isEmpty() && (roll < 3 || ids.size() <= 3))
        {
            final int id = members.deadIds.get(random.nextInt(members.deadIds.size()));
            start(id, true);
            return "member " + id + " joins";
        }
        if (roll == 5 && ids.size() >= 4)
        {
            final List<String> removable = addedBy.keySet().stream().filter(n -> !removedBy.containsKey(n)).toList();
            return removable.isEmpty() || random.nextInt(3) == 0 ?
                askDuringKill(random, ids, "add-subgroup", "added" + (addedBy.size() + 1), addedBy) :
                askDuringKill(random, ids, "remove-subgroup", removable.get(random.nextInt(removable.size())),
                    removedBy);
        }
        if (roll < 6 || roll >= 13)
        {
            final int count = ids.size() >= 5 && random.nextInt(4) == 0 ? 2 : 1;
            Collections.shuffle(ids, random);
            final List<Integer> victims = new ArrayList<>(ids.subList(0, count));
            members.kill(victims);
            return "kill -9 " + victims;
        }
        if (roll < 8)
        {
            final int id = ids.get(random.nextInt(ids.size()));
            CommandFile.give(work, id, "leave");
            members.expectExit(members.remove(id), 0, "member " + id + " did not leave cleanly");
            return "member " + id + " leaves";
        }
        final int id = ids.get(random.nextInt(ids.size()));
        final Process p = members.remove(id);
        ChaosMembers.signal("STOP", p.pid());
        final boolean burst = roll == 9;
        if (burst)
        {
            for (final int other : members.live.keySet())
            {
                CommandFile.give(work, other, "burst " + WINDOW);
            }
        }
        final boolean removed = members.settle("freeze " + id);
        ChaosMembers.signal("CONT", p.pid());
        if (removed)
        {
            members.expectExit(p, VsMember.EXIT_STOPPED, "frozen member " + id + " did not stop after it was " +
                "resumed and found itself removed");
        }
        return "member " + id + " frozen past the failure timeout" + (burst ? " during a burst that fills the send " +
            "buffers to it" : "") + ", removed, resumed and stopped";
    }

    /**
     * A member makes a runtime-subgroup {@code request} (add-subgroup or remove-subgroup) for {@code name}, recorded
     * in {@code askedBy}; at once, or a moment later, another member is killed -9.
     */
    private String askDuringKill(final Random random, final List<Integer> ids, final String request, final String name,
        final Map<String, Integer> askedBy) throws Exception
    {
        Collections.shuffle(ids, random);
        final int asker = ids.get(0);
        final int victim = ids.get(1);
        askedBy.put(name, members.live.get(asker));
        CommandFile.give(work, asker, request + " " + name);
        TimeUnit.MILLISECONDS.sleep(random.nextInt(200));
        members.kill(List.of(victim));
        return "member " + asker + (askedBy == addedBy ? " adds" : " removes") + " subgroup " + name + " as member " +
            victim + " is killed -9";
    }

    /** One member's membership thread stalls 1.5 s (under the failure timeout) in the view change a kill causes. */
    private String stallDuringKill(final Random random, final List<Integer> ids) throws Exception
    {
        Collections.shuffle(ids, random);
        final int stalled = ids.get(0);
        final int victim = ids.get(1);
        CommandFile.give(work, stalled, "stall-view 1500");
        members.awaitLine(stalled, "member " + stalled + ": STALL armed");
        members.kill(List.of(victim));
        return "kill -9 [" + victim + "] with member " + stalled + "'s membership thread stalled 1.5 s in the view " +
            "change";
    }

    /** A member leaves while the leader is frozen (under the failure timeout): the leave waits, known to all. */
    private String leaveWhileLeaderFrozen(final Random random, final List<Integer> ids) throws Exception
    {
        final int leader = members.leader(ids.get(0));
        final List<Integer> others = new ArrayList<>(ids);
        others.remove(Integer.valueOf(leader));
        final int leaver = others.get(random.nextInt(others.size()));
        final Process frozen = members.process(leader);
        ChaosMembers.signal("STOP", frozen.pid());
        try
        {
            CommandFile.give(work, leaver, "leave");
            TimeUnit.MILLISECONDS.sleep(800);
        }
        finally
        {
            ChaosMembers.signal("CONT", frozen.pid());
        }
        members.expectExit(members.remove(leaver), 0, "member " + leaver + " did not leave cleanly while leader " +
            leader + " was frozen");
        return "member " + leaver + " leaves while leader " + leader + " is frozen for 0.8 s";
    }

    /** Ends every live member together; checks equal final states, the invariants and no loss. */
    private void finish() throws Exception
    {
        final MemberProcesses processes = members.processes();
        members.violations.addAll(ChaosEnd.check(processes, members.live, started, work, out));
        members.violations.addAll(ChaosEnd.runtimeSubgroups(processes, members.live, addedBy, removedBy, out));
    }

    private int report(final long s, final boolean ownDir) throws IOException
    {
        long fullBuffers = 0;
        for (int i = 0; i < started; i++)
        {
            fullBuffers += members.processes().lines(i).stream().filter(l -> l.contains("the peer took no data for"))
                .count();
        }
        out.printf("chaos: %d partitions; %d failures found by a push that waited a failure timeout on a full send " +
            "buffer%n", cut == null ? 0 : cut.partitions(), fullBuffers);
        if (!members.killToView.isEmpty())
        {
            final List<Long> sorted = members.killToView.stream().sorted().toList();
            out.printf("chaos: kill -9 to new view installed everywhere: %d kills, median %d ms, max %d ms%n",
                sorted.size(), sorted.get(sorted.size() / 2), sorted.getLast());
        }
        if (members.violations.isEmpty())
        {
            out.printf("chaos: OK: every invariant held (seed %d)%n", s);
            if (ownDir)
            {
                Trees.delete(work);
            }
            return 0;
        }
        out.printf("chaos: FAILED (seed %d; replay with --seed %d; logs kept in %s):%n", s, s, work);
        members.violations.forEach(v -> out.println("  " + v));
        return 1;
    }
}

package io.weft.tools;

import io.weft.config.ConfigWriter;
import io.weft.config.LocalPorts;
import io.weft.config.MemberAddress;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TcpOptions;
import io.weft.config.TcpThreading;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

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
    private static final Duration SETTLE = Duration.ofSeconds(40);
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
    private final Map<Integer, Integer> live = new HashMap<>();   // member id -> process index
    private final List<Integer> deadIds = new ArrayList<>();
    private final List<Long> killToView = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private MemberProcesses processes;
    private Namespaces ns;
    private int partitions;
    private int members;
    private Path file;
    private Path work;
    private int started;
    private final Map<String, Integer> addedBy = new java.util.LinkedHashMap<>(); // subgroup -> asking process index
    private final Map<String, Integer> removedBy = new java.util.LinkedHashMap<>(); // subgroup -> asking process index

    @Override
    public Integer call() throws Exception
    {
        final String problem = group.problem() != null ? group.problem() : rate < 1 ? "--rate must be at least 1, was "
            + rate : group.transport() == TransportKind.RDMA ? RdmaChoice.libfabricMissing() : null;
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        members = group.members();
        final long s = seed == null ? new Random().nextLong() : seed;
        final Random random = new Random(s);
        final boolean ownDir = dir == null;
        final TransportKind kind = group.transport();
        work = ownDir ? Files.createTempDirectory("weft-chaos") : Files.createDirectories(dir);
        out.printf("chaos: seed %d, %s%s, %d members + 1 joiner, %d msgs/s each, %s; logs in %s%n", s,
            kind.configName(), invoker ? " in invoker mode" : "", members, rate, duration, work);
        final String noNamespaces = kind == TransportKind.SHM ? "shm has no network to cut" : Namespaces.unavailable();
        final Thread cleanup = Thread.ofPlatform().unstarted(this::closeNamespaces);
        try
        {
            if (noNamespaces == null)
            {
                ns = Namespaces.claim("c");
                Runtime.getRuntime().addShutdownHook(cleanup);
            }
            out.printf("chaos: partitions %s%n", ns == null ? "off: " + noNamespaces : "on: ids " + sideA() +
                " in namespace " + ns.a + ", the others in " + ns.b);
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
            if (ns != null)
            {
                Weft.removeShutdownHook(cleanup);
            }
        }
    }

    private synchronized void closeNamespaces()
    {
        if (ns != null)
        {
            ns.close();
        }
    }

    /**
     * Ids that live in namespace A: the lower two thirds of the ids (the spare joiner's included), so that most
     * views have a side with a majority to cut away the other.
     */
    private List<Integer> sideA()
    {
        final List<Integer> ids = new ArrayList<>();
        for (int id = 0; inA(id); id++)
        {
            ids.add(id);
        }
        return ids;
    }

    private boolean inA(final int id)
    {
        return id < (2 * (members + 1) + 2) / 3;
    }

    private int run(final WeftConfig config, final Random random, final long s, final boolean ownDir) throws Exception
    {
        try (PrintStream memberOutput = new PrintStream(Files.newOutputStream(work.resolve("members.out")), true);
             MemberProcesses p = new MemberProcesses(memberOutput))
        {
            processes = p;
            for (int id = 0; id < members; id++)
            {
                start(id, false);
            }
            deadIds.add(members); // the spare id joins later
            if (!settle("start"))
            {
                return report(s, ownDir);
            }
            final long end = System.nanoTime() + duration.toNanos();
            int step = 0;
            while (System.nanoTime() < end && violations.isEmpty())
            {
                step++;
                TimeUnit.MILLISECONDS.sleep(300 + random.nextInt(1200));
                final String action = act(random);
                if (!settle("step " + step + ": " + action))
                {
                    break;
                }
                final List<VsCheck.Log> logs = VsCheck.read(work);
                final List<String> found = VsCheck.check(logs);
                out.printf("chaos: step %d: %s; view %d %s; invariants %s over %d logs%n", step, action,
                    currentView(), new TreeSet<>(live.keySet()), found.isEmpty() ? "hold" : "VIOLATED", logs.size());
                violations.addAll(found);
            }
            if (violations.isEmpty())
            {
                finish();
            }
        }
        return report(s, ownDir);
    }

    private WeftConfig config(final TransportKind kind) throws IOException
    {
        final List<MemberAddress> book = new ArrayList<>();
        final List<Integer> ports = LocalPorts.free(2 * (members + 1));
        for (int id = 0; id <= members; id++)
        {
            final String host = ns == null ? "127.0.0.1" : inA(id) ? ns.addressA : ns.addressB;
            book.add(new MemberAddress(id, host, ports.get(2 * id), ports.get(2 * id + 1)));
        }
        final List<Integer> initial = new ArrayList<>();
        for (int id = 0; id < members; id++)
        {
            initial.add(id);
        }
        return WeftConfig.builder().memberId(0).groupName("chaos" + Long.toHexString(System.nanoTime() & 0xffffff))
            .members(book).transport(kind).connectTimeout(Duration.ofSeconds(30))
            .tcp(new TcpOptions(TcpOptions.MIN_SEND_BUFFER, 32 * 1024, true, TcpThreading.AUTO))
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
        final List<String> prefix = ns == null ? List.of() : ns.exec(inA(id) ? ns.a : ns.b);
        // members check one writer per membership column (Sst#oneWriter): a second writer fails the run loudly
        live.put(id, processes.startWith(prefix, "m" + id + "." + started++, Weft.class,
            List.of("-Dio.weft.sst.checkWriters=true"), args));
        deadIds.remove(Integer.valueOf(id));
    }

    /** One random fault or membership change, keeping a majority of the current view alive. */
    private String act(final Random random) throws Exception
    {
        final List<Integer> ids = new ArrayList<>(new TreeSet<>(live.keySet()));
        int roll = random.nextInt(15);
        if (roll >= 13 && ns != null)
        {
            final String partition = partition(random, ids, roll == 14);
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
        if (!deadIds.isEmpty() && (roll < 3 || ids.size() <= 3))
        {
            final int id = deadIds.get(random.nextInt(deadIds.size()));
            start(id, true);
            return "member " + id + " joins";
        }
        if (roll == 5 && ids.size() >= 4)
        {
            final List<String> removable = addedBy.keySet().stream().filter(n -> !removedBy.containsKey(n)).toList();
            return removable.isEmpty() || random.nextInt(3) == 0 ?
                askDuringKill(random, ids, "add-subgroup", "added" + (addedBy.size() + 1), addedBy) :
                askDuringKill(random, ids, "remove-subgroup", removable.get(random.nextInt(removable.size())), removedBy);
        }
        if (roll < 6 || roll >= 13)
        {
            final int count = ids.size() >= 5 && random.nextInt(4) == 0 ? 2 : 1;
            Collections.shuffle(ids, random);
            final List<Integer> victims = new ArrayList<>(ids.subList(0, count));
            final long at = System.currentTimeMillis();
            for (final int v : victims)
            {
                processes.process(live.remove(v)).destroyForcibly();
                deadIds.add(v);
            }
            pendingKill = at;
            return "kill -9 " + victims;
        }
        if (roll < 8)
        {
            final int id = ids.get(random.nextInt(ids.size()));
            CommandFile.give(work, id, "leave");
            final Process p = processes.process(live.remove(id));
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                violations.add("member " + id + " did not leave cleanly (exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
            }
            deadIds.add(id);
            return "member " + id + " leaves";
        }
        final int id = ids.get(random.nextInt(ids.size()));
        final Process p = processes.process(live.remove(id));
        signal("STOP", p.pid());
        deadIds.add(id);
        final boolean burst = roll == 9;
        if (burst)
        {
            for (final int other : live.keySet())
            {
                CommandFile.give(work, other, "burst " + WINDOW);
            }
        }
        final boolean removed = settle("freeze " + id);
        signal("CONT", p.pid());
        if (removed && (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != VsMember.EXIT_STOPPED))
        {
            violations.add("frozen member " + id + " did not stop after it was resumed and found itself removed " +
                "(exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
            p.destroyForcibly();
        }
        return "member " + id + " frozen past the failure timeout" + (burst ? " during a burst that fills the send " +
            "buffers to it" : "") + ", removed, resumed and stopped";
    }

    private long pendingKill;

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
        askedBy.put(name, live.get(asker));
        CommandFile.give(work, asker, request + " " + name);
        TimeUnit.MILLISECONDS.sleep(random.nextInt(200));
        processes.process(live.remove(victim)).destroyForcibly();
        deadIds.add(victim);
        pendingKill = System.currentTimeMillis();
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
        awaitLine(stalled, "member " + stalled + ": STALL armed");
        processes.process(live.remove(victim)).destroyForcibly();
        deadIds.add(victim);
        pendingKill = System.currentTimeMillis();
        return "kill -9 [" + victim + "] with member " + stalled + "'s membership thread stalled 1.5 s in the view change";
    }

    /** A member leaves while the leader is frozen (under the failure timeout): the leave waits, known to all. */
    private String leaveWhileLeaderFrozen(final Random random, final List<Integer> ids) throws Exception
    {
        final Matcher view = MemberViews.last(processes, live.get(ids.get(0)));
        final int leader = Integer.parseInt(view.group(3).split(",")[0].trim());
        final List<Integer> others = new ArrayList<>(ids);
        others.remove(Integer.valueOf(leader));
        final int leaver = others.get(random.nextInt(others.size()));
        final Process frozen = processes.process(live.get(leader));
        signal("STOP", frozen.pid());
        try
        {
            CommandFile.give(work, leaver, "leave");
            TimeUnit.MILLISECONDS.sleep(800);
        }
        finally
        {
            signal("CONT", frozen.pid());
        }
        final Process p = processes.process(live.remove(leaver));
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0)
        {
            violations.add("member " + leaver + " did not leave cleanly while leader " + leader + " was frozen (exit " +
                (p.isAlive() ? "none" : p.exitValue()) + ")");
        }
        deadIds.add(leaver);
        return "member " + leaver + " leaves while leader " + leader + " is frozen for 0.8 s";
    }

    /**
     * Cuts the link between the namespaces past the failure timeout. The side holding a majority of the view (with a
     * leave in flight: of the members that stay) must install a view of its own and go on; every member of the other
     * side must stop with the minority error. Returns null, having done nothing, when no side would hold a majority.
     */
    private String partition(final Random random, final List<Integer> ids, final boolean leaveInFlight) throws Exception
    {
        final List<Integer> a = ids.stream().filter(this::inA).toList();
        final List<Integer> b = ids.stream().filter(id -> !inA(id)).toList();
        final List<Integer> major = a.size() > b.size() ? a : b;
        final List<Integer> minor = major == a ? b : a;
        final int leader = Integer.parseInt(MemberViews.last(processes, live.get(ids.get(0))).group(3).split(",")[0].trim());
        final List<Integer> leavers = major.stream().filter(id -> id != leader).toList();
        final int staying = leaveInFlight ? ids.size() - 1 : ids.size();
        if (minor.isEmpty() || 2 * (major.size() - (leaveInFlight ? 1 : 0)) <= staying ||
            (leaveInFlight && (!major.contains(leader) || leavers.isEmpty())))
        {
            return null;
        }
        partitions++;
        int leaver = -1;
        final long begin = System.nanoTime();
        try
        {
            if (leaveInFlight)
            {
                leaver = leavers.get(random.nextInt(leavers.size()));
                final Process frozen = processes.process(live.get(leader));
                signal("STOP", frozen.pid());
                try
                {
                    CommandFile.give(work, leaver, "leave");
                    TimeUnit.MILLISECONDS.sleep(500); // the leave flag reaches every member; the leader cannot act
                    ns.cut();
                    TimeUnit.MILLISECONDS.sleep(300);
                }
                finally
                {
                    signal("CONT", frozen.pid());
                }
            }
            else
            {
                ns.cut();
            }
            final Map<Integer, Process> stopped = new HashMap<>();
            for (final int id : minor)
            {
                stopped.put(id, processes.process(live.remove(id)));
                deadIds.add(id);
            }
            final Process left = leaver < 0 ? null : processes.process(live.remove(leaver));
            if (leaver >= 0)
            {
                deadIds.add(leaver);
            }
            settle("partition " + major + " | " + minor);
            for (final Map.Entry<Integer, Process> m : stopped.entrySet())
            {
                final Process p = m.getValue();
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != VsMember.EXIT_STOPPED)
                {
                    violations.add("member " + m.getKey() + " on the minority side did not stop with the minority " +
                        "error (exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
                    p.destroyForcibly();
                }
            }
            if (left != null && (!left.waitFor(60, TimeUnit.SECONDS) || left.exitValue() != 0))
            {
                violations.add("member " + leaver + " did not leave cleanly during the partition (exit " +
                    (left.isAlive() ? "none" : left.exitValue()) + ")");
                left.destroyForcibly();
            }
        }
        finally
        {
            ns.heal();
        }
        return String.format("partition %s | %s%s, majority on in %d ms, minority stopped, healed", major, minor,
            leaver < 0 ? "" : " with member " + leaver + "'s leave in flight (leader " + leader + " frozen)",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
    }

    private void awaitLine(final int id, final String text) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (processes.lines(live.get(id)).stream().noneMatch(l -> l.contains(text)))
        {
            if (System.nanoTime() > deadline)
            {
                violations.add("member " + id + " did not print '" + text + "' within 10 s");
                return;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    private static void signal(final String signal, final long pid) throws Exception
    {
        new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).inheritIO().start().waitFor();
    }

    /** Waits until every live member installed the same view, made of exactly the live members. */
    private boolean settle(final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + SETTLE.toNanos();
        while (System.nanoTime() < deadline)
        {
            long view = -1;
            boolean same = true;
            long latest = 0;
            for (final Map.Entry<Integer, Integer> m : live.entrySet())
            {
                final Matcher v = MemberViews.last(processes, m.getValue());
                if (v == null || !MemberViews.ids(v.group(3)).equals(new TreeSet<>(live.keySet())) ||
                    (view >= 0 && Long.parseLong(v.group(2)) != view))
                {
                    same = false;
                    break;
                }
                view = Long.parseLong(v.group(2));
                latest = Math.max(latest, Long.parseLong(v.group(4)));
            }
            if (same)
            {
                if (pendingKill > 0)
                {
                    killToView.add(latest - pendingKill);
                    out.printf("chaos: %s: kill -9 to new view installed everywhere in %d ms%n", what,
                        killToView.getLast());
                    pendingKill = 0;
                }
                return true;
            }
            for (final int id : List.copyOf(live.keySet()))
            {
                final Process p = processes.process(live.get(id));
                if (!p.isAlive())
                {
                    violations.add(what + ": member " + id + " exited " + p.exitValue() + " unexpectedly");
                    return false;
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        violations.add(what + ": the view did not settle on " + new TreeSet<>(live.keySet()) + " within " + SETTLE);
        return false;
    }

    private long currentView()
    {
        final Matcher m = live.isEmpty() ? null : MemberViews.last(processes, live.values().iterator().next());
        return m == null ? -1 : Long.parseLong(m.group(2));
    }

    /** Ends every live member together; checks equal final states, the invariants and no loss. */
    private void finish() throws Exception
    {
        violations.addAll(ChaosEnd.check(processes, live, started, work, out));
        violations.addAll(ChaosEnd.runtimeSubgroups(processes, live, addedBy, removedBy, out));
    }

    private int report(final long s, final boolean ownDir) throws IOException
    {
        long fullBuffers = 0;
        for (int i = 0; i < started; i++)
        {
            fullBuffers += processes.lines(i).stream().filter(l -> l.contains("the peer took no data for")).count();
        }
        out.printf("chaos: %d partitions; %d failures found by a push that waited a failure timeout on a full send " +
            "buffer%n", partitions, fullBuffers);
        if (!killToView.isEmpty())
        {
            final List<Long> sorted = killToView.stream().sorted().toList();
            out.printf("chaos: kill -9 to new view installed everywhere: %d kills, median %d ms, max %d ms%n",
                sorted.size(), sorted.get(sorted.size() / 2), sorted.getLast());
        }
        if (violations.isEmpty())
        {
            out.printf("chaos: OK: every invariant held (seed %d)%n", s);
            if (ownDir)
            {
                Trees.delete(work);
            }
            return 0;
        }
        out.printf("chaos: FAILED (seed %d; replay with --seed %d; logs kept in %s):%n", s, s, work);
        violations.forEach(v -> out.println("  " + v));
        return 1;
    }
}

package io.weft.examples;

import io.weft.config.ConfigWriter;
import io.weft.config.MemberAddress;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
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
 * while the leader is frozen (the leave in flight, known to all, until the leader resumes). After every
 * step it waits for the view to settle and checks the virtual-synchrony invariants on every member's delivery log
 * ({@link VsCheck}); at the end every surviving member must hold the same state and no successful send may be lost.
 * Same seed, same schedule of faults (the moments they hit the message stream differ).
 */
@Command(name = "chaos", description = "Randomized fault injection (kill -9, freeze, restart, join, leave, a stalled " +
    "membership thread, a leave while the leader is frozen) that " +
    "checks the virtual-synchrony invariants after every step; exits 0 only if they all hold.")
final class ChaosCommand implements Callable<Integer>
{
    private static final Duration SETTLE = Duration.ofSeconds(40);

    @Option(names = "--seed", description = "Seed of the fault schedule (default: random, printed for replay).")
    Long seed;

    @Option(names = "--duration", defaultValue = "PT2M", description = "How long to inject faults (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--members", defaultValue = "5", description = "Members of view 0 (3..16; one more id can join).")
    int members;

    @Option(names = "--transport", defaultValue = "tcp", description = "shm or tcp (default ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--rate", defaultValue = "200", description = "Messages per second per member (default ${DEFAULT-VALUE}).")
    long rate;

    @Option(names = "--dir", description = "Where logs go (default: a new temporary directory, removed if all holds).")
    Path dir;

    private final PrintStream out = System.out;
    private final Map<Integer, Integer> live = new HashMap<>();   // member id -> process index
    private final List<Integer> deadIds = new ArrayList<>();
    private final List<Long> killToView = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private MemberProcesses processes;
    private Path file;
    private Path work;
    private int started;

    @Override
    public Integer call() throws Exception
    {
        if (members < 3 || members > 16 || rate < 1)
        {
            System.err.println("weft: --members must be in 3..16 and --rate at least 1");
            return Weft.EXIT_CONFIG;
        }
        final long s = seed == null ? new Random().nextLong() : seed;
        final Random random = new Random(s);
        final boolean ownDir = dir == null;
        work = ownDir ? Files.createTempDirectory("weft-chaos") : Files.createDirectories(dir);
        out.printf("chaos: seed %d, %s, %d members + 1 joiner, %d msgs/s each, %s; logs in %s%n", s, transport,
            members, rate, duration, work);
        final WeftConfig config = config(TransportKind.parse("--transport", transport));
        file = Files.writeString(work.resolve("group.conf"), ConfigWriter.render(config));
        try
        {
            return run(config, random, s, ownDir);
        }
        finally
        {
            removeShmFiles(config);
        }
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
        final List<ServerSocket> sockets = new ArrayList<>();
        try
        {
            for (int id = 0; id <= members; id++)
            {
                final ServerSocket a = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                final ServerSocket b = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(a);
                sockets.add(b);
                book.add(new MemberAddress(id, "127.0.0.1", a.getLocalPort(), b.getLocalPort()));
            }
        }
        finally
        {
            for (final ServerSocket socket : sockets)
            {
                socket.close();
            }
        }
        final List<Integer> initial = new ArrayList<>();
        for (int id = 0; id < members; id++)
        {
            initial.add(id);
        }
        return WeftConfig.builder().memberId(0).groupName("chaos" + Long.toHexString(System.nanoTime() & 0xffffff))
            .members(book).transport(kind).connectTimeout(Duration.ofSeconds(30))
            .subgroups(List.of(SubgroupConfig.allMembers("all", 100, 64)))
            .membership(new MembershipConfig(initial, "chaos-secret-" + Long.toHexString(new Random().nextLong()),
                ViewChangeSends.WAIT, Duration.ofSeconds(60)))
            .build();
    }

    private void start(final int id, final boolean join)
    {
        final List<String> args = new ArrayList<>(List.of("vs-member", "--config", file.toString(), "--member",
            String.valueOf(id), "--dir", work.toString(), "--rate", String.valueOf(rate), "--timeout", "PT30M"));
        if (join)
        {
            args.add("--join");
        }
        live.put(id, processes.start("m" + id + "." + started++, Weft.class, args));
        deadIds.remove(Integer.valueOf(id));
    }

    /** One random fault or membership change, keeping a majority of the current view alive. */
    private String act(final Random random) throws Exception
    {
        final List<Integer> ids = new ArrayList<>(new TreeSet<>(live.keySet()));
        final int roll = random.nextInt(13);
        if (roll >= 10 && ids.size() >= 4)
        {
            return roll == 10 ? stallDuringKill(random, ids) : leaveWhileLeaderFrozen(random, ids);
        }
        if (!deadIds.isEmpty() && (roll < 3 || ids.size() <= 3))
        {
            final int id = deadIds.get(random.nextInt(deadIds.size()));
            start(id, true);
            return "member " + id + " joins";
        }
        if (roll < 6)
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
            VsMember.command(work, id, "leave");
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
        final boolean removed = settle("freeze " + id);
        signal("CONT", p.pid());
        if (removed && (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != VsMember.EXIT_STOPPED))
        {
            violations.add("frozen member " + id + " did not stop after it was resumed and found itself removed " +
                "(exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
            p.destroyForcibly();
        }
        return "member " + id + " frozen past the failure timeout, removed, resumed and stopped";
    }

    private long pendingKill;

    /** One member's membership thread stalls 1.5 s (under the failure timeout) in the view change a kill causes. */
    private String stallDuringKill(final Random random, final List<Integer> ids) throws Exception
    {
        Collections.shuffle(ids, random);
        final int stalled = ids.get(0);
        final int victim = ids.get(1);
        VsMember.command(work, stalled, "stall-view 1500");
        awaitLine(stalled, "member " + stalled + ": STALL armed");
        processes.process(live.remove(victim)).destroyForcibly();
        deadIds.add(victim);
        pendingKill = System.currentTimeMillis();
        return "kill -9 [" + victim + "] with member " + stalled + "'s membership thread stalled 1.5 s in the view change";
    }

    /** A member leaves while the leader is frozen (under the failure timeout): the leave waits, known to all. */
    private String leaveWhileLeaderFrozen(final Random random, final List<Integer> ids) throws Exception
    {
        final Matcher view = lastView(live.get(ids.get(0)));
        final int leader = Integer.parseInt(view.group(3).split(",")[0].trim());
        final List<Integer> others = new ArrayList<>(ids);
        others.remove(Integer.valueOf(leader));
        final int leaver = others.get(random.nextInt(others.size()));
        final Process frozen = processes.process(live.get(leader));
        signal("STOP", frozen.pid());
        try
        {
            VsMember.command(work, leaver, "leave");
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
                final Matcher v = lastView(m.getValue());
                if (v == null || !members(v.group(3)).equals(new TreeSet<>(live.keySet())) ||
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

    private Matcher lastView(final int index)
    {
        Matcher last = null;
        for (final String line : processes.lines(index))
        {
            final Matcher m = VsMember.VIEW_LINE.matcher(line);
            if (m.find())
            {
                last = m;
            }
        }
        return last;
    }

    private long currentView()
    {
        final Matcher m = live.isEmpty() ? null : lastView(live.values().iterator().next());
        return m == null ? -1 : Long.parseLong(m.group(2));
    }

    private static TreeSet<Integer> members(final String list)
    {
        final TreeSet<Integer> ids = new TreeSet<>();
        for (final String id : list.split(","))
        {
            if (!id.isBlank())
            {
                ids.add(Integer.parseInt(id.trim()));
            }
        }
        return ids;
    }

    /** Ends every live member together; checks equal final states, the invariants and no loss. */
    private void finish() throws Exception
    {
        for (final int id : live.keySet())
        {
            VsMember.command(work, id, "end");
        }
        final Map<Integer, String> finals = new HashMap<>();
        final List<Long> survivorPids = new ArrayList<>();
        for (final Map.Entry<Integer, Integer> m : live.entrySet())
        {
            final Process p = processes.process(m.getValue());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                violations.add("member " + m.getKey() + " did not end cleanly");
                continue;
            }
            survivorPids.add(p.pid());
            for (final String line : processes.lines(m.getValue()))
            {
                final Matcher f = VsMember.FINAL_LINE.matcher(line);
                if (f.find())
                {
                    finals.put(m.getKey(), f.group(1) + " " + f.group(2));
                }
            }
        }
        if (finals.values().stream().distinct().count() != 1)
        {
            violations.add("members ended with different states (delivered, hash): " + finals);
        }
        final Map<String, Long> sent = new HashMap<>();
        for (int i = 0; i < started; i++)
        {
            for (final String line : processes.lines(i))
            {
                final Matcher m = VsMember.SENT_LINE.matcher(line);
                if (m.find())
                {
                    sent.put(m.group(1) + "/" + m.group(2), Long.parseLong(m.group(3)));
                }
            }
        }
        final List<VsCheck.Log> logs = VsCheck.read(work);
        violations.addAll(VsCheck.check(logs));
        violations.addAll(VsCheck.checkNoLoss(logs.stream().filter(l -> survivorPids.contains(l.pid())).toList(), sent));
        out.printf("chaos: end: %d members ended with state %s; %d senders' successful sends checked%n",
            finals.size(), finals.values().stream().findFirst().orElse("-"), sent.size());
    }

    private int report(final long s, final boolean ownDir) throws IOException
    {
        if (!killToView.isEmpty())
        {
            final List<Long> sorted = new ArrayList<>(killToView);
            Collections.sort(sorted);
            out.printf("chaos: kill -9 to new view installed everywhere: %d kills, median %d ms, max %d ms%n",
                sorted.size(), sorted.get(sorted.size() / 2), sorted.getLast());
        }
        if (violations.isEmpty())
        {
            out.printf("chaos: OK: every invariant held (seed %d)%n", s);
            if (ownDir)
            {
                deleteTree(work);
            }
            return 0;
        }
        out.printf("chaos: FAILED (seed %d; replay with --seed %d; logs kept in %s):%n", s, s, work);
        violations.forEach(v -> out.println("  " + v));
        return 1;
    }

    /** Killed members leave their table files behind; the run removes them all. */
    private static void removeShmFiles(final WeftConfig config) throws IOException
    {
        final Path shm = config.transport().shm().directory();
        if (Files.isDirectory(shm))
        {
            try (var files = Files.newDirectoryStream(shm, "weft-" + config.group().name() + "-*"))
            {
                for (final Path f : files)
                {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        try (var paths = Files.walk(root))
        {
            for (final Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}

package io.weft.tools;

import io.weft.testkit.MemberProcesses;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * The members of a chaos run as its faults leave them: which ids live (and in which process), which are dead and may
 * join again, the invariant violations found so far, and the waits every fault step ends with.
 */
final class ChaosMembers
{
    private static final Duration SETTLE = Duration.ofSeconds(40);

    final Map<Integer, Integer> live = new HashMap<>();   // member id -> process index
    final List<Integer> deadIds = new ArrayList<>();
    final List<String> violations = new ArrayList<>();
    final List<Long> killToView = new ArrayList<>();
    private final PrintStream out;
    private MemberProcesses processes;
    private long pendingKill;

    ChaosMembers(final PrintStream out)
    {
        this.out = out;
    }

    /** The processes of this run, once started. */
    void processes(final MemberProcesses processes)
    {
        this.processes = processes;
    }

    MemberProcesses processes()
    {
        return processes;
    }

    /** {@code id} now runs in the process of index {@code index}. */
    void started(final int id, final int index)
    {
        live.put(id, index);
        deadIds.remove(Integer.valueOf(id));
    }

    /** {@code id} is no longer live (killed, stopped or leaving): its process, to wait for or signal. */
    Process remove(final int id)
    {
        final Process p = processes.process(live.remove(id));
        deadIds.add(id);
        return p;
    }

    /** The live member's process. */
    Process process(final int id)
    {
        return processes.process(live.get(id));
    }

    /** Kills {@code victims} -9; the next settled view times the kill. */
    void kill(final List<Integer> victims)
    {
        final long at = System.currentTimeMillis();
        for (final int v : victims)
        {
            remove(v).destroyForcibly();
        }
        pendingKill = at;
    }

    /** A violation, naming {@code what}, unless {@code p} exits with {@code code} within 60 s; it is killed if not. */
    void expectExit(final Process p, final int code, final String what) throws InterruptedException
    {
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != code)
        {
            violations.add(what + " (exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
            p.destroyForcibly();
        }
    }

    /** The leader of the view that live member {@code id} installed last. */
    int leader(final int id)
    {
        return Integer.parseInt(MemberViews.last(processes, live.get(id)).group(3).split(",")[0].trim());
    }

    /** The view installed last by a live member, or -1. */
    long currentView()
    {
        final Matcher m = live.isEmpty() ? null : MemberViews.last(processes, live.values().iterator().next());
        return m == null ? -1 : Long.parseLong(m.group(2));
    }

    /** Waits up to 10 s for live member {@code id} to print a line holding {@code text}; a violation if it does not. */
    void awaitLine(final int id, final String text) throws InterruptedException
    {
        if (!printed(live.get(id), 0, text, System.nanoTime() + TimeUnit.SECONDS.toNanos(10)))
        {
            violations.add("member " + id + " did not print '" + text + "' within 10 s");
        }
    }

    /**
     * Waits until the process of index {@code index} prints, from its line {@code from} on, a line holding
     * {@code text}; false if it does not by {@code deadline} ({@link System#nanoTime()}) or exits first.
     */
    private boolean printed(final int index, final int from, final String text, final long deadline)
        throws InterruptedException
    {
        while (true)
        {
            final List<String> lines = processes.lines(index);
            if (lines.subList(from, lines.size()).stream().anyMatch(l -> l.contains(text)))
            {
                return true;
            }
            if (System.nanoTime() > deadline || !processes.process(index).isAlive())
            {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    static void signal(final String signal, final long pid) throws Exception
    {
        new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).inheritIO().start().waitFor();
    }

    /** Waits until every live member installed the same view, made of exactly the live members. */
    boolean settle(final String what) throws InterruptedException
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
                final Process p = process(id);
                if (!p.isAlive())
                {
                    violations.add(what + ": member " + id + " exited " + p.exitValue() + " unexpectedly");
                    dumpThreads();
                    return false;
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        violations.add(what + ": the view did not settle on " + new TreeSet<>(live.keySet()) + " within " + SETTLE);
        dumpThreads();
        return false;
    }

    /**
     * Sends SIGQUIT to every live member, whose JVM then prints a thread dump into members.out, and waits up to 10 s
     * for the dumps to end ("JNI global refs", HotSpot's last line): what each was waiting on when the step failed.
     */
    private void dumpThreads() throws InterruptedException
    {
        final Map<Integer, Integer> from = new HashMap<>(); // process index -> its lines before the signal
        for (final int index : live.values())
        {
            final Process p = processes.process(index);
            if (p.isAlive())
            {
                from.put(index, processes.lines(index).size());
                try
                {
                    signal("QUIT", p.pid());
                }
                catch (final Exception ex)
                {
                    out.printf("chaos: no thread dump of process %d: %s%n", p.pid(), ex);
                }
            }
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (final Map.Entry<Integer, Integer> f : from.entrySet())
        {
            printed(f.getKey(), f.getValue(), "JNI global refs", deadline);
        }
        out.printf("chaos: thread dumps of the live members %s are in members.out%n", new TreeSet<>(live.keySet()));
    }
}

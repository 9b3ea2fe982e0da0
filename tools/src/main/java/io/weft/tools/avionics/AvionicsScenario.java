package io.weft.tools.avionics;

import io.weft.examples.avionics.Avionics;
import io.weft.testkit.MemberProcesses;
import io.weft.tools.Weft;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The scripted flight of {@code weft avionics}: steady flight; display 1 killed with kill -9 and, at that moment,
 * a flight-plan change (it cannot be stable before the view change removes the dead display); display 1 restarted
 * (it joins and receives the engine history); display 2 joining late, with another change at once; the end; the
 * recorder's log replayed with {@code weft log}; then the checks.
 */
final class AvionicsScenario
{
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final java.util.regex.Pattern SAMPLE = java.util.regex.Pattern.compile("^\\d+ publisher=");

    private final MemberProcesses processes;
    private final Path config;
    private final Duration phase;
    private final Duration hold;
    private final int dashboardPort;
    private final Map<Integer, Integer> current = new HashMap<>(); // member id -> process index of its incarnation
    private final Map<Integer, BufferedWriter> stdin = new HashMap<>();
    private final List<String> failures = new ArrayList<>();
    private int firstDisplay1;

    AvionicsScenario(final MemberProcesses processes, final Path config, final Duration phase, final Duration hold,
        final int dashboardPort)
    {
        this.processes = processes;
        this.config = config;
        this.phase = phase;
        this.hold = hold;
        this.dashboardPort = dashboardPort;
    }

    boolean run() throws Exception
    {
        for (final int m : List.of(Avionics.RECORDER, Avionics.FLIGHT_MANAGEMENT, Avionics.DISPLAY_1,
            Avionics.ENGINE_MONITOR))
        {
            start(m, false);
        }
        for (final int m : List.copyOf(current.keySet()))
        {
            await(m, l -> l.startsWith("READY "), "to be ready");
        }
        final String url = await(Avionics.RECORDER, l -> l.startsWith("DASHBOARD "), "to serve the dashboard")
            .substring("DASHBOARD ".length());
        say("steady flight; the dashboard is at " + url);
        pause(phase);

        firstDisplay1 = current.get(Avionics.DISPLAY_1);
        say("kill -9 display 1 (pid " + processes.process(firstDisplay1).pid() + "), and a flight-plan change at once");
        processes.process(firstDisplay1).destroyForcibly();
        command(Avionics.FLIGHT_MANAGEMENT, "divert weather ahead");
        await(Avionics.RECORDER, l -> l.startsWith("VIEW ") && l.contains("failed [1]"), "to remove display 1");
        say("display 1 restarts and joins; it receives the engine history");
        start(Avionics.DISPLAY_1, true);
        await(Avionics.DISPLAY_1, l -> l.startsWith("ENGINE-HISTORY "), "to read a live engine reading");
        pause(phase);

        say("display 2 joins late, and a flight-plan change at once");
        start(Avionics.DISPLAY_2, true);
        command(Avionics.FLIGHT_MANAGEMENT, "divert traffic");
        await(Avionics.DISPLAY_2, l -> l.startsWith("ENGINE-HISTORY "), "to read a live engine reading");
        pause(phase.plus(hold));

        say("end of flight");
        command(Avionics.FLIGHT_MANAGEMENT, "end");
        command(Avionics.ENGINE_MONITOR, "end");
        final List<String> fms = lines(Avionics.FLIGHT_MANAGEMENT, "WRITTEN ");
        final long plans = Long.parseLong(AvionicsChecks.field(fms, "WRITTEN ", "plans").orElseThrow());
        final long positions = Long.parseLong(AvionicsChecks.field(fms, "WRITTEN ", "positions").orElseThrow());
        final long engine = Long.parseLong(AvionicsChecks.field(lines(Avionics.ENGINE_MONITOR, "WRITTEN "), "WRITTEN ",
            "engine").orElseThrow());
        command(Avionics.DISPLAY_1, "expect " + plans);
        command(Avionics.DISPLAY_2, "expect " + plans);
        command(Avionics.RECORDER, "expect " + plans + " " + engine + " " + positions);
        lines(Avionics.DISPLAY_1, "DISPLAY-DONE ");
        lines(Avionics.DISPLAY_2, "DISPLAY-DONE ");
        final List<String> recorder = lines(Avionics.RECORDER, "RECORDED ");
        for (final int m : current.keySet())
        {
            command(m, "exit");
        }
        for (final int m : current.keySet())
        {
            final Process p = processes.process(current.get(m));
            if (!p.waitFor(STEP.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                failures.add(Avionics.role(m) + " did not exit with 0" + (p.isAlive() ? " (still running)" :
                    " (exit " + p.exitValue() + ")"));
            }
        }

        say("the recorder's log, replayed: weft log --config " + config + " --member 4 --topic record");
        final List<String> replay = replay(List.of("--config", config.toString(), "--member", "4", "--topic",
            "record")).stream().filter(l -> SAMPLE.matcher(l).find()).toList();
        final int shown = Math.min(5, replay.size());
        replay.subList(0, shown).forEach(l -> System.out.println("  " + l));
        System.out.printf("  ... %d more%n", replay.size() - shown);
        final List<String> verify = replay(List.of("--config", config.toString(), "--member", "4", "--topic",
            "record", "--verify"));
        check(verify.stream().anyMatch(l -> l.contains(": OK: ")), "weft log --verify: " + verify);
        return checks(plans, positions, engine, recorder, replay);
    }

    private boolean checks(final long plans, final long positions, final long engine, final List<String> recorder,
        final List<String> replay)
    {
        final List<long[]> reference = AvionicsChecks.plans(processes.lines(current.get(Avionics.RECORDER)));
        check(AvionicsChecks.recorderSawEveryChange(reference, plans));
        check(AvionicsChecks.displayAgrees("display 1 (before the crash)", AvionicsChecks.plans(
            processes.lines(firstDisplay1)), reference, false));
        check(AvionicsChecks.displayAgrees("display 1 (restarted)", AvionicsChecks.plans(
            processes.lines(current.get(Avionics.DISPLAY_1))), reference, true));
        check(AvionicsChecks.displayAgrees("display 2 (joined late)", AvionicsChecks.plans(
            processes.lines(current.get(Avionics.DISPLAY_2))), reference, true));
        check(AvionicsChecks.engineHistory("display 1 (restarted)", processes.lines(current.get(Avionics.DISPLAY_1)),
            Avionics.ENGINE_HISTORY));
        check(AvionicsChecks.engineHistory("display 2 (joined late)", processes.lines(current.get(Avionics.DISPLAY_2)),
            Avionics.ENGINE_HISTORY));
        final long recordedPlans = number(recorder, "plans");
        final long recordedEngine = number(recorder, "engine");
        final long recordedPositions = number(recorder, "positions");
        check(recordedEngine == engine ? null : "the recorder read " + recordedEngine + " engine readings of " +
            engine);
        check(number(recorder, "dropped") == 0 ? null : "the recorder dropped lines: " + recorder);
        check(AvionicsChecks.field(recorder, "RECORDED ", "durable").orElse("").equals("true") ? null :
            "the record was not durable at every member in time: " + recorder);
        check(AvionicsChecks.logHoldsEverything(replay, recordedPlans, recordedEngine, recordedPositions));
        final List<Long> missing = new ArrayList<>();
        check(AvionicsChecks.positionsInOrder(replay, positions, missing));
        System.out.printf("avionics: %d flight-plan changes, the same sequence at every display; %d of %d engine " +
            "readings and %d of %d positions recorded, %d lines in the recorder's log%n", plans, recordedEngine,
            engine, recordedPositions, positions, replay.size());
        if (!missing.isEmpty())
        {
            System.out.printf("avionics: positions the recorder never received: %s (unordered QoS: a sample in " +
                "flight when the view changes is not sent again)%n", missing.size() > 20 ?
                missing.subList(0, 20) + "..." : missing);
        }
        failures.forEach(f -> System.out.println("avionics: FAILED: " + f));
        System.out.println(failures.isEmpty() ? "avionics: OK: every display saw the same flight-plan sequence, the " +
            "joiners received the engine history, and the recorder lost nothing" : "avionics: FAILED");
        return failures.isEmpty();
    }

    private static long number(final List<String> lines, final String key)
    {
        return Long.parseLong(AvionicsChecks.field(lines, "RECORDED ", key).orElse("-1"));
    }

    private void check(final String failure)
    {
        if (failure != null)
        {
            failures.add(failure);
        }
    }

    private void check(final boolean ok, final String failure)
    {
        check(ok ? null : failure);
    }

    private void start(final int member, final boolean join)
    {
        final List<String> args = new ArrayList<>(List.of("avionics-member", "--config", config.toString(),
            "--member", String.valueOf(member)));
        if (join)
        {
            args.add("--join");
        }
        if (member == Avionics.RECORDER)
        {
            args.addAll(List.of("--dashboard-port", String.valueOf(dashboardPort)));
        }
        final String name = Avionics.role(member) + (current.containsKey(member) ? "'" : "");
        final int index = processes.start(name, Weft.class, args);
        current.put(member, index);
        stdin.put(member, processes.process(index).outputWriter());
    }

    private void command(final int member, final String line) throws IOException
    {
        final BufferedWriter w = stdin.get(member);
        w.write(line);
        w.newLine();
        w.flush();
    }

    /** Waits for member's current incarnation to print a line that {@code wanted} matches; returns it. */
    private String await(final int member, final Predicate<String> wanted, final String what) throws Exception
    {
        final int index = current.get(member);
        final long deadline = System.nanoTime() + STEP.toNanos();
        while (System.nanoTime() < deadline && processes.process(index).isAlive())
        {
            for (final String line : processes.lines(index))
            {
                if (wanted.test(line))
                {
                    return line;
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new IllegalStateException("avionics: " + Avionics.role(member) + " did not get " + what + " within " +
            STEP.toSeconds() + " s" + (processes.process(index).isAlive() ? "" : " (it exited)"));
    }

    /** Every line of the member's current incarnation, once it printed one starting with {@code prefix}. */
    private List<String> lines(final int member, final String prefix) throws Exception
    {
        await(member, l -> l.startsWith(prefix), "to print " + prefix.trim());
        return processes.lines(current.get(member));
    }

    private List<String> replay(final List<String> args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of("log"));
        command.addAll(args);
        final int index = processes.startQuiet("log", Weft.class, command);
        if (!processes.await(index, STEP.toNanos()))
        {
            failures.add("weft log did not end within " + STEP.toSeconds() + " s");
        }
        return processes.lines(index);
    }

    private static void say(final String what)
    {
        System.out.println("avionics: " + what);
    }

    private static void pause(final Duration d) throws InterruptedException
    {
        Thread.sleep(d.toMillis()); // the scenario's steady flight: nothing to wait for but time
    }
}

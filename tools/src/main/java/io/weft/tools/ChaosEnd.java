package io.weft.tools;

import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcesses;
import io.weft.testkit.VsCheck;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * The end of a chaos run: every live member ends together; equal final states, the invariants, no loss, and the same
 * runtime subgroups everywhere; then the killed members' table files go.
 */
final class ChaosEnd
{
    private ChaosEnd()
    {
    }

    /**
     * Ends the {@code live} members (id to process index) and returns the violations found in their final states and
     * in the delivery logs under {@code work} of all {@code started} processes.
     */
    static List<String> check(final MemberProcesses processes, final Map<Integer, Integer> live, final int started,
        final Path work, final PrintStream out) throws Exception
    {
        final List<String> violations = new ArrayList<>();
        for (final int id : live.keySet())
        {
            CommandFile.give(work, id, "end");
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
        violations.addAll(VsCheck.checkNoLoss(logs.stream().filter(l -> survivorPids.contains(l.pid())).toList(),
            sent));
        out.printf("chaos: end: %d members ended with state %s; %d senders' successful sends checked%n",
            finals.size(), finals.values().stream().findFirst().orElse("-"), sent.size());
        return violations;
    }

    /**
     * The violations of run-time subgroups. Each survivor's log of SUBGROUP-ADDED and SUBGROUP-REMOVED lines must make
     * sense (no subgroup added twice while held, none removed that was not held), and leave every survivor holding
     * the same subgroups in the same order (a member that joined later was told only of those in its view). A
     * subgroup a survivor asked for ({@code addedBy}: name to the asking process's index) is held unless a removal was
     * asked for; one a survivor asked to remove ({@code removedBy}) is not.
     */
    static List<String> runtimeSubgroups(final MemberProcesses processes, final Map<Integer, Integer> live,
        final Map<String, Integer> addedBy, final Map<String, Integer> removedBy, final PrintStream out)
    {
        final List<String> violations = new ArrayList<>();
        List<String> first = null;
        for (final Map.Entry<Integer, Integer> m : live.entrySet())
        {
            final String added = "member " + m.getKey() + ": SUBGROUP-ADDED ";
            final String removed = "member " + m.getKey() + ": SUBGROUP-REMOVED ";
            final List<String> held = new ArrayList<>();
            for (final String line : processes.lines(m.getValue()))
            {
                final String name = line.substring(line.lastIndexOf(' ') + 1);
                if (line.startsWith(added))
                {
                    if (held.contains(name))
                    {
                        violations.add("member " + m.getKey() + " was told of subgroup " + name + " added twice");
                    }
                    held.add(name);
                }
                else if (line.startsWith(removed) && !held.remove(name))
                {
                    violations.add("member " + m.getKey() + " was told of subgroup " + name + " removed, which it " +
                        "did not hold");
                }
            }
            if (first == null)
            {
                first = held;
                addedBy.forEach((name, asker) ->
                {
                    if (live.containsValue(asker) && !removedBy.containsKey(name) && !held.contains(name))
                    {
                        violations.add("subgroup " + name + " asked for by a survivor was never added: " + held);
                    }
                });
                removedBy.forEach((name, asker) ->
                {
                    if (live.containsValue(asker) && held.contains(name))
                    {
                        violations.add("subgroup " + name + " a survivor asked to remove is still there: " + held);
                    }
                });
            }
            else if (!first.equals(held))
            {
                violations.add("survivors hold different runtime subgroups: " + first + " and, at member " +
                    m.getKey() + ", " + held);
            }
        }
        if (first != null && !addedBy.isEmpty())
        {
            out.printf("chaos: subgroups at run time: %d asked for, %d asked to be removed, %d held at every " +
                "survivor %s%n", addedBy.size(), removedBy.size(), first.size(), first);
        }
        return violations;
    }

    /** Killed members leave their table files behind; the run removes them all. */
    static void removeShmFiles(final WeftConfig config) throws IOException
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
}

package io.weft.tools;

import io.weft.testkit.MemberProcesses;
import io.weft.testkit.VsCheck;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * The end of a chaos run: every live member ends together; equal final states, the invariants, no loss, and the same
 * subgroups added at run time everywhere.
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
        return violations;
    }

    /**
     * The violations of run-time subgroups: every survivor was told of the same added subgroups, in one order, each
     * once, and of every one a survivor asked for ({@code addedBy}: name to the asking process's index).
     */
    static List<String> addedSubgroups(final MemberProcesses processes, final Map<Integer, Integer> live,
        final Map<String, Integer> addedBy, final PrintStream out)
    {
        final List<String> violations = new ArrayList<>();
        List<String> first = null;
        for (final Map.Entry<Integer, Integer> m : live.entrySet())
        {
            final List<String> told = processes.lines(m.getValue()).stream()
                .filter(l -> l.startsWith("member " + m.getKey() + ": SUBGROUP-ADDED "))
                .map(l -> l.substring(l.lastIndexOf(' ') + 1)).toList();
            if (told.size() != new HashSet<>(told).size())
            {
                violations.add("member " + m.getKey() + " was told of an added subgroup twice: " + told);
            }
            if (first == null)
            {
                first = told;
                addedBy.forEach((name, asker) ->
                {
                    if (live.containsValue(asker) && !told.contains(name))
                    {
                        violations.add("subgroup " + name + " asked for by a survivor was never added: " + told);
                    }
                });
            }
            else if (!first.equals(told))
            {
                violations.add("survivors were told of different added subgroups: " + first + " and, at member " +
                    m.getKey() + ", " + told);
            }
        }
        if (first != null && !addedBy.isEmpty())
        {
            out.printf("chaos: subgroups added at run time: %d asked for, %d added at every survivor %s%n",
                addedBy.size(), first.size(), first);
        }
        return violations;
    }
}

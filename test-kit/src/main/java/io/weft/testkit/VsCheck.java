package io.weft.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks the virtual-synchrony invariants on the delivery logs of {@code vs-member} processes (one log per member
 * incarnation, {@code deliveries-<id>-<pid>.log}: view markers and {@code view sender incarnation counter} lines,
 * followed by {@code length n} where the member found the message's length other than its sender sent):
 * <ul>
 *     <li>intact: no member found a message of another length than it was sent with;</li>
 *     <li>exactly once: no message appears twice in a log;</li>
 *     <li>FIFO: each sender incarnation's counters follow each other without gaps;</li>
 *     <li>agreement and order: in every view, the sequences of any two logs are prefixes of one another, and are
 *     identical when both members moved on to the next view (a crashed member delivered a prefix);</li>
 *     <li>no loss ({@link #checkNoLoss}): every message a surviving sender saw succeed is in every log that
 *     covers the whole run.</li>
 * </ul>
 * Logs of live members may end mid-line or mid-view (they are flushed every 100 ms); a torn last line is ignored.
 */
public final class VsCheck
{
    private static final Pattern FILE = Pattern.compile("deliveries-(\\d+)-(\\d+)\\.log");

    /**
     * One member incarnation's log: per view, the messages delivered, as "sender/incarnation/counter"; those it found
     * of another length than sent.
     */
    public record Log(int member, long pid, TreeMap<Long, List<String>> views, Set<Long> installed, boolean fromStart,
        List<String> corrupt)
    {
        String name()
        {
            return "member " + member + " (pid " + pid + ")";
        }
    }

    private VsCheck()
    {
    }

    public static List<Log> read(final Path dir) throws IOException
    {
        final List<Log> logs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path f : files.sorted().toList())
            {
                final Matcher m = FILE.matcher(f.getFileName().toString());
                if (!m.matches())
                {
                    continue;
                }
                final TreeMap<Long, List<String>> views = new TreeMap<>();
                final Set<Long> installed = new HashSet<>();
                final List<String> corrupt = new ArrayList<>();
                final String text = Files.readString(f);
                final int end = text.lastIndexOf('\n') + 1; // a torn last line is still being written
                boolean first = true;
                boolean fromStart = false;
                for (final String line : text.substring(0, end).split("\n"))
                {
                    if (line.isEmpty())
                    {
                        continue;
                    }
                    final String[] p = line.split(" ", 2);
                    if ("V".equals(p[0]))
                    {
                        final long v = Long.parseLong(p[1].substring(0, p[1].indexOf(' ')));
                        installed.add(v);
                        views.computeIfAbsent(v, k -> new ArrayList<>());
                        fromStart |= first && v == 0;
                    }
                    else
                    {
                        final String[] q = p[1].split(" ");
                        views.computeIfAbsent(Long.parseLong(p[0]), k -> new ArrayList<>())
                            .add(q[0] + "/" + q[1] + "/" + q[2]);
                        if (q.length > 3)
                        {
                            corrupt.add(q[0] + "/" + q[1] + "/" + q[2] + " (" +
                                String.join(" ", List.of(q).subList(3, q.length)) + ")");
                        }
                    }
                    first = false;
                }
                logs.add(new Log(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), views, installed, fromStart,
                    corrupt));
            }
        }
        return logs;
    }

    /** Intact, exactly once, FIFO, agreement and order; returns the violations found (empty: all hold). */
    public static List<String> check(final List<Log> logs)
    {
        final List<String> violations = new ArrayList<>();
        for (final Log log : logs)
        {
            log.corrupt().forEach(msg -> violations.add(log.name() + " delivered " + msg + ", not the length sent"));
            final Set<String> seen = new HashSet<>();
            final Map<String, Long> last = new HashMap<>();
            for (final Map.Entry<Long, List<String>> v : log.views().entrySet())
            {
                for (final String msg : v.getValue())
                {
                    if (!seen.add(msg))
                    {
                        violations.add(log.name() + " delivered " + msg + " twice (again in view " + v.getKey() + ")");
                    }
                    final int cut = msg.lastIndexOf('/');
                    final String sender = msg.substring(0, cut);
                    final long counter = Long.parseLong(msg.substring(cut + 1));
                    final Long before = last.put(sender, counter);
                    if (before != null && counter != before + 1)
                    {
                        violations.add(log.name() + " delivered " + msg + " after counter " + before + " of the same " +
                            "sender (FIFO gap) in view " + v.getKey());
                    }
                }
            }
        }
        for (int i = 0; i < logs.size(); i++)
        {
            for (int j = i + 1; j < logs.size(); j++)
            {
                compare(logs.get(i), logs.get(j), violations);
            }
        }
        return violations;
    }

    private static void compare(final Log a, final Log b, final List<String> violations)
    {
        for (final Map.Entry<Long, List<String>> e : a.views().entrySet())
        {
            final long v = e.getKey();
            final List<String> other = b.views().get(v);
            if (other == null || !a.installed().contains(v) || !b.installed().contains(v))
            {
                continue;
            }
            final List<String> x = e.getValue();
            final int common = Math.min(x.size(), other.size());
            for (int k = 0; k < common; k++)
            {
                if (!x.get(k).equals(other.get(k)))
                {
                    violations.add("view " + v + ": " + a.name() + " and " + b.name() + " differ at delivery " + k +
                        ": " + x.get(k) + " vs " + other.get(k));
                    return;
                }
            }
            final boolean bothMovedOn = a.installed().contains(v + 1) && b.installed().contains(v + 1);
            if (bothMovedOn && x.size() != other.size())
            {
                violations.add("view " + v + ": " + a.name() + " delivered " + x.size() + " messages, " + b.name() +
                    " " + other.size() + ", though both installed view " + (v + 1));
            }
        }
    }

    /**
     * No loss: for each sender incarnation and the number of its sends that returned success, every log in
     * {@code survivors} that covers the whole run delivered all of them.
     */
    public static List<String> checkNoLoss(final List<Log> survivors, final Map<String, Long> sentOk)
    {
        final List<String> violations = new ArrayList<>();
        for (final Log log : survivors)
        {
            if (!log.fromStart())
            {
                continue; // a joiner received the earlier messages as state
            }
            final Set<String> all = new HashSet<>();
            log.views().values().forEach(all::addAll);
            sentOk.forEach((sender, count) ->
            {
                for (long c = 0; c < count; c++)
                {
                    if (!all.contains(sender + "/" + c))
                    {
                        violations.add(log.name() + " never delivered message " + c + " of sender " + sender +
                            ", whose send returned success (" + count + " did)");
                        return;
                    }
                }
            });
        }
        return violations;
    }
}

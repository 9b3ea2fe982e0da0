package io.weft.tools.avionics;

import io.weft.examples.avionics.Avionics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's checks over what the members printed and what {@code weft log} replayed: each returns null when it
 * holds, else what is wrong.
 */
final class AvionicsChecks
{
    private static final Pattern PLAN = Pattern.compile("^PLAN (\\d+) (\\d+)");

    private AvionicsChecks()
    {
    }

    /** The flight-plan changes a member applied, as (topic position, change sequence) pairs in order. */
    static List<long[]> plans(final List<String> lines)
    {
        final List<long[]> plans = new ArrayList<>();
        for (final String line : lines)
        {
            final Matcher m = PLAN.matcher(line);
            if (m.find())
            {
                plans.add(new long[]{Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
            }
        }
        return plans;
    }

    /** The value of {@code key=} in the first line that starts with {@code prefix}. */
    static Optional<String> field(final List<String> lines, final String prefix, final String key)
    {
        for (final String line : lines)
        {
            if (line.startsWith(prefix))
            {
                for (final String word : line.split(" "))
                {
                    if (word.startsWith(key + "="))
                    {
                        return Optional.of(word.substring(key.length() + 1));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** The recorder, a member throughout, applied changes 0..written-1, each once, in order. */
    static String recorderSawEveryChange(final List<long[]> recorder, final long written)
    {
        if (recorder.size() != written)
        {
            return "the recorder applied " + recorder.size() + " flight-plan changes, the flight-management system " +
                "wrote " + written;
        }
        for (int i = 0; i < recorder.size(); i++)
        {
            if (recorder.get(i)[1] != i)
            {
                return "the recorder's change #" + i + " is change " + recorder.get(i)[1];
            }
        }
        return null;
    }

    /**
     * A display applied a gap-free run of the recorder's sequence: the same change at each topic position, in the
     * same order, none twice; and, if it was running at the end, up to the last change.
     */
    static String displayAgrees(final String who, final List<long[]> display, final List<long[]> recorder,
        final boolean atEnd)
    {
        final Map<Long, Long> reference = new TreeMap<>();
        recorder.forEach(p -> reference.put(p[0], p[1]));
        for (int i = 0; i < display.size(); i++)
        {
            final long[] p = display.get(i);
            final Long expected = reference.get(p[0]);
            if (expected == null || expected != p[1])
            {
                return who + " applied change " + p[1] + " at position " + p[0] + " where the recorder applied " +
                    expected;
            }
            if (i > 0 && p[0] != display.get(i - 1)[0] + 1)
            {
                return who + " went from position " + display.get(i - 1)[0] + " to " + p[0];
            }
        }
        if (atEnd && !recorder.isEmpty() &&
            (display.isEmpty() || display.getLast()[1] != recorder.getLast()[1]))
        {
            return who + " ended at change " + (display.isEmpty() ? "none" : display.getLast()[1]) + ", not at " +
                recorder.getLast()[1];
        }
        return null;
    }

    /**
     * The positions in the recorder's log came in the order written (unordered is FIFO per publisher), none twice;
     * returns the sequence numbers missing below {@code written} into {@code missing}.
     */
    static String positionsInOrder(final List<String> replay, final long written, final List<Long> missing)
    {
        final Pattern position = Pattern.compile("text=position #(\\d+) ");
        long next = 0;
        for (final String line : replay)
        {
            final Matcher m = position.matcher(line);
            if (m.find())
            {
                final long seq = Long.parseLong(m.group(1));
                if (seq < next)
                {
                    return "position #" + seq + " was recorded after position #" + (next - 1);
                }
                for (long gap = next; gap < seq; gap++)
                {
                    missing.add(gap);
                }
                next = seq + 1;
            }
        }
        for (long gap = next; gap < written; gap++)
        {
            missing.add(gap);
        }
        return null;
    }

    /** A joiner received the last {@code history} readings of every engine before its first live one. */
    static String engineHistory(final String who, final List<String> lines, final int history)
    {
        final Optional<String> line = lines.stream().filter(l -> l.startsWith("ENGINE-HISTORY ")).findFirst();
        if (line.isEmpty())
        {
            return who + " printed no ENGINE-HISTORY (it never read a live engine reading)";
        }
        final long[] counts = Arrays.stream(line.get().substring("ENGINE-HISTORY ".length()).split(","))
            .mapToLong(Long::parseLong).toArray();
        return counts.length == Avionics.ENGINES && Arrays.stream(counts).allMatch(c -> c == history) ? null :
            who + " received " + Arrays.toString(counts) + " readings per engine from the history, not " + history;
    }

    /**
     * The recorder's log, as {@code weft log} printed it, holds every line the recorder recorded: the flight-plan
     * changes 0..plans-1 in order, and as many engine readings and positions as it read.
     */
    static String logHoldsEverything(final List<String> replay, final long plans, final long engine,
        final long positions)
    {
        final List<Long> changes = new ArrayList<>();
        long engineLines = 0;
        long positionLines = 0;
        final Pattern change = Pattern.compile("text=flight-plan #(\\d+) ");
        for (final String line : replay)
        {
            final Matcher m = change.matcher(line);
            if (m.find())
            {
                changes.add(Long.parseLong(m.group(1)));
            }
            engineLines += line.contains("text=engine ") ? 1 : 0;
            positionLines += line.contains("text=position #") ? 1 : 0;
        }
        for (int i = 0; i < changes.size(); i++)
        {
            if (changes.get(i) != i)
            {
                return "the log's flight-plan change #" + i + " is change " + changes.get(i);
            }
        }
        if (changes.size() != plans || engineLines != engine || positionLines != positions)
        {
            return "the log holds " + changes.size() + " flight-plan changes, " + engineLines + " engine readings " +
                "and " + positionLines + " positions; the recorder read " + plans + ", " + engine + " and " + positions;
        }
        return null;
    }
}

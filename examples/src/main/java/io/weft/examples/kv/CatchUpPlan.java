package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who sends which writes again in a cold start: from every member's report (the write position its log reached,
 * and the first position of the run of batches it holds), every position between the lowest reported and the target
 * is sent again by the lowest-id member whose log holds it.
 */
final class CatchUpPlan
{
    private CatchUpPlan()
    {
    }

    /**
     * The stretches {@code me} sends again so that every member reaches {@code high}, as {@code {from, to}}
     * (inclusive), in order.
     *
     * @throws IllegalStateException naming the first position no member's log holds.
     */
    static List<long[]> stretches(final Map<Integer, long[]> reports, final List<Integer> members, final int me,
        final long high)
    {
        final long low = lowest(reports, members);
        final List<Integer> byId = members.stream().sorted().toList();
        final List<long[]> mine = new ArrayList<>();
        long from = -1;
        for (long p = low + 1; p <= high; p++)
        {
            final int source = holder(reports, byId, p);
            if (source < 0)
            {
                throw new IllegalStateException("no log of the view's members " + byId + " holds write " + p +
                    " (positions reported: " + describe(reports) + "; the highest reported is " + high +
                    "); the store cannot recover it");
            }
            if (source == me && from < 0)
            {
                from = p;
            }
            if ((source != me || p == high) && from >= 0)
            {
                mine.add(new long[] {from, source == me ? p : p - 1});
                from = -1;
            }
        }
        return mine;
    }

    /**
     * The position whose catch-up must be delivered before {@code me} sends its stretch from {@code from}, or -1: the
     * one before it, where some member lacks it and another member sends it (this round or an earlier one). Stretches
     * so reach the members in position order, and none keeps another's stretch in memory until the earlier arrives.
     */
    static long after(final Map<Integer, long[]> reports, final List<Integer> members, final int me, final long from)
    {
        final long low = lowest(reports, members);
        final long before = from - 1;
        return before > low && holder(reports, members.stream().sorted().toList(), before) != me ? before : -1;
    }

    /**
     * The members of {@code members} that no plan can bring to {@code high}: each needs a position no member's log
     * holds as a batch (the others' logs were compacted past its log's end: their snapshots hold it). Each maps to the
     * first stretch {@code {from, to}} it needs that no log holds, by id.
     */
    static Map<Integer, long[]> stale(final Map<Integer, long[]> reports, final List<Integer> members, final long high)
    {
        final List<Integer> byId = members.stream().sorted().toList();
        final long low = lowest(reports, members);
        final Map<Integer, long[]> stale = new TreeMap<>();
        long from = -1;
        for (long p = low + 1; p <= high + 1; p++)
        {
            final boolean unheld = p <= high && holder(reports, byId, p) < 0;
            if (unheld && from < 0)
            {
                from = p;
            }
            else if (!unheld && from >= 0)
            {
                for (final int m : byId)
                {
                    final long at = reports.get(m)[0];
                    if (at < p - 1 && !stale.containsKey(m))
                    {
                        stale.put(m, new long[] {Math.max(from, at + 1), p - 1});
                    }
                }
                from = -1;
            }
        }
        return stale;
    }

    /**
     * {@code stretches} less the positions of {@code sent} (both {@code {from, to}}, inclusive, in order): what a
     * member sent again in an earlier round reaches every member anyway (what its proposer still holds is sent in a
     * later view, and what the view change cut off, the group sends again).
     */
    static List<long[]> minus(final List<long[]> stretches, final List<long[]> sent)
    {
        List<long[]> left = stretches;
        for (final long[] cut : sent)
        {
            final List<long[]> next = new ArrayList<>();
            for (final long[] s : left)
            {
                if (s[1] < cut[0] || cut[1] < s[0])
                {
                    next.add(s);
                    continue;
                }
                if (s[0] < cut[0])
                {
                    next.add(new long[] {s[0], cut[0] - 1});
                }
                if (cut[1] < s[1])
                {
                    next.add(new long[] {cut[1] + 1, s[1]});
                }
            }
            left = next;
        }
        return left;
    }

    /** The lowest position the members reported: every member holds up to it, none needs it sent again. */
    private static long lowest(final Map<Integer, long[]> reports, final List<Integer> members)
    {
        return members.stream().mapToLong(m -> reports.get(m)[0]).min().orElseThrow();
    }

    private static int holder(final Map<Integer, long[]> reports, final List<Integer> byId, final long p)
    {
        for (final int m : byId)
        {
            final long[] r = reports.get(m);
            if (r[1] <= p && p <= r[0])
            {
                return m;
            }
        }
        return -1;
    }

    static String describe(final Map<Integer, long[]> reports)
    {
        final StringBuilder b = new StringBuilder();
        reports.forEach((m, r) -> b.append(b.isEmpty() ? "" : ", ").append("member ").append(m)
            .append(" at ").append(r[0]).append(" holding from ").append(r[1]));
        return b.toString();
    }
}

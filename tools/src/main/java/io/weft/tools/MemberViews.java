package io.weft.tools;

import io.weft.testkit.MemberProcesses;

import java.util.TreeSet;
import java.util.regex.Matcher;

/** The views member programs printed ({@link VsMember#VIEW_LINE}), as the demos and chaos read them. */
final class MemberViews
{
    private MemberViews()
    {
    }

    /** The last view line process {@code index} printed, matched, or null. */
    static Matcher last(final MemberProcesses processes, final int index)
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

    /** The member ids of a printed list ("0, 2, 3"). */
    static TreeSet<Integer> ids(final String list)
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
}

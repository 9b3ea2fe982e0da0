package io.weft.membership;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A list of membership changes in the form the table's {@code changes[]} column holds them: one long per change,
 * {@code (kind << 32) | member id}. The leader proposes by appending; committed lists are prefixes of it.
 */
final class ChangeList
{
    static final long FAILED = 1;
    static final long LEFT = 2;
    static final long JOINED = 3;
    /** No member changes: subgroups added at run time join the next view ({@link RuntimeSubgroups}). */
    static final long RECONFIGURED = 4;
    /** A bit of a {@link #FAILED} change's kind: its member had announced its going ({@link #appendFailed}). */
    private static final long ANNOUNCED = 1 << 8;

    private final long[] entries;
    private int length;

    ChangeList(final int capacity)
    {
        entries = new long[capacity];
    }

    /** A list holding exactly {@code entries} (encoded changes). */
    static ChangeList of(final long... entries)
    {
        final ChangeList list = new ChangeList(entries.length);
        System.arraycopy(entries, 0, list.entries, 0, entries.length);
        list.length = entries.length;
        return list;
    }

    static long encode(final long kind, final int memberId)
    {
        return kind << 32 | memberId;
    }

    static long kindOf(final long change)
    {
        return (change >>> 32) & ~ANNOUNCED;
    }

    static int idOf(final long change)
    {
        return (int)change;
    }

    int length()
    {
        return length;
    }

    long get(final int i)
    {
        return entries[i];
    }

    /** Appends a change; false when full (the rest goes into the next view change). */
    boolean append(final long kind, final int memberId)
    {
        if (length == entries.length)
        {
            return false;
        }
        entries[length++] = encode(kind, memberId);
        return true;
    }

    /**
     * Appends {@code memberId} as failed; {@code announced}: it had announced a leave or finished its run before it
     * went. Such a member is removed as failed by the protocol (its row is silent: no acknowledgement, wedge or trim
     * from it) and reported as left ({@link #nextView}). False when full.
     */
    boolean appendFailed(final int memberId, final boolean announced)
    {
        return append(announced ? FAILED | ANNOUNCED : FAILED, memberId);
    }

    /** Replaces the contents with {@code k} entries read by {@code source}. */
    void copyFrom(final EntrySource source, final int k)
    {
        for (int i = 0; i < k; i++)
        {
            entries[i] = source.entry(i);
        }
        length = k;
    }

    /** True if the first {@code k} entries equal those read by {@code source}, and {@code k} is this length. */
    boolean sameAs(final EntrySource source, final int k)
    {
        if (k != length)
        {
            return false;
        }
        for (int i = 0; i < k; i++)
        {
            if (source.entry(i) != entries[i])
            {
                return false;
            }
        }
        return true;
    }

    /** A copy of the first {@code k} entries. */
    ChangeList prefix(final int k)
    {
        return of(Arrays.copyOf(entries, k));
    }

    /** Any change of member {@code memberId} is listed. */
    boolean mentions(final int memberId)
    {
        for (int i = 0; i < length; i++)
        {
            if (kindOf(entries[i]) != RECONFIGURED && idOf(entries[i]) == memberId)
            {
                return true;
            }
        }
        return false;
    }

    boolean lists(final long kind, final int memberId)
    {
        for (int i = 0; i < length; i++)
        {
            if (kindOf(entries[i]) == kind && idOf(entries[i]) == memberId)
            {
                return true;
            }
        }
        return false;
    }

    int count(final long kind)
    {
        int c = 0;
        for (int i = 0; i < length; i++)
        {
            c += kindOf(entries[i]) == kind ? 1 : 0;
        }
        return c;
    }

    /** Member ids of the changes of {@code kind}, in list order (failed ones whether announced or not). */
    List<Integer> ids(final long kind)
    {
        return select(kind, ~ANNOUNCED);
    }

    /** Member ids of the changes whose kind, its bits under {@code mask}, is {@code kind}, in list order. */
    private List<Integer> select(final long kind, final long mask)
    {
        final List<Integer> out = new ArrayList<>();
        for (int i = 0; i < length; i++)
        {
            if (((entries[i] >>> 32) & mask) == kind)
            {
                out.add(idOf(entries[i]));
            }
        }
        return out;
    }

    /**
     * The view that follows {@code old} once this list is committed: failed and departed members removed, survivors
     * in their old order, joiners appended in list order. A member removed as failed after it announced a leave or
     * finished its run is reported as left: its going was announced, not a fault (Group.finish promises so).
     */
    View nextView(final View old)
    {
        final List<Integer> failed = select(FAILED, -1L); // exactly: without the announced mark
        final List<Integer> gone = ids(LEFT);
        gone.addAll(select(FAILED | ANNOUNCED, -1L));
        final List<Integer> joined = ids(JOINED);
        final List<Integer> members = new ArrayList<>();
        for (final int id : old.members())
        {
            if (!failed.contains(id) && !gone.contains(id))
            {
                members.add(id);
            }
        }
        for (final int id : joined)
        {
            if (!members.contains(id))
            {
                members.add(id);
            }
        }
        return new View(old.id() + 1, members, joined, gone, failed);
    }

    @Override
    public String toString()
    {
        final List<Integer> announced = select(FAILED | ANNOUNCED, -1L);
        return "failed " + select(FAILED, -1L) + ", left " + ids(LEFT) + ", joined " + ids(JOINED) +
            (announced.isEmpty() ? "" : ", gone after a leave or finish " + announced) +
            (count(RECONFIGURED) > 0 ? ", subgroups added" : "");
    }

    /** Reads entry {@code i} of a list held elsewhere (a row of the table). */
    @FunctionalInterface
    interface EntrySource
    {
        long entry(int i);
    }
}

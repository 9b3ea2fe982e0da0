package io.weft.membership;

import java.util.List;

/**
 * One view of the group: its members in rank order and how it differs from the previous view. Every member that
 * installs view {@code id} sees the same members; between two views every survivor delivered the same messages.
 *
 * @param id      0 for the configured initial view, then +1 per view change.
 * @param members member ids in rank order (survivors keep their relative order, joiners are appended).
 * @param joined  members that joined in this view.
 * @param left    members that left the previous view gracefully: a leave agreed, or a leave or finish
 *                announced before the member went (a finish closes without waiting for a view change).
 * @param failed  members of the previous view removed as failed.
 */
public record View(long id, List<Integer> members, List<Integer> joined, List<Integer> left, List<Integer> failed)
{
    /** Copies the lists, so that a view never changes once made. */
    public View
    {
        members = List.copyOf(members);
        joined = List.copyOf(joined);
        left = List.copyOf(left);
        failed = List.copyOf(failed);
    }

    /**
     * The initial view: nobody joined, left or failed.
     *
     * @param members member ids in rank order.
     * @return view 0 of {@code members}.
     */
    public static View initial(final List<Integer> members)
    {
        return new View(0, members, List.of(), List.of(), List.of());
    }

    /** {@return the member that proposes view changes while it lives: rank 0} */
    public int leader()
    {
        return members.get(0);
    }

    /**
     * The rank of a member in this view.
     *
     * @param memberId the member's id.
     * @return its position in {@link #members()}, -1 if it is not a member.
     */
    public int rankOf(final int memberId)
    {
        return members.indexOf(memberId);
    }

    /**
     * Whether a member is in this view.
     *
     * @param memberId the member's id.
     * @return true if {@code memberId} is one of {@link #members()}.
     */
    public boolean contains(final int memberId)
    {
        return members.contains(memberId);
    }

    @Override
    public String toString()
    {
        return "view " + id + " " + members + (joined.isEmpty() ? "" : " joined " + joined) +
            (left.isEmpty() ? "" : " left " + left) + (failed.isEmpty() ? "" : " failed " + failed);
    }
}

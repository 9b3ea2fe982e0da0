package io.weft.smc;

import io.weft.config.GroupConfig;
import io.weft.config.SubgroupConfig;
import io.weft.sst.Column;
import io.weft.sst.SstLayout;

import java.util.ArrayList;
import java.util.List;

/**
 * A subgroup's place in the table: its member and sender ranks and its columns. Column order is chosen so that the
 * acknowledgements (received[], then seqNum) and the delivered counter are contiguous and go out in one push.
 * <pre>
 *   &lt;name&gt;.published   counter: slots I have published, minus one (the guard of my slots)
 *   &lt;name&gt;.received    counter per sender: highest message index received with no gap
 *   &lt;name&gt;.seqNum      counter: highest global sequence number received with no gap
 *   &lt;name&gt;.delivered   counter: highest global sequence number delivered
 *   &lt;name&gt;.persisted   counter: how far this member made its deliveries durable (an application count)
 *   &lt;name&gt;.fence       counter: the ticket of the newest read fence this member asked for
 *   &lt;name&gt;.fenceEcho   counter per member: the newest fence ticket of that member seen here, unwedged
 *   &lt;name&gt;.slots       the ring: window (at least 2) slots of header + max-payload bytes, holding records
 *                        of header + payload (used in senders' rows)
 * </pre>
 */
public final class SubgroupLayout
{
    final SubgroupConfig config;
    final int[] memberRanks;
    final int[] memberIds;
    final int[] senderRanks;
    final int[] senderIds;
    final int slotSize;
    Column published;
    Column received;
    Column seqNum;
    Column delivered;
    Column persisted;
    Column fence;
    Column fenceEcho;
    Column slots;

    private SubgroupLayout(final SubgroupConfig config, final GroupConfig group)
    {
        this.config = config;
        final List<Integer> members = sortedByRank(config.memberIds(group), group);
        final List<Integer> senders = sortedByRank(config.senderIds(group), group);
        if (senders.isEmpty())
        {
            throw new IllegalArgumentException("subgroup " + config.name() + " has no senders");
        }
        this.memberIds = members.stream().mapToInt(Integer::intValue).toArray();
        this.memberRanks = members.stream().mapToInt(group::rankOf).toArray();
        this.senderIds = senders.stream().mapToInt(Integer::intValue).toArray();
        this.senderRanks = senders.stream().mapToInt(group::rankOf).toArray();
        this.slotSize = SlotHeader.extent(config.maxPayload());
    }

    /** Declares the columns of every subgroup of {@code subgroups} into {@code layout}, in order. */
    public static List<SubgroupLayout> declare(final SstLayout.Builder layout, final List<SubgroupConfig> subgroups,
        final GroupConfig group)
    {
        final List<SubgroupLayout> result = new ArrayList<>();
        for (final SubgroupConfig sg : subgroups)
        {
            final SubgroupLayout l = new SubgroupLayout(sg, group);
            final String p = sg.name() + ".";
            layout.counter(p + "published").counters(p + "received", l.senderRanks.length).counter(p + "seqNum")
                .counter(p + "delivered").counter(p + "persisted").counter(p + "fence")
                .counters(p + "fenceEcho", l.memberRanks.length).bytes(p + "slots", ringBytes(sg.window(), l.slotSize));
            result.add(l);
        }
        return result;
    }

    /**
     * A ring of {@code window} max-payload slots, and at least two: a record that does not fit before the ring's end
     * starts over at its beginning, which a ring of one slot cannot always hold.
     */
    private static int ringBytes(final int window, final int slotSize)
    {
        return Math.max(window, 2) * slotSize;
    }

    /** Binds the declared columns once the layout is built. */
    void bind(final SstLayout built)
    {
        final String p = config.name() + ".";
        published = built.column(p + "published");
        received = built.column(p + "received");
        seqNum = built.column(p + "seqNum");
        delivered = built.column(p + "delivered");
        persisted = built.column(p + "persisted");
        fence = built.column(p + "fence");
        fenceEcho = built.column(p + "fenceEcho");
        slots = built.column(p + "slots");
    }

    /** The subgroup's configuration in this view. */
    public SubgroupConfig config()
    {
        return config;
    }

    /** How many senders the subgroup has, each with a ring of slots in its row. */
    public int senders()
    {
        return senderRanks.length;
    }

    int senderIndexOfRank(final int rank)
    {
        for (int i = 0; i < senderRanks.length; i++)
        {
            if (senderRanks[i] == rank)
            {
                return i;
            }
        }
        return -1;
    }

    boolean hasMemberRank(final int rank)
    {
        return memberIndexOfRank(rank) >= 0;
    }

    /** The member's place in {@link #memberRanks}, or -1. */
    int memberIndexOfRank(final int rank)
    {
        for (int i = 0; i < memberRanks.length; i++)
        {
            if (memberRanks[i] == rank)
            {
                return i;
            }
        }
        return -1;
    }

    private static List<Integer> sortedByRank(final List<Integer> ids, final GroupConfig group)
    {
        final List<Integer> sorted = new ArrayList<>(ids);
        sorted.sort((a, b) -> Integer.compare(group.rankOf(a), group.rankOf(b)));
        return sorted;
    }
}

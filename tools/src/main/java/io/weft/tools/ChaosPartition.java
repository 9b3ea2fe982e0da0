package io.weft.tools;

import io.weft.testkit.Namespaces;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The chaos run's network partitions: its members live in two network namespaces joined by a veth pair, the lower two
 * thirds of the ids (the spare joiner's included) in one, so that most views have a side with a majority to cut
 * away the other.
 */
final class ChaosPartition implements AutoCloseable
{
    private final Namespaces ns;
    private final int ids;
    private int partitions;

    /** Namespaces for {@code ids} member ids; {@link Namespaces#unavailable()} says whether they can be had. */
    ChaosPartition(final int ids) throws Exception
    {
        this.ids = ids;
        this.ns = Namespaces.claim("c");
    }

    boolean inA(final int id)
    {
        return id < (2 * ids + 2) / 3;
    }

    /** The address member {@code id} listens on, in its namespace. */
    String host(final int id)
    {
        return inA(id) ? ns.addressA : ns.addressB;
    }

    /** What runs a command in member {@code id}'s namespace. */
    List<String> exec(final int id)
    {
        return ns.exec(inA(id) ? ns.a : ns.b);
    }

    int partitions()
    {
        return partitions;
    }

    /** Which ids live in which namespace, for the run's log. */
    String sides()
    {
        final List<Integer> a = new ArrayList<>();
        for (int id = 0; inA(id); id++)
        {
            a.add(id);
        }
        return "ids " + a + " in namespace " + ns.a + ", the others in " + ns.b;
    }

    /**
     * Cuts the link between the namespaces past the failure timeout. The side holding a majority of the view (with a
     * leave in flight: of the members that stay) must install a view of its own and go on; every member of the other
     * side must stop with the minority error. Returns null, having done nothing, when no side would hold a majority.
     */
    String partition(final ChaosMembers members, final Path work, final Random random, final List<Integer> ids,
        final boolean leaveInFlight) throws Exception
    {
        final List<Integer> a = ids.stream().filter(this::inA).toList();
        final List<Integer> b = ids.stream().filter(id -> !inA(id)).toList();
        final List<Integer> major = a.size() > b.size() ? a : b;
        final List<Integer> minor = major == a ? b : a;
        final int leader = members.leader(ids.get(0));
        final List<Integer> leavers = major.stream().filter(id -> id != leader).toList();
        final int staying = leaveInFlight ? ids.size() - 1 : ids.size();
        if (minor.isEmpty() || 2 * (major.size() - (leaveInFlight ? 1 : 0)) <= staying ||
            (leaveInFlight && (!major.contains(leader) || leavers.isEmpty())))
        {
            return null;
        }
        partitions++;
        int leaver = -1;
        final long begin = System.nanoTime();
        try
        {
            if (leaveInFlight)
            {
                leaver = leavers.get(random.nextInt(leavers.size()));
                final Process frozen = members.process(leader);
                ChaosMembers.signal("STOP", frozen.pid());
                try
                {
                    CommandFile.give(work, leaver, "leave");
                    TimeUnit.MILLISECONDS.sleep(500); // the leave flag reaches every member; the leader cannot act
                    ns.cut();
                    TimeUnit.MILLISECONDS.sleep(300);
                }
                finally
                {
                    ChaosMembers.signal("CONT", frozen.pid());
                }
            }
            else
            {
                ns.cut();
            }
            final Map<Integer, Process> stopped = new HashMap<>();
            for (final int id : minor)
            {
                stopped.put(id, members.remove(id));
            }
            final Process left = leaver < 0 ? null : members.remove(leaver);
            members.settle("partition " + major + " | " + minor);
            for (final Map.Entry<Integer, Process> m : stopped.entrySet())
            {
                members.expectExit(m.getValue(), VsMember.EXIT_STOPPED,
                    "member " + m.getKey() + " on the minority side did not stop with the minority error");
            }
            if (left != null)
            {
                members.expectExit(left, 0, "member " + leaver + " did not leave cleanly during the partition");
            }
        }
        finally
        {
            ns.heal();
        }
        return String.format("partition %s | %s%s, majority on in %d ms, minority stopped, healed", major, minor,
            leaver < 0 ? "" : " with member " + leaver + "'s leave in flight (leader " + leader + " frozen)",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
    }

    /** Removes the namespaces; safe to call twice, and from the shutdown hook while the run still closes. */
    @Override
    public synchronized void close()
    {
        ns.close();
    }
}

package io.weft.testkit;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A recorded concurrent history of reads and writes on registers (keys), and its linearizability check: for each
 * key alone (linearizability is compositional), a search in the style of Wing and Gong with Lowe's memoisation for a
 * total order of the operations that respects real time (an operation that returned before another was called comes
 * first) and the register's semantics (a read returns the last value written). A write whose outcome is unknown
 * (the connection died, or the store said it may or may not have applied it) may take effect at any time after its
 * call, or never; a read whose outcome is unknown tells nothing and is dropped.
 */
final class RegisterHistory
{
    /** One operation; {@code value} is what it wrote or read (null: the key was absent). */
    record Op(String key, int client, long call, long ret, boolean write, String value)
    {
        boolean completed()
        {
            return ret != Long.MAX_VALUE;
        }
    }

    private final List<Op> ops = new ArrayList<>();

    synchronized void add(final Op op)
    {
        ops.add(op);
    }

    synchronized int size()
    {
        return ops.size();
    }

    /** The keys whose history is not linearizable, each with a short reason; empty if all are. */
    synchronized List<String> violations()
    {
        final Map<String, List<Op>> byKey = new TreeMap<>();
        for (final Op op : ops)
        {
            byKey.computeIfAbsent(op.key, k -> new ArrayList<>()).add(op);
        }
        final List<String> bad = new ArrayList<>();
        for (final Map.Entry<String, List<Op>> e : byKey.entrySet())
        {
            final List<Op> list = new ArrayList<>(e.getValue());
            list.sort(Comparator.comparingLong(Op::call));
            if (!linearizable(list))
            {
                bad.add("key " + e.getKey() + ": no linearization of its " + list.size() + " operations");
            }
        }
        return bad;
    }

    /** The search recurses once per operation of the key: it runs on a thread with a stack that fits it. */
    private static boolean linearizable(final List<Op> list)
    {
        final boolean[] result = new boolean[1];
        final Thread t = new Thread(null, () -> result[0] = new Search(list).linearizable(), "linearizability",
            (1L << 20) + 4096L * list.size());
        t.start();
        try
        {
            t.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
        return result[0];
    }

    private static final class Search
    {
        private final List<Op> ops;
        private final BitSet completed = new BitSet();
        private final Set<Object> failed = new HashSet<>();

        Search(final List<Op> ops)
        {
            this.ops = ops;
            for (int i = 0; i < ops.size(); i++)
            {
                if (ops.get(i).completed())
                {
                    completed.set(i);
                }
            }
        }

        boolean linearizable()
        {
            return search(new BitSet(), null);
        }

        private boolean search(final BitSet done, final String state)
        {
            final BitSet left = (BitSet)completed.clone();
            left.andNot(done);
            if (left.isEmpty())
            {
                return true;
            }
            final List<Object> key = List.of(done.clone(), Objects.requireNonNullElse(state, "\0nil"));
            if (failed.contains(key))
            {
                return false;
            }
            long firstReturn = Long.MAX_VALUE;
            for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1))
            {
                firstReturn = Math.min(firstReturn, ops.get(i).ret);
            }
            for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1))
            {
                final Op op = ops.get(i);
                if (op.call > firstReturn)
                {
                    break; // sorted by call: this and every later one started after some pending one returned
                }
                if (!op.write && !Objects.equals(state, op.value))
                {
                    continue;
                }
                done.set(i);
                final boolean ok = search(done, op.write ? op.value : state);
                done.clear(i);
                if (ok)
                {
                    return true;
                }
            }
            failed.add(key);
            return false;
        }
    }
}

package io.weft.examples.kv;

import java.util.Arrays;

/**
 * The store's expiries: a binary min-heap of (expiry, key) pairs, ordered by expiry and then key ({@link
 * Key#compareTo}: hash, then bytes). Each pair's expiry and key hash sit side by side in one array, so a comparison
 * loads one cache line, and the keys only when both tie. {@link Keyspace} leaves a pair in when its entry changes
 * (stale or early, sorted out as it comes out), so a write adds at most one pair and removes none: a search tree of
 * exact pairs, each write taking its entry's old pair out and the new one in, cost a SET with an expiry two thirds
 * of its throughput (116-127k SET EX/s against 299-404k without it, {@code redis-benchmark -c 50 -P 16 -r 100000}).
 * The writing thread's only.
 */
final class ExpiryHeap
{
    private static final int MIN_CAPACITY = 64;

    /** The expiry of pair i at 2i, its key's hash at 2i + 1. */
    private long[] order = new long[2 * MIN_CAPACITY];
    private Key[] keys = new Key[MIN_CAPACITY];
    private int size;

    int size()
    {
        return size;
    }

    /** The first pair's expiry; only while {@link #size} is not 0. */
    long firstAt()
    {
        return order[0];
    }

    /** The first pair's key; only while {@link #size} is not 0. */
    Key firstKey()
    {
        return keys[0];
    }

    void add(final long at, final Key key)
    {
        if (size == keys.length)
        {
            order = Arrays.copyOf(order, 4 * size);
            keys = Arrays.copyOf(keys, 2 * size);
        }
        final long hash = key.hash();
        int i = size++;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (!before(at, hash, key, parent))
            {
                break;
            }
            move(parent, i);
            i = parent;
        }
        set(i, at, hash, key);
    }

    /** Takes the first pair out; only while {@link #size} is not 0. */
    void removeFirst()
    {
        final int last = --size;
        final long at = order[2 * last];
        final long hash = order[2 * last + 1];
        final Key key = keys[last];
        keys[last] = null;
        int i = 0;
        while (2 * i + 1 < size)
        {
            int child = 2 * i + 1;
            if (child + 1 < size && before(order[2 * child + 2], order[2 * child + 3], keys[child + 1], child))
            {
                child++;
            }
            if (before(at, hash, key, child))
            {
                break;
            }
            move(child, i);
            i = child;
        }
        if (last > 0)
        {
            set(i, at, hash, key);
        }
    }

    /** Empties the heap, its arrays back to their first size. */
    void reset()
    {
        order = new long[2 * MIN_CAPACITY];
        keys = new Key[MIN_CAPACITY];
        size = 0;
    }

    private void set(final int i, final long at, final long hash, final Key key)
    {
        order[2 * i] = at;
        order[2 * i + 1] = hash;
        keys[i] = key;
    }

    private void move(final int from, final int to)
    {
        order[2 * to] = order[2 * from];
        order[2 * to + 1] = order[2 * from + 1];
        keys[to] = keys[from];
    }

    /** Whether the pair (at, key of {@code hash}) comes before pair {@code j}; the keys are read only on a tie. */
    private boolean before(final long at, final long hash, final Key key, final int j)
    {
        final long otherAt = order[2 * j];
        if (at != otherAt)
        {
            return at < otherAt;
        }
        final long otherHash = order[2 * j + 1];
        return hash != otherHash ? hash < otherHash : key.compareTo(keys[j]) < 0;
    }
}

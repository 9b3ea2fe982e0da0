package io.weft.examples.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BiConsumer;

/**
 * The store's hash table: open addressing with linear probing, written by one thread (the delivery thread) and read
 * by any (local reads, INFO). A slot holds its key's hash, length and first 16 bytes in four longs, so a lookup of a
 * key of up to 16 bytes compares it in the slot: one cache line per probe, where a chained map loads the bin, the node
 * and the stored key one after the other (those loads were 40% of member 0's delivery-thread samples and about half
 * of the other members' with {@code ConcurrentHashMap}).
 * <p>
 * A reader sees a slot's key once its hash is there: the writer stores the rest first and the hash last, with release.
 * A slot keeps its key for the table's life: a removed key leaves its slot with a null value (reused if the key comes
 * back) until the table is rebuilt, which the writer does when keys fill half of it, into a new table that it then
 * publishes. A reader still on the old table sees the store as it was.
 */
final class KeyTable
{
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(Object[].class);
    /** Longs per slot: hash (0: empty), length, the key's bytes 0-7 and 8-15 (see {@link Key}). */
    private static final int SLOT = 4;
    private static final int MIN_SLOTS = 1 << 12;

    private volatile Table table = new Table(MIN_SLOTS);
    /** Keys with a value: written by the writer only. */
    private volatile int size;

    private static final class Table
    {
        final long[] meta;
        /** The key of each used slot: read to compare a key longer than 16 bytes, and to list the keys. */
        final Key[] keys;
        final Object[] values;
        final int mask;
        /** Slots with a key, removed ones included (writer only). */
        int used;

        Table(final int slots)
        {
            this.meta = new long[slots * SLOT];
            this.keys = new Key[slots];
            this.values = new Object[slots];
            this.mask = slots - 1;
        }
    }

    /** The value stored under {@code key}, or null. Any thread. */
    Object get(final Key key)
    {
        final Table t = table;
        final int s = find(t, key);
        return s < 0 ? null : VALUES.getAcquire(t.values, s);
    }

    /** Whether {@code key} has a slot (with a value or removed); looks nothing else up. Any thread. */
    boolean has(final Key key)
    {
        return find(table, key) >= 0;
    }

    /** Stores {@code value} (not null) under {@code key}; returns the value replaced, null if there was none. */
    Object put(final Key key, final Object value)
    {
        Table t = table;
        int s = find(t, key);
        if (s >= 0)
        {
            final Object old = t.values[s];
            VALUES.setRelease(t.values, s, value);
            if (old == null)
            {
                size = size + 1; // the writer's own: no read-modify-write race
            }
            return old;
        }
        if ((t.used + 1) * 2 > t.mask + 1)
        {
            t = rebuilt(t, size + 1);
            table = t;
            s = find(t, key);
        }
        insert(t, -1 - s, key, value);
        size = size + 1;
        return null;
    }

    /** Removes {@code key}; returns its value, null if it had none. Writer only. */
    Object remove(final Key key)
    {
        final Table t = table;
        final int s = find(t, key);
        if (s < 0 || t.values[s] == null)
        {
            return null;
        }
        final Object old = t.values[s];
        VALUES.setRelease(t.values, s, null);
        size = size - 1;
        return old;
    }

    /** Removes every key. Writer only. */
    void clear()
    {
        table = new Table(MIN_SLOTS);
        size = 0;
    }

    int size()
    {
        return size;
    }

    /** Calls {@code action} with every key that has a value, and the value: a weakly consistent walk. Any thread. */
    void forEach(final BiConsumer<Key, Object> action)
    {
        final Table t = table;
        for (int s = 0; s <= t.mask; s++)
        {
            if ((long)LONGS.getAcquire(t.meta, s * SLOT) != 0)
            {
                final Object value = VALUES.getAcquire(t.values, s);
                if (value != null)
                {
                    action.accept(t.keys[s], value);
                }
            }
        }
    }

    /** The slot of {@code key} in {@code t}, or {@code -1 - slot} of the empty slot where it would go. */
    private static int find(final Table t, final Key key)
    {
        final long hash = key.hash();
        int s = (int)(hash ^ (hash >>> 29)) & t.mask;
        while (true)
        {
            final int at = s * SLOT;
            final long h = (long)LONGS.getAcquire(t.meta, at);
            if (h == 0)
            {
                return -1 - s;
            }
            if (h == hash && key.matches(t.meta[at + 1], t.meta[at + 2], t.meta[at + 3], t.keys, s))
            {
                return s;
            }
            s = (s + 1) & t.mask;
        }
    }

    /** Fills the empty slot {@code s}; the hash goes last, with release: a reader that sees it sees the rest. */
    private static void insert(final Table t, final int s, final Key key, final Object value)
    {
        final int at = s * SLOT;
        t.keys[s] = key;
        t.values[s] = value;
        t.meta[at + 1] = key.length();
        t.meta[at + 2] = key.head0();
        t.meta[at + 3] = key.head1();
        LONGS.setRelease(t.meta, at, key.hash());
        t.used++;
    }

    /** A new table with the keys of {@code old} that have a value, at most a quarter full with {@code keys} keys. */
    private static Table rebuilt(final Table old, final int keys)
    {
        int slots = MIN_SLOTS;
        while (slots < keys * 4)
        {
            slots <<= 1;
        }
        final Table t = new Table(slots);
        for (int s = 0; s <= old.mask; s++)
        {
            if (old.values[s] != null)
            {
                insert(t, -1 - find(t, old.keys[s]), old.keys[s], old.values[s]);
            }
        }
        return t;
    }
}

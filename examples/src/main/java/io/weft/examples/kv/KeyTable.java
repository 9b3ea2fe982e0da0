package io.weft.examples.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
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
 * back). When keys fill half of the table the writer grows it without a pause: it publishes a table at most a
 * quarter full beside the full one, which from then on is never written, and moves the old table's keys over a few
 * slots at every write and every command's lookup. Redis rehashes step by step for the same reason: one rebuild of
 * 500,000 keys stopped the delivery thread, and with it the member's part in the group, for 120-150 ms, and of 2
 * million keys for about a second. Much of that was the new arrays' allocation, whose pages the JVM zeroes: the next
 * table is allocated on another thread once keys fill 3/8 of the current one.
 * While it grows, a key with a slot in the new table is there (with its value, or null once removed), any other one
 * is in the old table as it was; a reader looks in the new table first.
 */
final class KeyTable
{
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(Object[].class);
    /**
     * Longs per slot: hash (0: empty), the key's length (low half) and its value's (high half, for the store's size:
     * read here, the value replaced need not be loaded), the key's bytes 0-7 and 8-15 (see {@link Key}).
     */
    private static final int SLOT = 4;
    private static final int MIN_SLOTS = 1 << 12;
    /**
     * The fewest old slots moved per write or lookup while the table grows; more where the new table has room for
     * few inserts (see {@link #grown}), so that the move ends before the new table is due to grow in turn.
     */
    static final int MOVE_STEP = 16;

    /** The tables, replaced as one so that a reader sees a new table and its old one together. */
    private volatile Tables tables = new Tables(new Table(MIN_SLOTS), null);
    /** Keys with a value: written by the writer only. */
    private volatile int size;
    /** The next old slot to move, and how many to move a step (writer only). */
    private int moved;
    private int step = MOVE_STEP;
    /** The next table, being allocated on another thread, or null (writer only). */
    private CompletableFuture<Table> prepared;
    /** The length of the value the last put or remove replaced, 0 if none (writer only). */
    private int replacedLength;

    private record Tables(Table current, Table old)
    {
    }

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
        final Tables t = tables;
        final int s = find(t.current, key);
        if (s >= 0)
        {
            return VALUES.getAcquire(t.current.values, s);
        }
        final int o = t.old == null ? -1 : find(t.old, key);
        return o < 0 ? null : VALUES.getAcquire(t.old.values, o);
    }

    /** Whether {@code key} has a slot (with a value or removed); looks nothing else up. Any thread. */
    boolean has(final Key key)
    {
        final Tables t = tables;
        return find(t.current, key) >= 0 || t.old != null && find(t.old, key) >= 0;
    }

    /** Writer only: moves a growth in progress along a step (every write does too; reads through the group call it). */
    void moveAlong()
    {
        move(step);
    }

    /**
     * Stores {@code value} (not null), whose bytes are {@code length} long, under {@code key}; returns the value
     * replaced, null if there was none ({@link #replacedLength} tells its length). Writer only.
     */
    Object put(final Key key, final Object value, final int length)
    {
        move(step);
        Table t = tables.current;
        int s = find(t, key);
        if (s >= 0)
        {
            final Object old = t.values[s];
            final long lengths = t.meta[s * SLOT + 1];
            replacedLength = old == null ? 0 : (int)(lengths >>> 32);
            LONGS.setOpaque(t.meta, s * SLOT + 1, lengths & 0xFFFF_FFFFL | (long)length << 32); // readers: low half
            VALUES.setRelease(t.values, s, value);
            if (old == null)
            {
                size = size + 1; // the writer's own: no read-modify-write race
            }
            return old;
        }
        final Object before = oldValue(key);
        if (full(t))
        {
            t = grown(size + 1);
            s = find(t, key);
        }
        else if (prepared == null && tables.old == null && (t.used + 1) * 8 > (t.mask + 1) * 3L)
        {
            final int slots = slotsFor(size + (t.mask + 1) / 2 - t.used + 1); // the keys when the rest are new
            prepared = CompletableFuture.supplyAsync(() -> new Table(slots));
        }
        insert(t, -1 - s, key, value, length);
        if (before == null)
        {
            size = size + 1;
        }
        return before;
    }

    /** Removes {@code key}; returns its value, null if it had none ({@link #replacedLength}: its length). Writer. */
    Object remove(final Key key)
    {
        move(step);
        final Table t = tables.current;
        final int s = find(t, key);
        if (s >= 0)
        {
            final Object old = t.values[s];
            replacedLength = old == null ? 0 : valueLength(t, s);
            if (old != null)
            {
                VALUES.setRelease(t.values, s, null);
                size = size - 1;
            }
            return old;
        }
        final Object before = oldValue(key);
        if (before != null)
        {
            // only in the old table, which is not written: a slot with no value here hides it from then on
            final Table room = full(t) ? grown(size) : t;
            insert(room, -1 - find(room, key), key, null, 0);
            size = size - 1;
        }
        return before;
    }

    /** Removes every key. Writer only. */
    void clear()
    {
        tables = new Tables(new Table(MIN_SLOTS), null);
        moved = 0;
        prepared = null;
        size = 0;
    }

    int size()
    {
        return size;
    }

    /** The length of the value the last {@link #put} or {@link #remove} replaced, 0 if none. Writer only. */
    int replacedLength()
    {
        return replacedLength;
    }

    /**
     * Calls {@code action} with every key that has a value, and the value. A weakly consistent walk beside the writer:
     * while the table grows, a key moved between the walk of the new table and that of the old one is missed.
     */
    void forEach(final BiConsumer<Key, Object> action)
    {
        final Tables t = tables;
        walk(t.current, null, action);
        if (t.old != null)
        {
            walk(t.old, t.current, action);
        }
    }

    /**
     * The keys and their values as of now, copied, to be listed later by any thread; null while the table grows.
     * The writer, or a thread its last write happens before while it writes no more (a view change's cut for a
     * joiner). Two array copies, where listing the entries makes two objects a key (46 ms for a million keys).
     */
    Frozen freeze()
    {
        final Tables t = tables;
        return t.old != null ? null : new Frozen(t.current.keys.clone(), t.current.values.clone());
    }

    /** A copy of a table's keys and values ({@link #freeze}). */
    record Frozen(Key[] keys, Object[] values)
    {
        void forEach(final BiConsumer<Key, Object> action)
        {
            for (int s = 0; s < keys.length; s++)
            {
                if (keys[s] != null && values[s] != null)
                {
                    action.accept(keys[s], values[s]);
                }
            }
        }
    }

    /** Whether a growth is in progress (for tests). */
    boolean growing()
    {
        return tables.old != null;
    }

    /** The value of {@code key} in the old table while the table grows, or null; sets its length. Writer only. */
    private Object oldValue(final Key key)
    {
        final Table old = tables.old;
        final int o = old == null ? -1 : find(old, key);
        final Object value = o < 0 ? null : old.values[o];
        replacedLength = value == null ? 0 : valueLength(old, o);
        return value;
    }

    private static int valueLength(final Table t, final int s)
    {
        return (int)(t.meta[s * SLOT + 1] >>> 32);
    }

    /**
     * Writer only: moves the keys with a value of up to {@code slots} old slots into the current table (those
     * written since the growth began have a slot there already); publishes the end of the growth when done.
     */
    private void move(final int slots)
    {
        final Tables t = tables;
        if (t.old == null)
        {
            return;
        }
        final int end = (int)Math.min((long)moved + slots, t.old.mask + 1L);
        for (int s = moved; s < end; s++)
        {
            final Object value = t.old.values[s];
            if (value != null)
            {
                final int at = find(t.current, t.old.keys[s]);
                if (at < 0)
                {
                    insert(t.current, -1 - at, t.old.keys[s], value, valueLength(t.old, s));
                }
            }
        }
        moved = end;
        if (end > t.old.mask)
        {
            tables = new Tables(t.current, null);
        }
    }

    /**
     * Writer only: finishes a growth in progress, then publishes a table at most a quarter full with {@code keys} keys
     * (the one prepared if it has that size) beside the current one, which becomes the old table. Each step moves
     * enough old slots to be done within half of the inserts the new table has room for. Returns the new table.
     */
    private Table grown(final int keys)
    {
        move(Integer.MAX_VALUE);
        final int slots = slotsFor(keys);
        final Table ready = prepared == null ? null : prepared.join();
        prepared = null;
        final Table t = ready != null && ready.mask + 1 == slots ? ready : new Table(slots);
        final Table old = tables.current;
        final long room = Math.max(1, slots / 2 - keys);
        step = (int)Math.max(MOVE_STEP, Math.min(Integer.MAX_VALUE, (old.mask + 1L) * 2 / room + 1));
        tables = new Tables(t, old);
        moved = 0;
        return t;
    }

    /** Whether one more key would fill half of {@code t}: it grows first. */
    private static boolean full(final Table t)
    {
        return (t.used + 1) * 2 > t.mask + 1;
    }

    /** A table's slots for {@code keys} keys: a power of two, at least four times as many. */
    private static int slotsFor(final int keys)
    {
        int slots = MIN_SLOTS;
        while (slots < keys * 4L)
        {
            slots <<= 1;
        }
        return slots;
    }

    /** Calls {@code action} with the keys of {@code t} that have a value and no slot in {@code shadow}. */
    private static void walk(final Table t, final Table shadow, final BiConsumer<Key, Object> action)
    {
        for (int s = 0; s <= t.mask; s++)
        {
            if ((long)LONGS.getAcquire(t.meta, s * SLOT) != 0)
            {
                final Object value = VALUES.getAcquire(t.values, s);
                if (value != null && (shadow == null || find(shadow, t.keys[s]) < 0))
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
    private static void insert(final Table t, final int s, final Key key, final Object value, final int length)
    {
        final int at = s * SLOT;
        t.keys[s] = key;
        t.values[s] = value;
        t.meta[at + 1] = key.length() | (long)length << 32;
        t.meta[at + 2] = key.head0();
        t.meta[at + 3] = key.head1();
        LONGS.setRelease(t.meta, at, key.hash());
        t.used++;
    }
}

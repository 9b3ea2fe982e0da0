package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;

/**
 * A list, as {@link Keyspace} stores it ({@link ListCommands}): its items, and its expiry. A new expiry is a new value
 * over the same {@link Items}, as a hash's is ({@link Aggregate}).
 *
 * @param items    the items, index 0 at the head (Redis's left).
 * @param expireAt the expiry time in epoch milliseconds, 0 for none.
 */
record ListValue(Items items, long expireAt) implements WriterOwned<ListValue>
{
    /**
     * What an item takes besides its bytes (an estimate, as {@link Aggregate#FIELD_OVERHEAD}): its array's header and
     * its slot, with the ring's room to grow. Of the items alone, not of the ring's size: a list loaded from a
     * snapshot has a ring of another size than the one it was built in, and every member must estimate the same.
     */
    static final int ITEM_OVERHEAD = 32;
    /** What a list takes besides its items and its entry's share: the record, its items' object and ring's header. */
    static final int LIST_OVERHEAD = 128;
    /** The fewest slots a ring has; it shrinks by half once a quarter of them or fewer hold items. */
    private static final int MIN_SLOTS = 8;

    /** A new, empty list made at cut count {@code cut}: no cut holds it. */
    static ListValue empty(final long cut)
    {
        return new ListValue(new Items(cut, 8), 0);
    }

    @Override
    public ListValue withExpiry(final long at)
    {
        return new ListValue(items, at);
    }

    @Override
    public ListValue copy(final long cut)
    {
        return new ListValue(items.copy(cut), expireAt);
    }

    @Override
    public Items contents()
    {
        return items;
    }

    /**
     * The items in a ring. Written and read by the writing thread only (a list's reads go through the group even
     * with local reads: {@link Commands}), and by a {@link StoreCut} that walks them after writes went on: the writing
     * thread never changes items a cut holds, it copies items made before the store's last cut ({@link #cut}) before
     * their first change after it ({@link Keyspace#writableList}), as a hash's fields.
     */
    static final class Items extends WriterOwned.Contents
    {
        private byte[][] ring;
        private int head;
        private int size;
        /** What the items take, estimated: their bytes and {@value ListValue#ITEM_OVERHEAD} each. */
        private long bytes;

        Items(final long cut, final int capacity)
        {
            super(cut);
            this.ring = new byte[slots(capacity)][];
        }

        /** A copy of these items made at cut count {@code cut}. */
        Items copy(final long cut)
        {
            final Items copy = new Items(cut, size);
            for (int i = 0; i < size; i++)
            {
                copy.addLast(get(i));
            }
            return copy;
        }

        @Override
        int size()
        {
            return size;
        }

        @Override
        String type()
        {
            return "list";
        }

        /** The item at {@code index}, 0 to size - 1. */
        byte[] get(final int index)
        {
            return ring[(head + index) & (ring.length - 1)];
        }

        /** Replaces the item at {@code index}, 0 to size - 1. */
        void set(final int index, final byte[] item)
        {
            final int at = (head + index) & (ring.length - 1);
            bytes += item.length - ring[at].length;
            ring[at] = item;
        }

        void addFirst(final byte[] item)
        {
            grow();
            head = (head - 1) & (ring.length - 1);
            ring[head] = item;
            added(item);
        }

        void addLast(final byte[] item)
        {
            grow();
            ring[(head + size) & (ring.length - 1)] = item;
            added(item);
        }

        byte[] removeFirst()
        {
            final byte[] item = ring[head];
            ring[head] = null;
            head = (head + 1) & (ring.length - 1);
            return removed(item);
        }

        byte[] removeLast()
        {
            final int at = (head + size - 1) & (ring.length - 1);
            final byte[] item = ring[at];
            ring[at] = null;
            return removed(item);
        }

        /** The items from {@code from} to {@code to}, both included (0 <= from, to < size), in order. */
        List<byte[]> range(final int from, final int to)
        {
            final List<byte[]> items = new ArrayList<>(Math.max(0, to - from + 1));
            for (int i = from; i <= to; i++)
            {
                items.add(get(i));
            }
            return items;
        }

        /** Replaces every item with {@code items}, in order (LTRIM, LREM, LINSERT: a walk of the list in Redis too). */
        void replace(final List<byte[]> items)
        {
            ring = new byte[slots(items.size())][];
            head = 0;
            size = 0;
            bytes = 0;
            for (final byte[] item : items)
            {
                addLast(item);
            }
        }

        /** What the list takes, estimated, as the length the key table keeps for the store's size. */
        @Override
        int length()
        {
            return (int)Math.min(Integer.MAX_VALUE, LIST_OVERHEAD + bytes);
        }

        /** The slots for {@code items}: the least power of two that holds them, {@value #MIN_SLOTS} at least. */
        private static int slots(final int items)
        {
            return items <= MIN_SLOTS ? MIN_SLOTS : Integer.highestOneBit(items - 1) << 1;
        }

        private void grow()
        {
            if (size == ring.length)
            {
                resize(2 * ring.length);
            }
        }

        /** Moves the items to a ring of {@code slots} slots, the head at 0. */
        private void resize(final int slots)
        {
            final byte[][] moved = new byte[slots][];
            for (int i = 0; i < size; i++)
            {
                moved[i] = get(i);
            }
            ring = moved;
            head = 0;
        }

        private void added(final byte[] item)
        {
            size++;
            bytes += item.length + ITEM_OVERHEAD;
        }

        private byte[] removed(final byte[] item)
        {
            size--;
            bytes -= item.length + ITEM_OVERHEAD;
            if (ring.length > MIN_SLOTS && size <= ring.length / 4) // a drained queue gives its slots back
            {
                resize(ring.length / 2);
            }
            return item;
        }
    }
}

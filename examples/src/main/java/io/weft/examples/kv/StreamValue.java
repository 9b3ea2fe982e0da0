package io.weft.examples.kv;

import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A stream, as {@link Keyspace} stores it ({@link StreamCommands}): its entries by ID, the stream's own counters, and
 * its expiry. Unlike a list, a stream with no entries stays (XDEL or XTRIM of its last entry keeps the key, as in
 * Redis): its last ID still bounds the next XADD.
 *
 * @param entries  the entries and counters.
 * @param expireAt the expiry time in epoch milliseconds, 0 for none.
 */
record StreamValue(Entries entries, long expireAt) implements WriterOwned<StreamValue>
{
    /**
     * What an entry takes besides its fields' and values' bytes (an estimate, as {@link ListValue#ITEM_OVERHEAD}): its
     * tree node, its ID and its array; {@value #FIELD_OVERHEAD} more for each field and value's array header and slot.
     */
    static final int ENTRY_OVERHEAD = 96;
    static final int FIELD_OVERHEAD = 24;
    /** What a stream takes besides its entries and its entry's share: the record, the tree's head, the counters. */
    static final int STREAM_OVERHEAD = 160;

    /** A new, empty stream made at cut count {@code cut}: no cut holds it. */
    static StreamValue empty(final long cut)
    {
        return new StreamValue(new Entries(cut), 0);
    }

    @Override
    public StreamValue withExpiry(final long at)
    {
        return new StreamValue(entries, at);
    }

    @Override
    public StreamValue copy(final long cut)
    {
        return new StreamValue(entries.copy(cut), expireAt);
    }

    @Override
    public Entries contents()
    {
        return entries;
    }

    /**
     * The entries, each its fields and values in turn, with the counters Redis keeps: the last ID given (which stays
     * when that entry goes), the entries ever added and the greatest ID deleted. Written and read by the writing thread
     * only, and by a {@link StoreCut} that walks them after writes went on: the writing thread copies entries made
     * before the store's last cut before their first change after it ({@link Keyspace#writableStream}).
     */
    static final class Entries extends WriterOwned.Contents
    {
        private final TreeMap<StreamId, byte[][]> byId = new TreeMap<>();
        /** The consumer groups by name, in Redis's order (its radix tree's: bytes, unsigned). */
        final TreeMap<byte[], ConsumerGroup> groups = new TreeMap<>(Arrays::compareUnsigned);
        private StreamId lastId = StreamId.MIN;
        private StreamId maxDeletedId = StreamId.MIN;
        private long entriesAdded;
        /** What the entries take, estimated: their bytes and overheads ({@link #cost}). */
        private long bytes;

        Entries(final long cut)
        {
            super(cut);
        }

        /** A copy of these entries and counters made at cut count {@code cut}: the entries' arrays never change. */
        Entries copy(final long cut)
        {
            final Entries copy = new Entries(cut);
            copy.byId.putAll(byId);
            copy.lastId = lastId;
            copy.maxDeletedId = maxDeletedId;
            copy.entriesAdded = entriesAdded;
            copy.bytes = bytes;
            groups.forEach((name, group) -> copy.groups.put(name, group.copy()));
            return copy;
        }

        @Override
        int size()
        {
            return byId.size();
        }

        @Override
        int length()
        {
            long length = STREAM_OVERHEAD + bytes;
            for (final Map.Entry<byte[], ConsumerGroup> group : groups.entrySet())
            {
                length += group.getKey().length + group.getValue().bytes();
            }
            return (int)Math.min(Integer.MAX_VALUE, length);
        }

        @Override
        String type()
        {
            return "stream";
        }

        StreamId lastId()
        {
            return lastId;
        }

        StreamId maxDeletedId()
        {
            return maxDeletedId;
        }

        long entriesAdded()
        {
            return entriesAdded;
        }

        /** Sets the counters as they are (XSETID, a snapshot being loaded). */
        void counters(final StreamId last, final StreamId maxDeleted, final long added)
        {
            lastId = last;
            maxDeletedId = maxDeleted;
            entriesAdded = added;
        }

        /** Appends {@code fieldsAndValues} as entry {@code id}, past the last ID (the caller checked); counts it. */
        void add(final StreamId id, final byte[][] fieldsAndValues)
        {
            byId.put(id, fieldsAndValues);
            bytes += cost(fieldsAndValues);
            lastId = id;
            entriesAdded++;
        }

        /** Puts entry {@code id} back as a snapshot held it, counters aside. */
        void load(final StreamId id, final byte[][] fieldsAndValues)
        {
            byId.put(id, fieldsAndValues);
            bytes += cost(fieldsAndValues);
        }

        /** Deletes entry {@code id} (XDEL): whether it was there; the greatest ID deleted grows to it. */
        boolean delete(final StreamId id)
        {
            if (!remove(id))
            {
                return false;
            }
            if (id.compareTo(maxDeletedId) > 0)
            {
                maxDeletedId = id;
            }
            return true;
        }

        /** Removes the first entry (XTRIM, XADD's trim), which exists. */
        void removeFirst()
        {
            remove(byId.firstKey());
        }

        StreamId firstId()
        {
            return byId.isEmpty() ? null : byId.firstKey();
        }

        /** The last entry's ID (Redis's streamLastValidID), null if none: the last ID given may have gone since. */
        StreamId lastEntryId()
        {
            return byId.isEmpty() ? null : byId.lastKey();
        }

        /** The entries from {@code from} to {@code to}, both included, in order ({@code reverse}: from the end). */
        NavigableMap<StreamId, byte[][]> range(final StreamId from, final StreamId to, final boolean reverse)
        {
            if (from.compareTo(to) > 0)
            {
                return new TreeMap<>();
            }
            final NavigableMap<StreamId, byte[][]> range = byId.subMap(from, true, to, true);
            return reverse ? range.descendingMap() : range;
        }

        /** The entries in order: for a snapshot. */
        Iterable<Map.Entry<StreamId, byte[][]>> all()
        {
            return byId.entrySet();
        }

        /** Whether entry {@code id} is in the stream. */
        boolean has(final StreamId id)
        {
            return byId.containsKey(id);
        }

        /** Entry {@code id}'s fields and values, null if it is not in the stream. */
        byte[][] get(final StreamId id)
        {
            return byId.get(id);
        }

        /**
         * Redis's streamEstimateDistanceFromFirstEverEntry: the count of entries added up to {@code id}, where the
         * counters tell it; {@link ConsumerGroup#UNKNOWN} where deletions ahead make it unknown.
         */
        long entriesUpTo(final StreamId id)
        {
            if (entriesAdded == 0)
            {
                return 0;
            }
            final int toLast = id.compareTo(lastId);
            if (byId.isEmpty() && toLast <= 0 || toLast == 0)
            {
                return entriesAdded;
            }
            if (toLast > 0)
            {
                return ConsumerGroup.UNKNOWN;
            }
            final StreamId first = byId.firstKey();
            if (maxDeletedId.isMin() || maxDeletedId.compareTo(first) < 0)
            {
                final int toFirst = id.compareTo(first);
                if (toFirst <= 0)
                {
                    return entriesAdded - byId.size() + (toFirst == 0 ? 1 : 0);
                }
            }
            return ConsumerGroup.UNKNOWN;
        }

        /** Redis's streamRangeHasTombstones from {@code start} on: whether an entry after it was deleted. */
        boolean deletedFrom(final StreamId start)
        {
            return !byId.isEmpty() && !maxDeletedId.isMin() && byId.firstKey().compareTo(maxDeletedId) <= 0 &&
                start.compareTo(maxDeletedId) <= 0;
        }

        private boolean remove(final StreamId id)
        {
            final byte[][] removed = byId.remove(id);
            if (removed != null)
            {
                bytes -= cost(removed);
            }
            return removed != null;
        }

        private static long cost(final byte[][] fieldsAndValues)
        {
            long cost = ENTRY_OVERHEAD;
            for (final byte[] b : fieldsAndValues)
            {
                cost += FIELD_OVERHEAD + b.length;
            }
            return cost;
        }
    }
}

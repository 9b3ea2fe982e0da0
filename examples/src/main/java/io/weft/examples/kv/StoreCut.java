package io.weft.examples.kv;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The store as of one moment, written out later, on another thread if need be: a copy of the key table's arrays taken
 * while no write runs, which holds the state because a write replaces a string's value, never changes one in place, and
 * copies the fields of a hash or set that a cut holds before it changes them ({@link Aggregate.Fields}). Taking it
 * costs two references a slot; the bytes are written only by {@link #writeTo}, in pieces, so no copy of the whole state
 * is ever made (a state transfer's 1 MiB chunks, a log's entries: {@link KvLog}).
 *
 * <p>The format (big-endian, as {@code DataOutputStream} wrote it before): {@value #VERSIONED_MIXED} ({@value
 * #VERSIONED} for versions by the unmixed buckets of older batches: {@link KeyVersions}), the count of the buckets
 * that changed since position 0 and each one's index and version; then the count of entries and
 * each entry's key length, key, value length, value and expiry, in the table's order; a hash's value is {@value #HASH},
 * its count of fields, and each field's length, field, value length and value, a set's {@value #SET}, its count of
 * members and each member's length and member, in {@link Key}'s order, a list's {@value #LIST}, its count of items and
 * each item's length and item, from its head, a sorted set's {@value #ZSET}, its count of members and each member's
 * length and member, then 8 and its score (a double), in the set's order, a stream's {@value #STREAM}, its count of
 * entries, groups and one, the length and bytes of its counters (last ID, greatest ID deleted, entries added, groups),
 * then each entry's length and bytes (its ID, count of fields and values, and each one's length and bytes), in ID
 * order, then each consumer group's length and bytes ({@link StreamGroups#encode}):
 * {@link StoreLoader}, which reads it back, takes any order, and takes a state written before versions were kept (it
 * starts with the count of entries, never negative). {@link #sorted} writes the entries by key instead, so that equal
 * stores write equal bytes (tests compare them).
 * Entries are encoded straight into one buffer, written out as it fills: a log's compaction spent most of its time in a
 * {@code DataOutputStream}'s small writes and in sorting (a profile under a SET load, 2026-11-30).
 */
final class StoreCut
{
    private static final int BUFFER_BYTES = 1 << 16;
    /** The first int of a state that carries versions by the unmixed buckets: a count of entries is never negative. */
    static final int VERSIONED = -2;
    /** The first int of a state whose versions are by {@link KeyVersions#mix}. */
    static final int VERSIONED_MIXED = -4;
    /** A hash's value length: a string's is never negative. */
    static final int HASH = -1;
    /** A set's value length. */
    static final int SET = -3;
    /** A list's value length. */
    static final int LIST = -5;
    /** A sorted set's value length. */
    static final int ZSET = -7;
    /** A stream's value length. */
    static final int STREAM = -9;
    /**
     * A stream's counters: its last ID, greatest ID deleted (each two longs), count of entries added and count of
     * consumer groups.
     */
    static final int STREAM_COUNTERS = 5 * Long.BYTES + Integer.BYTES;

    /** Walks the cut's (key, stored value) pairs; the same pairs each time. */
    @FunctionalInterface
    interface Walk
    {
        void forEach(BiConsumer<Key, Object> action);
    }

    private final Walk walk;
    private final int count;
    private final long[] versions;
    private final boolean mixed;

    /**
     * @param walk     the cut's pairs, a stored value as {@link Keyspace} keeps it; {@code count} of them.
     * @param versions a copy of the store's {@link KeyVersions}, by {@link KeyVersions#mix} if {@code mixed}.
     */
    StoreCut(final Walk walk, final int count, final long[] versions, final boolean mixed)
    {
        this.walk = walk;
        this.count = count;
        this.versions = versions;
        this.mixed = mixed;
    }

    /** Walks the cut's (key, stored value) pairs, a stored value as {@link Keyspace} keeps it. */
    void forEach(final BiConsumer<Key, Object> action)
    {
        walk.forEach(action);
    }

    /** The same cut, written in key order. */
    StoreCut sorted()
    {
        final List<Map.Entry<Key, Object>> all = new ArrayList<>(count);
        walk.forEach((key, stored) -> all.add(new AbstractMap.SimpleImmutableEntry<>(key, stored)));
        all.sort(Map.Entry.comparingByKey());
        return of(all, versions, mixed);
    }

    /** A cut of listed pairs, walked in their order, and {@code versions}. */
    static StoreCut of(final List<Map.Entry<Key, Object>> pairs, final long[] versions, final boolean mixed)
    {
        return new StoreCut(action -> pairs.forEach(e -> action.accept(e.getKey(), e.getValue())), pairs.size(),
            versions, mixed);
    }

    /** Writes the state to {@code out}. Several threads may write one cut at once (one joiner each). */
    void writeTo(final OutputStream out) throws IOException
    {
        final Encoder encoder = new Encoder(out);
        encoder.buffer.putInt(mixed ? VERSIONED_MIXED : VERSIONED);
        int changed = 0;
        for (final long v : versions)
        {
            changed += v != 0 ? 1 : 0;
        }
        encoder.room(Integer.BYTES);
        encoder.buffer.putInt(changed);
        for (int b = 0; b < versions.length; b++)
        {
            if (versions[b] != 0)
            {
                encoder.room(Integer.BYTES + Long.BYTES);
                encoder.buffer.putInt(b).putLong(versions[b]);
            }
        }
        encoder.room(Integer.BYTES);
        encoder.buffer.putInt(count);
        try
        {
            walk.forEach(encoder);
        }
        catch (final Failed ex)
        {
            throw ex.io;
        }
        if (encoder.written != count) // the count leads the bytes: a reader would misread the rest
        {
            throw new IllegalStateException("a cut of " + count + " entries walked " + encoder.written);
        }
        encoder.flush();
    }

    /** Encodes entries into its buffer, written to {@code out} as it fills; a key or value larger goes as it is. */
    private static final class Encoder implements BiConsumer<Key, Object>
    {
        private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES); // big-endian
        private final OutputStream out;
        private int written;

        Encoder(final OutputStream out)
        {
            this.out = out;
        }

        @Override
        public void accept(final Key key, final Object stored)
        {
            try
            {
                putBytes(key.bytes());
                if (stored instanceof Aggregate a)
                {
                    putFields(a);
                }
                else if (stored instanceof ListValue l)
                {
                    putItems(l.items()); // a cut's items: they change no more
                }
                else if (stored instanceof ZSetValue z)
                {
                    putMembers(z.members()); // as the items
                }
                else if (stored instanceof StreamValue st)
                {
                    putEntries(st.entries()); // as the items
                }
                else
                {
                    putBytes(Stored.value(stored));
                }
                room(Long.BYTES);
                buffer.putLong(Stored.expireAt(stored));
            }
            catch (final IOException ex)
            {
                throw new Failed(ex);
            }
            written++;
        }

        /**
         * A hash's {@value #HASH} and count of fields, then each field and its value; a set's {@value #SET} and count
         * of members, then each member; in {@link Key}'s order.
         */
        private void putFields(final Aggregate a) throws IOException
        {
            final List<Map.Entry<Key, byte[]>> pairs = a.fields().sorted(); // a cut's fields: they change no more
            final boolean hash = !a.set();
            room(2 * Integer.BYTES);
            buffer.putInt(hash ? HASH : SET).putInt(pairs.size());
            for (final Map.Entry<Key, byte[]> pair : pairs)
            {
                putBytes(pair.getKey().bytes());
                if (hash)
                {
                    putBytes(pair.getValue());
                }
            }
        }

        /** A list's {@value #LIST} and count of items, then each item, from the head. */
        private void putItems(final ListValue.Items items) throws IOException
        {
            room(2 * Integer.BYTES);
            buffer.putInt(LIST).putInt(items.size());
            for (int i = 0; i < items.size(); i++)
            {
                putBytes(items.get(i));
            }
        }

        /** A sorted set's {@value #ZSET} and count of members, then each member and its score (8 bytes), in order. */
        private void putMembers(final ZSetValue.Members members) throws IOException
        {
            room(2 * Integer.BYTES);
            buffer.putInt(ZSET).putInt(members.size());
            for (int i = 0; i < members.size(); i++)
            {
                final ZSetValue.Node node = members.at(i);
                putBytes(node.member);
                room(Integer.BYTES + Double.BYTES);
                buffer.putInt(Double.BYTES).putDouble(node.score);
            }
        }

        /**
         * A stream's {@value #STREAM} and count of entries, groups and one, then its counters (last ID, greatest ID
         * deleted, entries added, groups), each entry (its ID, count of fields and values, each one) and each group,
         * each as length and bytes.
         */
        private void putEntries(final StreamValue.Entries entries) throws IOException
        {
            room(2 * Integer.BYTES + Integer.BYTES + STREAM_COUNTERS);
            buffer.putInt(STREAM).putInt(entries.size() + entries.groups.size() + 1).putInt(STREAM_COUNTERS);
            buffer.putLong(entries.lastId().ms()).putLong(entries.lastId().seq());
            buffer.putLong(entries.maxDeletedId().ms()).putLong(entries.maxDeletedId().seq());
            buffer.putLong(entries.entriesAdded()).putInt(entries.groups.size());
            for (final Map.Entry<StreamId, byte[][]> entry : entries.all())
            {
                long length = 2 * Long.BYTES + Integer.BYTES;
                for (final byte[] b : entry.getValue())
                {
                    length += Integer.BYTES + b.length;
                }
                if (length > Integer.MAX_VALUE)
                {
                    throw new IOException("a stream entry of " + length + " bytes");
                }
                room(Integer.BYTES + 2 * Long.BYTES + Integer.BYTES);
                buffer.putInt((int)length).putLong(entry.getKey().ms()).putLong(entry.getKey().seq())
                    .putInt(entry.getValue().length);
                for (final byte[] b : entry.getValue())
                {
                    putBytes(b);
                }
            }
            for (final Map.Entry<byte[], ConsumerGroup> group : entries.groups.entrySet())
            {
                putBytes(StreamGroups.encode(group.getKey(), group.getValue()));
            }
        }

        private void putBytes(final byte[] bytes) throws IOException
        {
            room(Integer.BYTES);
            buffer.putInt(bytes.length);
            put(bytes);
        }

        /** Copies {@code bytes} into the buffer, or writes them as they are when larger than it. */
        private void put(final byte[] bytes) throws IOException
        {
            if (bytes.length > buffer.capacity())
            {
                flush();
                out.write(bytes);
                return;
            }
            room(bytes.length);
            buffer.put(bytes);
        }

        private void room(final int bytes) throws IOException
        {
            if (bytes > buffer.remaining())
            {
                flush();
            }
        }

        void flush() throws IOException
        {
            out.write(buffer.array(), 0, buffer.position());
            buffer.clear();
        }
    }

    /** Carries an {@link IOException} out of the walk's callback. */
    private static final class Failed extends RuntimeException
    {
        private final IOException io;

        Failed(final IOException io)
        {
            super(io.getMessage(), io, false, false);
            this.io = io;
        }
    }
}

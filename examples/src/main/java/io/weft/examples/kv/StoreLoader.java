package io.weft.examples.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reads a {@link StoreCut}'s bytes into a store as they arrive, in pieces of any size (a log's entries, a state
 * transfer's reads): each whole entry goes into the store at once, and only an entry split between pieces waits, so
 * the state is never whole in memory twice.
 */
final class StoreLoader
{
    private final Keyspace map;
    private byte[] pending = new byte[1 << 16];
    private int length;
    /** Whether the state's first int is read: {@link StoreCut}'s versions mark, or an old state's count of entries. */
    private boolean headRead;
    /** Whether the versions are by {@link KeyVersions#mix} ({@link StoreCut#VERSIONED_MIXED}). */
    private boolean mixed;
    /** The versions the state carries, or null; how many buckets it announced (-1: not read yet), how many read. */
    private long[] versions;
    private int changed = -1;
    private int changedRead;
    private int count = -1;
    private int loaded;
    private long bytes;
    /**
     * A hash or set entry not yet whole: how many of its fields' and values' lengths were walked, and where the next is
     * from the entry's start, so that each piece walks on from there (walking from its start again, a hash of many
     * fields sent in small pieces took time quadratic in its size).
     */
    private long walked;
    private long walkedTo;

    /** Empties {@code map}: it receives the state that follows. */
    StoreLoader(final Keyspace map)
    {
        this.map = map;
        map.clear();
    }

    void accept(final byte[] piece, final int offset, final int n)
    {
        if (length + n > pending.length)
        {
            pending = Arrays.copyOf(pending, Math.max(length + n, 2 * pending.length));
        }
        System.arraycopy(piece, offset, pending, length, n);
        length += n;
        bytes += n;
        final ByteBuffer in = ByteBuffer.wrap(pending, 0, length);
        while (next(in))
        {
            // each step reads one whole item: the head, a version, an entry
        }
        length = in.remaining();
        if (in.position() > 0) // an entry still waiting stays where it is: no copy of it per piece
        {
            System.arraycopy(pending, in.position(), pending, 0, length);
        }
    }

    /** Reads the next item if it is whole and returns true; false at the end or when it is not whole yet. */
    private boolean next(final ByteBuffer in)
    {
        final boolean intDue = !headRead || (versions != null && changed < 0) ||
            (count < 0 && (versions == null || changedRead == changed));
        if (intDue)
        {
            if (in.remaining() < Integer.BYTES)
            {
                return false;
            }
            final int n = in.getInt();
            if (!headRead)
            {
                headRead = true;
                mixed = n == StoreCut.VERSIONED_MIXED;
                versions = mixed || n == StoreCut.VERSIONED ? new long[KeyVersions.BUCKETS] : null;
                check(versions != null || n >= 0, "a count of " + n + " entries");
                count = versions == null ? n : -1;
            }
            else if (versions != null && changed < 0)
            {
                check(n >= 0 && n <= KeyVersions.BUCKETS, "a count of " + n + " changed buckets");
                changed = n;
            }
            else
            {
                check(n >= 0, "a count of " + n + " entries");
                count = n;
            }
            return true;
        }
        if (versions != null && changedRead < changed)
        {
            if (in.remaining() < Integer.BYTES + Long.BYTES)
            {
                return false;
            }
            final int bucket = in.getInt();
            check(bucket >= 0 && bucket < KeyVersions.BUCKETS, "a version of bucket " + bucket);
            versions[bucket] = in.getLong();
            changedRead++;
            return true;
        }
        if (loaded < count && load(in))
        {
            loaded++;
            return true;
        }
        return false;
    }

    /** Reads one whole entry into the store and returns true, or returns false when it is not whole yet. */
    private boolean load(final ByteBuffer in)
    {
        final int at = in.position();
        if (in.remaining() < 4)
        {
            return false;
        }
        final int keyLength = length(in.getInt(at), "key");
        if (in.remaining() < 8L + keyLength)
        {
            return false;
        }
        final int valueAt = at + 8 + keyLength;
        final int valueLength = in.getInt(valueAt - 4);
        if (valueLength == StoreCut.HASH || valueLength == StoreCut.SET || valueLength == StoreCut.LIST ||
            valueLength == StoreCut.ZSET || valueLength == StoreCut.STREAM)
        {
            return loadFields(in, at, keyLength, valueLength);
        }
        length(valueLength, "value");
        if (in.remaining() < 16L + keyLength + valueLength)
        {
            return false;
        }
        final byte[] key = new byte[keyLength];
        final byte[] value = new byte[valueLength];
        in.get(at + 4, key).get(valueAt, value).position(valueAt + valueLength + 8);
        map.put(new Key(key), new KvStore.Entry(value, in.getLong(valueAt + valueLength)));
        return true;
    }

    /**
     * Reads one whole hash, set, list or sorted set entry ({@code kind}: {@link StoreCut#HASH}, ...) at {@code at},
     * whose key's length is read, into the store and returns true, or returns false when it is not whole yet
     * ({@link #walked}).
     */
    private boolean loadFields(final ByteBuffer in, final int at, final int keyLength, final int kind)
    {
        final boolean hash = kind == StoreCut.HASH || kind == StoreCut.ZSET; // a member's score is its value
        final int countAt = at + 8 + keyLength;
        if (in.limit() - countAt < Integer.BYTES)
        {
            return false;
        }
        final int fields = in.getInt(countAt);
        check(fields > 0, "a hash, set, list, sorted set or stream of " + fields + " fields");
        final long items = hash ? 2L * fields : fields; // a hash's fields and values, a set's members, a list's items
        long p = walked == 0 ? countAt + Integer.BYTES : at + walkedTo;
        for (; walked < items; walked++) // each one's length and bytes
        {
            if (in.limit() - p < Integer.BYTES)
            {
                walkedTo = p - at;
                return false;
            }
            p += Integer.BYTES + length(in.getInt((int)p), walked % 2 == 0 || !hash ? "field" : "value");
        }
        if (in.limit() - p < Long.BYTES)
        {
            walkedTo = p - at;
            return false;
        }
        walked = 0;
        final byte[] key = new byte[keyLength];
        in.get(at + 4, key).position(countAt + Integer.BYTES);
        if (kind == StoreCut.LIST)
        {
            final ListValue list = map.writableList(null);
            for (int i = 0; i < fields; i++)
            {
                list.items().addLast(bytes(in));
            }
            map.store(new Key(key), list.withExpiry(in.getLong()));
            return true;
        }
        if (kind == StoreCut.STREAM)
        {
            map.store(new Key(key), stream(in, fields - 1).withExpiry(in.getLong()));
            return true;
        }
        if (kind == StoreCut.ZSET)
        {
            final ZSetValue zset = map.writableZSet(null);
            for (int i = 0; i < fields; i++)
            {
                final byte[] member = bytes(in);
                check(in.getInt() == Double.BYTES, "a score that is not 8 bytes");
                zset.members().put(member, in.getDouble());
            }
            map.store(new Key(key), zset.withExpiry(in.getLong()));
            return true;
        }
        final Aggregate loaded = map.empty(!hash);
        for (int i = 0; i < fields; i++)
        {
            loaded.fields().put(new Key(bytes(in)), hash ? bytes(in) : Aggregate.MEMBER);
        }
        map.store(new Key(key), loaded.withExpiry(in.getLong()));
        return true;
    }

    /** A stream's counters and {@code items} entries and groups, whose lengths were checked (see {@link StoreCut}). */
    private StreamValue stream(final ByteBuffer in, final int items)
    {
        check(in.getInt() == StoreCut.STREAM_COUNTERS, "a stream's counters that are not 44 bytes");
        final StreamValue stream = map.writableStream(null);
        stream.entries().counters(new StreamId(in.getLong(), in.getLong()), new StreamId(in.getLong(), in.getLong()),
            in.getLong());
        final int groups = in.getInt();
        check(groups >= 0 && groups <= items, "a stream of " + groups + " groups in " + items + " items");
        final int entries = items - groups;
        for (int i = 0; i < entries; i++)
        {
            final int end = in.getInt() + in.position();
            final StreamId id = new StreamId(in.getLong(), in.getLong());
            final int count = in.getInt();
            check(count > 0 && count % 2 == 0, "a stream entry of " + count + " fields and values");
            final byte[][] fieldsAndValues = new byte[count][];
            for (int f = 0; f < count; f++)
            {
                final int length = end - in.position() >= Integer.BYTES ? in.getInt(in.position()) : -1;
                check(length >= 0 && length <= end - in.position() - Integer.BYTES,
                    "a stream entry's field of " + length + " bytes, past the entry or none");
                fieldsAndValues[f] = bytes(in);
            }
            check(in.position() == end, "a stream entry whose length is not its fields'");
            stream.entries().load(id, fieldsAndValues);
        }
        for (int i = 0; i < groups; i++)
        {
            StreamGroups.decode(ByteBuffer.wrap(bytes(in)), stream.entries().groups);
        }
        return stream;
    }

    /** The next length-prefixed bytes of {@code in}, whole. */
    private static byte[] bytes(final ByteBuffer in)
    {
        final byte[] b = new byte[in.getInt()];
        in.get(b);
        return b;
    }

    /** Whether the state carried versions: one written by this build, not by one before WATCH. */
    boolean versioned()
    {
        return versions != null;
    }

    private static int length(final int n, final String of)
    {
        check(n >= 0, "a " + of + " of " + n + " bytes");
        return n;
    }

    /**
     * The state ended: every entry it announced arrived whole. An empty state (no bytes) is an empty store.
     *
     * @throws IllegalStateException it ended early or ran on, naming how far it got.
     */
    void finish()
    {
        check(bytes == 0 || (count == loaded && length == 0), "it ended after " + bytes + " bytes with " + loaded +
            " of " + Math.max(count, 0) + " entries whole and " + length + " bytes more");
        map.versions.load(versions, mixed);
    }

    private static void check(final boolean holds, final String what)
    {
        if (!holds)
        {
            throw new IllegalStateException("a corrupt key-value state: " + what);
        }
    }
}

package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Redis hash as {@link Keyspace} stores it: its fields and the key's expiry, 0 for none. A new expiry is a new
 * {@code Hash} over the same {@link Fields}, as a string's is a new entry.
 *
 * @param fields   the field-value pairs.
 * @param expireAt the expiry time in epoch milliseconds, 0 for none.
 */
record Hash(Fields fields, long expireAt)
{
    /**
     * What a field takes besides its name's and value's bytes (an estimate, as {@link Keyspace#ENTRY_OVERHEAD}): the
     * map's node and table slot, the field's {@link Key} and the value's array header.
     */
    static final int FIELD_OVERHEAD = 112;
    /** What a hash takes besides its fields and its entry's share: this record, its fields' object, map and table. */
    static final int HASH_OVERHEAD = 192;

    /**
     * The field-value pairs of one hash. Written by the writing thread only, in place; read by any (local reads, a
     * cut's walk), hence a concurrent map. A {@link StoreCut} walks its entries after writes went on, so the writing
     * thread never changes fields that a cut holds: fields made before the store's last cut ({@link #cut}) are copied
     * before their first change after it ({@link Keyspace#writable}); a hash unchanged between cuts is never copied.
     */
    static final class Fields
    {
        final ConcurrentHashMap<Key, byte[]> map;
        /** The store's cut count when these fields were made: older ones are a cut's. The writing thread's only. */
        final long cut;
        /** What the fields take, estimated: their bytes and {@value Hash#FIELD_OVERHEAD} each. The writing thread's. */
        private long bytes;

        Fields(final long cut)
        {
            this(new ConcurrentHashMap<>(), cut, 0);
        }

        private Fields(final ConcurrentHashMap<Key, byte[]> map, final long cut, final long bytes)
        {
            this.map = map;
            this.cut = cut;
            this.bytes = bytes;
        }

        /** A copy of these fields, made at cut count {@code cut}. */
        Fields copy(final long cut)
        {
            return new Fields(new ConcurrentHashMap<>(map), cut, bytes);
        }

        /** Sets {@code field} to {@code value} and returns its value before, null if it had none. Writing thread. */
        byte[] put(final Key field, final byte[] value)
        {
            final byte[] old = map.put(field, value);
            bytes += value.length - (old == null ? -field.length() - FIELD_OVERHEAD : old.length);
            return old;
        }

        /** Removes {@code field} and returns whether it was there. Writing thread. */
        boolean remove(final Key field)
        {
            final byte[] old = map.remove(field);
            bytes -= old == null ? 0 : field.length() + FIELD_OVERHEAD + old.length;
            return old != null;
        }

        /** What the hash takes, estimated, as the length the key table keeps for the store's size. */
        int length()
        {
            return (int)Math.min(Integer.MAX_VALUE, HASH_OVERHEAD + bytes);
        }

        /** The pairs in {@link Key}'s order: the same at every member, whatever order they were written in. */
        List<Map.Entry<Key, byte[]>> sorted()
        {
            final List<Map.Entry<Key, byte[]>> pairs = new ArrayList<>(map.entrySet());
            pairs.sort(Map.Entry.comparingByKey());
            return pairs;
        }
    }

    boolean live(final long now)
    {
        return expireAt == 0 || expireAt > now;
    }
}

package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A value made of fields, as {@link Keyspace} stores it: a hash ({@link HashCommands}) or a set ({@link SetCommands}),
 * whose members are the keys of its fields, each with the value {@link #MEMBER}. A new expiry is a new value over the
 * same {@link Fields}, as a string's is a new entry.
 *
 * @param fields   the field-value pairs, or the members.
 * @param expireAt the expiry time in epoch milliseconds, 0 for none.
 * @param set      a set, else a hash.
 */
record Aggregate(Fields fields, long expireAt, boolean set)
{
    /**
     * What a field takes besides its name's and value's bytes (an estimate, as {@link Keyspace#ENTRY_OVERHEAD}): the
     * map's node and table slot, the field's {@link Key} and the value's array header.
     */
    static final int FIELD_OVERHEAD = 112;
    /** What a hash or set takes besides its fields and its entry's share: the record, its fields' object and map. */
    static final int AGGREGATE_OVERHEAD = 192;
    /** Every member's value in a set: the one array, so a member costs its name and the map's node. */
    static final byte[] MEMBER = new byte[0];

    /** A new, empty hash or set ({@code set}), made at cut count {@code cut}: no cut holds it. */
    static Aggregate empty(final boolean set, final long cut)
    {
        return new Aggregate(new Fields(cut), 0, set);
    }

    /** This value with the expiry {@code at} (0: none), over the same fields. */
    Aggregate withExpiry(final long at)
    {
        return new Aggregate(fields, at, set);
    }

    /** Redis's name of this type (TYPE, SCAN's TYPE). */
    String type()
    {
        return set ? "set" : "hash";
    }

    /**
     * The field-value pairs of one hash, or a set's members (each with an empty value). Written by the writing thread
     * only, in place; read by any (local reads, a cut's walk), hence a concurrent map: a hash map, or a sorted one for
     * a set from its first SPOP on, which takes its first members (a hash map would be sorted per SPOP). A {@link
     * StoreCut} walks its entries after writes went on, so the writing thread never changes fields that a cut holds:
     * fields made before the store's last cut ({@link #cut}) are copied before their first change after it ({@link
     * Keyspace#writable}); fields unchanged between cuts are never copied.
     */
    static final class Fields
    {
        final ConcurrentMap<Key, byte[]> map;
        /** The store's cut count when these fields were made: older ones are a cut's. The writing thread's only. */
        final long cut;
        /** What the fields take, estimated: their bytes and {@value Aggregate#FIELD_OVERHEAD} each. Writing thread. */
        private long bytes;

        /** Empty fields in a hash map. */
        Fields(final long cut)
        {
            this(new ConcurrentHashMap<>(), cut, 0);
        }

        private Fields(final ConcurrentMap<Key, byte[]> map, final long cut, final long bytes)
        {
            this.map = map;
            this.cut = cut;
            this.bytes = bytes;
        }

        /** A copy of these fields made at cut count {@code cut}: in a sorted map if {@code sort}, else as these are. */
        Fields copy(final long cut, final boolean sort)
        {
            final ConcurrentMap<Key, byte[]> copy = map instanceof ConcurrentSkipListMap<Key, byte[]> sorted ?
                sorted.clone() : sort ? new ConcurrentSkipListMap<>(map) : new ConcurrentHashMap<>(map);
            return new Fields(copy, cut, bytes);
        }

        /** Whether the fields are in a sorted map ({@link #first}). */
        boolean isSorted()
        {
            return map instanceof ConcurrentSkipListMap;
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

        /** What the hash or set takes, estimated, as the length the key table keeps for the store's size. */
        int length()
        {
            return (int)Math.min(Integer.MAX_VALUE, AGGREGATE_OVERHEAD + bytes);
        }

        /** The pairs in {@link Key}'s order: the same at every member, whatever order they were written in. */
        List<Map.Entry<Key, byte[]>> sorted()
        {
            final List<Map.Entry<Key, byte[]>> pairs = new ArrayList<>(map.entrySet());
            if (!(map instanceof ConcurrentSkipListMap))
            {
                pairs.sort(Map.Entry.comparingByKey());
            }
            return pairs;
        }

        /** Up to {@code count} of the first fields in {@link Key}'s order, of a set's sorted map. */
        List<Key> first(final long count)
        {
            final List<Key> first = new ArrayList<>();
            for (final Iterator<Key> i = ((ConcurrentSkipListMap<Key, byte[]>)map).keySet().iterator();
                first.size() < count && i.hasNext();)
            {
                first.add(i.next());
            }
            return first;
        }
    }
}

package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA] [STORE destination], and SORT_RO
 * without STORE: the items of a list, set or sorted set (a missing key is an empty list), by their numbers, their
 * bytes (ALPHA), or by the strings or hash fields a pattern names ({@code weight_*}, {@code obj_*->field}; a pattern
 * without {@code *} sorts nothing), with the values GET names in place of each, as Redis 7 does. STORE replaces the
 * destination with a list of the result (an empty result deletes it) and answers its length.
 *
 * <p>The order is the same at every member: sorting is stable, numbers that tie order by their items' bytes as in
 * Redis, and a set's members come in sorted by their bytes where no sort was asked (Redis does so for STORE and
 * scripts only; its order elsewhere is its hash table's). Items that tie under ALPHA BY keep the key's order (a
 * list's; Redis leaves that order to its hash table for sets and sorted sets).
 */
final class Sort
{
    private static final byte[] EMPTY = new byte[0];

    /** One item and what it sorts by: a number, or bytes (ALPHA BY; null where the pattern found nothing). */
    private record Item(byte[] value, double score, byte[] by)
    {
    }

    private Sort()
    {
    }

    /**
     * Runs SORT or SORT_RO over {@code map}: {@link KvStore} checked its arity. Each key a BY or GET pattern looks up
     * counts in {@code lookups} (null: none), as Redis counts them: BY's for every item, GET's for those in the LIMIT
     * window; none for {@code #}, a pattern without {@code *}, or a BY that sorts nothing.
     */
    static Reply apply(final Keyspace map, final List<byte[]> args, final long now, final KeyspaceLookups lookups)
    {
        final boolean readOnly = Commands.is(args.getFirst(), "SORT_RO");
        boolean desc = false;
        boolean alpha = false;
        boolean dontSort = false;
        long offset = 0;
        long count = -1;
        byte[] by = null;
        byte[] store = null;
        final List<byte[]> gets = new ArrayList<>();
        for (int i = 2; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            final int left = args.size() - i - 1;
            if (option.equals("ASC") || option.equals("DESC"))
            {
                desc = option.equals("DESC");
            }
            else if (option.equals("ALPHA"))
            {
                alpha = true;
            }
            else if (option.equals("LIMIT") && left >= 2)
            {
                offset = ValueEdits.integer(args.get(++i));
                count = ValueEdits.integer(args.get(++i));
            }
            else if (option.equals("STORE") && left >= 1 && !readOnly)
            {
                store = args.get(++i);
            }
            else if (option.equals("BY") && left >= 1)
            {
                by = args.get(++i);
                dontSort |= indexOf(by, (byte)'*') < 0; // a constant: nothing to sort by
            }
            else if (option.equals("GET") && left >= 1)
            {
                gets.add(args.get(++i));
            }
            else
            {
                throw new KvStore.SyntaxError("ERR syntax error");
            }
        }
        final Object stored = map.liveStored(args.get(1), now);
        if (stored != null && !(stored instanceof ListValue || stored instanceof ZSetValue ||
            stored instanceof Aggregate a && a.set()))
        {
            throw new KvStore.SyntaxError(Keyspace.WRONG_TYPE);
        }
        if (dontSort && stored instanceof Aggregate)
        {
            // a set's members sorted by their bytes: the same order at every member
            dontSort = false;
            alpha = true;
            by = null;
        }
        final List<byte[]> items = items(stored, dontSort, desc);
        final int size = items.size();
        // Redis's LIMIT: the offset and count clamped to the items, a count below 0 for all after the offset
        int start = (int)Math.min(Math.max(offset, 0), size);
        final long counted = Math.min(Math.max(count, -1), size);
        int end = counted < 0 ? size - 1 : (int)Math.min(start + counted - 1, size - 1);
        if (start >= size)
        {
            start = size - 1;
            end = size - 2;
        }
        final List<byte[]> sorted = dontSort ? items : sorted(map, items, by, alpha, desc, now, lookups);
        final List<byte[]> result = new ArrayList<>();
        for (int i = start; i <= end; i++)
        {
            if (gets.isEmpty())
            {
                result.add(sorted.get(i));
            }
            for (final byte[] get : gets)
            {
                result.add(lookUp(map, get, sorted.get(i), now, lookups));
            }
        }
        return store == null ? new Reply.Array(result.stream().map(v -> (Reply)new Reply.Bulk(v)).toList()) :
            stored(map, new Key(store), result);
    }

    /**
     * The index of SORT's destination in {@code command} (the last STORE's, as SORT takes it), -1 if none: where
     * COMMAND GETKEYS finds it, skipping the arguments of LIMIT, GET and BY.
     */
    static int destination(final List<byte[]> command)
    {
        int at = -1;
        for (int i = 2; i < command.size(); i++)
        {
            final String option = Commands.word(command.get(i));
            if (option.equals("STORE") && i + 1 < command.size())
            {
                at = i + 1;
            }
            i += option.equals("LIMIT") ? 2 : option.equals("GET") || option.equals("BY") ? 1 : 0;
        }
        return at;
    }

    /**
     * The items to sort: a list's in order, a sorted set's by score, a set's by bytes; where nothing is sorted
     * (dontSort, a list or sorted set), last first for DESC.
     */
    private static List<byte[]> items(final Object stored, final boolean dontSort, final boolean desc)
    {
        final List<byte[]> items = new ArrayList<>();
        switch (stored)
        {
            case ListValue l -> items.addAll(l.items().range(0, l.items().size() - 1));
            case ZSetValue z ->
            {
                for (int rank = 0; rank < z.members().size(); rank++)
                {
                    items.add(z.members().at(rank).member);
                }
            }
            case Aggregate a -> a.fields().sorted().forEach(e -> items.add(e.getKey().bytes()));
            case null, default ->
            {
            }
        }
        if (dontSort && desc)
        {
            return items.reversed();
        }
        return items;
    }

    /**
     * {@code items} sorted: by number (ties by bytes), or by bytes (ALPHA), of each item or of what {@code by} finds
     * for it (nothing: 0, or first under ALPHA). An item or value that is not a number fails the sort, as in Redis.
     */
    private static List<byte[]> sorted(final Keyspace map, final List<byte[]> items, final byte[] by,
        final boolean alpha, final boolean desc, final long now, final KeyspaceLookups lookups)
    {
        final List<Item> keyed = new ArrayList<>(items.size());
        boolean notNumbers = false;
        for (final byte[] item : items)
        {
            final byte[] value = by == null ? item : lookUp(map, by, item, now, lookups);
            double score = 0;
            if (!alpha && value != null)
            {
                score = number(value);
                notNumbers |= Double.isNaN(score);
            }
            keyed.add(new Item(item, score, value));
        }
        if (notNumbers)
        {
            throw new KvStore.SyntaxError("ERR One or more scores can't be converted into double");
        }
        final Comparator<Item> bytes = (x, y) -> Arrays.compareUnsigned(x.value, y.value);
        Comparator<Item> order = !alpha ? Comparator.comparingDouble(Item::score).thenComparing(bytes) :
            by == null ? bytes : (x, y) -> x.by == null || y.by == null ? Boolean.compare(x.by != null, y.by != null) :
            Arrays.compareUnsigned(x.by, y.by);
        if (desc)
        {
            order = order.reversed();
        }
        keyed.sort(order); // stable: ties keep the key's order
        return keyed.stream().map(Item::value).toList();
    }

    /**
     * What {@code pattern} names for {@code item}: the item itself for {@code #}; else the string at the key made by
     * putting the item in place of the first {@code *}, or with {@code ->field} after it that hash's field; null if
     * there is none, it is of another type, or the pattern has no {@code *}. The key's lookup counts in
     * {@code lookups} (null: none), a hit whatever its type.
     */
    private static byte[] lookUp(final Keyspace map, final byte[] pattern, final byte[] item, final long now,
        final KeyspaceLookups lookups)
    {
        if (pattern.length == 1 && pattern[0] == '#')
        {
            return item;
        }
        final int star = indexOf(pattern, (byte)'*');
        if (star < 0)
        {
            return null;
        }
        int arrow = -1;
        for (int i = star + 1; i + 1 < pattern.length; i++)
        {
            if (pattern[i] == '-' && pattern[i + 1] == '>')
            {
                arrow = i + 2 < pattern.length ? i : -1; // "->" at the end names no field
                break;
            }
        }
        final int keyEnd = arrow < 0 ? pattern.length : arrow;
        final byte[] key = new byte[keyEnd - 1 + item.length];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(item, 0, key, star, item.length);
        System.arraycopy(pattern, star + 1, key, star + item.length, keyEnd - star - 1);
        final Object stored = map.liveStored(key, now);
        if (lookups != null)
        {
            lookups.looked(stored != null);
        }
        if (arrow >= 0)
        {
            return stored instanceof Aggregate hash && !hash.set() ?
                hash.fields().map.get(new Key(Arrays.copyOfRange(pattern, arrow + 2, pattern.length))) : null;
        }
        return stored instanceof byte[] || stored instanceof KvStore.Entry ? Stored.value(stored) : null;
    }

    /**
     * An item or value as Redis's SORT reads a number (C's strtod, all of it): white space before it, decimal or
     * hexadecimal, inf; the empty string is 0. NaN for anything else, NaN, or a number out of a double's range.
     */
    static double number(final byte[] value)
    {
        return Strtod.afterSpace(value, true);
    }

    /** STORE: the result as {@code destination}'s list, replacing what it held; an empty result deletes it. */
    private static Reply stored(final Keyspace map, final Key destination, final List<byte[]> result)
    {
        final ListValue list = map.writableList(null);
        result.forEach(v -> list.items().addLast(v == null ? EMPTY : v));
        map.storeOrRemove(destination, list);
        return new Reply.Int(result.size());
    }

    private static int indexOf(final byte[] bytes, final byte b)
    {
        for (int i = 0; i < bytes.length; i++)
        {
            if (bytes[i] == b)
            {
                return i;
            }
        }
        return -1;
    }
}

package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store's map, cut into {@value #BUCKETS} hash maps by the top bits of each key's {@link Key#hash}: point
 * operations cost one hash-map lookup, and SCAN walks bucket by bucket with the bucket index as its cursor (a key
 * never changes bucket, so every key present for a whole scan is returned; the hash is the same at every member,
 * so a cursor is too).
 */
final class Keyspace
{
    static final int BUCKETS = 4096;

    @SuppressWarnings("unchecked")
    private final ConcurrentHashMap<Key, KvStore.Entry>[] buckets = new ConcurrentHashMap[BUCKETS];

    Keyspace()
    {
        for (int i = 0; i < BUCKETS; i++)
        {
            buckets[i] = new ConcurrentHashMap<>(4);
        }
    }

    static int bucket(final Key key)
    {
        return (int)(key.hash >>> 50) & (BUCKETS - 1);
    }

    KvStore.Entry get(final Key key)
    {
        return buckets[bucket(key)].get(key);
    }

    void put(final Key key, final KvStore.Entry entry)
    {
        buckets[bucket(key)].put(key, entry);
    }

    KvStore.Entry remove(final Key key)
    {
        return buckets[bucket(key)].remove(key);
    }

    void clear()
    {
        for (final Map<Key, KvStore.Entry> b : buckets)
        {
            b.clear();
        }
    }

    int size()
    {
        int n = 0;
        for (final Map<Key, KvStore.Entry> b : buckets)
        {
            n += b.size();
        }
        return n;
    }

    /** The entries of bucket {@code i}, sorted by key: the same order at every member. */
    List<Map.Entry<Key, KvStore.Entry>> sortedBucket(final int i)
    {
        final List<Map.Entry<Key, KvStore.Entry>> entries = new ArrayList<>(buckets[i].entrySet());
        entries.sort(Map.Entry.comparingByKey());
        return entries;
    }

    /** Every entry, in no particular order. */
    Iterable<KvStore.Entry> values()
    {
        final List<KvStore.Entry> all = new ArrayList<>();
        for (final Map<Key, KvStore.Entry> b : buckets)
        {
            all.addAll(b.values());
        }
        return all;
    }
}

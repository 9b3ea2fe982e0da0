package io.weft.examples.kv;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's map: one {@link KeyTable} of entries, written by one thread (the delivery thread) and read by any
 * (local reads, INFO). SCAN walks {@value #BUCKETS} buckets, chosen by 12 bits of a mix of each key's {@link Key#hash}
 * ({@link KeyVersions#mix}: the hash's own top bits put {@code user:0} to {@code user:999} in 35 buckets), with the
 * bucket index as its cursor (a key never changes bucket, so every key present for a whole scan is returned;
 * the hash is the same at every member, so a cursor is too).
 * <p>
 * The buckets' key sets are built at the first SCAN and kept up to date from then on, by the writing thread only:
 * a store that is never scanned holds no second object per key. That is measured, not tidiness: with 100,000 keys,
 * {@code ./weft bench kv --systems weft-kv} in interleaved single runs gave 362-418k SET/s with the map alone (11
 * runs) against 313-364k with the keys also in per-bucket sets, or in a map per bucket, the earlier layout (14 runs),
 * although an overwriting SET touches no set (2026-11-25).
 */
final class Keyspace
{
    static final int BUCKETS = 4096;
    static final String WRONG_TYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    /**
     * A value without expiry is stored as its bytes alone, any other as its {@link KvStore.Entry}: one object less per
     * key and per SET (interleaved runs as above: 374-403k SET/s against 355-401k).
     */
    private final KeyTable entries = new KeyTable();
    /**
     * What the entries take, estimated: each key's and value's bytes and {@value #ENTRY_OVERHEAD} for the rest (the
     * table's slots, the key's object, the value's array header). The same at every member, which holds the same
     * entries. Written by the writing thread alone (a plain read of its own writes), read by others: release/acquire.
     */
    private final AtomicLong bytes = new AtomicLong();
    /**
     * Entries stored with an expiry, past or not: while there are none, DBSIZE and INFO's key counts are the table's
     * size instead of a walk over every entry. Written by the writing thread alone, read by others: release/acquire.
     */
    private final AtomicLong expiring = new AtomicLong();
    /** SCAN's index: null until the first SCAN; the writing thread's only. */
    private List<Set<Key>> buckets;
    /**
     * A pair (expiry, key) for every entry with an expiry, at its expiry or before it (see {@link #removeExpired}),
     * and stale ones. Built again from the table once pairs outnumber the entries with an expiry four to one. The
     * writing thread's only.
     */
    private final ExpiryHeap expiries = new ExpiryHeap();
    /** The version of each bucket's last change: what WATCH compares. */
    final KeyVersions versions = new KeyVersions();
    /**
     * Keys {@link #store} stored a list at since the last look (a list is stored with items only: a push, LMOVE,
     * RENAME, COPY, a transaction's), recorded while a client waits on a list ({@link BlockedClients}): the writing
     * thread's only, as the switch.
     */
    private final Set<Key> readyLists = new LinkedHashSet<>(); // in the order stored: waiters are woken so
    private boolean recordReadyLists;
    /**
     * Cuts taken ({@link #cut}): the fields of a hash or set made before the last one belong to a cut and are copied
     * before a change ({@link #writable}). Written while no write runs, on any thread; read by the writing thread.
     */
    private volatile long cuts;

    /**
     * Bytes an entry takes besides its key's and value's (an estimate, see {@link #bytes}): its share of the table's
     * slots (2 to 4 slots of 40 bytes a key, 6 while the table grows), the key's object and the value's array header,
     * an expiry's object and pair. Measured (a throwaway probe, 0.3 to 1.5 million keys of 13 bytes with 3-byte values,
     * heap after a full collection): 192-254 bytes a key, 251-334 with an expiry. Until 2026-12-01 it was 64: a store
     * of small values filled the heap before its limit of half the heap refused a write, and every member stopped with
     * {@code OutOfMemoryError} (docs/kv.md, Memory limit).
     */
    static final int ENTRY_OVERHEAD = 256;
    /**
     * {@link #expiries} is built again once it holds more than this many pairs per entry with an expiry, and {@link
     * #STALE_SLACK} more: a build walks the table, so at most once per three pairs added an entry with an expiry.
     */
    private static final int STALE_FACTOR = 4;
    private static final int STALE_SLACK = 1024;

    static int bucket(final Key key)
    {
        return KeyVersions.mix(key) >>> 4;
    }

    /** {@code key}'s string entry, live or not, or null; Redis's WRONGTYPE error if it holds another type. */
    KvStore.Entry get(final Key key)
    {
        return Stored.entry(entries.get(key));
    }

    /** {@code key}'s string entry if it is live at {@code now}, else null; WRONGTYPE if it holds another type. */
    KvStore.Entry live(final byte[] key, final long now)
    {
        final KvStore.Entry e = get(new Key(key));
        return e != null && e.live(now) ? e : null;
    }

    /** {@code key}'s value of any type as this map keeps it, live or not, or null. */
    Object stored(final Key key)
    {
        return entries.get(key);
    }

    /** {@code key}'s value of any type as this map keeps it if it is live at {@code now}, else null. */
    Object liveStored(final byte[] key, final long now)
    {
        return liveStored(new Key(key), now);
    }

    /** {@link #liveStored(byte[], long)} of a key made already. */
    Object liveStored(final Key key, final long now)
    {
        final Object stored = entries.get(key);
        return stored != null && Stored.live(stored, now) ? stored : null;
    }

    /**
     * {@code key}'s set ({@code set}) or hash if it is live at {@code now}, else null; Redis's WRONGTYPE error if it
     * holds another type.
     */
    Aggregate aggregate(final Key key, final long now, final boolean set)
    {
        final Object stored = liveStored(key, now);
        if (stored == null || stored instanceof Aggregate a && a.set() == set)
        {
            return (Aggregate)stored;
        }
        throw new KvStore.SyntaxError(WRONG_TYPE);
    }

    /** The fields of {@code key}'s set ({@code set}) or hash, empty if none; WRONGTYPE as {@link #aggregate}. */
    Map<Key, byte[]> fields(final Key key, final long now, final boolean set)
    {
        final Aggregate a = aggregate(key, now, set);
        return a == null ? Map.of() : a.fields().map;
    }

    /**
     * The writing thread: {@code key}'s set ({@code set}) or hash to change (its live one, {@link #writable}), or a new
     * empty one. The caller stores it once changed ({@link #store}).
     */
    Aggregate forWrite(final Key key, final long now, final boolean set)
    {
        final Aggregate a = aggregate(key, now, set);
        return a == null ? empty(set) : writable(a);
    }

    /** The writing thread: whether {@link #store} records the lists it stores, while clients wait on some. */
    void recordReadyLists(final boolean record)
    {
        recordReadyLists = record;
    }

    /** The writing thread: the lists {@link #store} recorded, for {@link BlockedClients#woken} to clear. */
    Set<Key> readyLists()
    {
        return readyLists;
    }

    /** {@code key}'s list if it is live at {@code now}, else null; Redis's WRONGTYPE error if it holds another type. */
    ListValue list(final Key key, final long now)
    {
        return owned(key, now, ListValue.class);
    }

    /**
     * The writing thread: whether the write being applied reads numbers as strtod does ({@link Strtod}) and sums
     * INCRBYFLOAT's in a long double ({@link LongDouble}), as this build does, not as an older log's batch's build did.
     */
    boolean redisNumbers()
    {
        return versions.wire() >= Strtod.SINCE;
    }

    /** {@code key}'s sorted set if it is live at {@code now}, else null; WRONGTYPE if it holds another type. */
    ZSetValue zset(final Key key, final long now)
    {
        return owned(key, now, ZSetValue.class);
    }

    /** {@code key}'s stream if it is live at {@code now}, else null; WRONGTYPE if it holds another type. */
    StreamValue stream(final Key key, final long now)
    {
        return owned(key, now, StreamValue.class);
    }

    /**
     * The index in {@code args} of the first key from {@code from} to before {@code to} that holds a live {@code
     * type} at {@code now}, or -1 if none does; WRONGTYPE at a key of another type before it (BLPOP, BZPOPMIN, ZMPOP).
     */
    <T extends WriterOwned<T>> int firstLive(final List<byte[]> args, final int from, final int to,
        final Class<T> type, final long now)
    {
        for (int i = from; i < to; i++)
        {
            if (owned(new Key(args.get(i)), now, type) != null)
            {
                return i;
            }
        }
        return -1;
    }

    private <T extends WriterOwned<T>> T owned(final Key key, final long now, final Class<T> type)
    {
        final Object stored = liveStored(key, now);
        if (stored == null || type.isInstance(stored))
        {
            return type.cast(stored);
        }
        throw new KvStore.SyntaxError(WRONG_TYPE);
    }

    /**
     * The writing thread: {@code l}, or a copy whose items the writing thread may change where a cut holds its items
     * (see {@link WriterOwned}); a new empty list for null. The caller stores it once changed ({@link #storeOrRemove}).
     */
    ListValue writableList(final ListValue l)
    {
        final long cut = cuts;
        return l == null ? ListValue.empty(cut) : writable(l, cut);
    }

    /** The writing thread: {@link #writableList}'s counterpart for a sorted set. */
    ZSetValue writableZSet(final ZSetValue z)
    {
        final long cut = cuts;
        return z == null ? ZSetValue.empty(cut) : writable(z, cut);
    }

    /** The writing thread: {@link #writableList}'s counterpart for a stream. */
    StreamValue writableStream(final StreamValue s)
    {
        final long cut = cuts;
        return s == null ? StreamValue.empty(cut) : writable(s, cut);
    }

    private static <T extends WriterOwned<T>> T writable(final T value, final long cut)
    {
        return value.cut() == cut ? value : value.copy(cut);
    }

    /** The writing thread: stores {@code value} for {@code key}, changed, or removes the key if it holds nothing. */
    void storeOrRemove(final Key key, final WriterOwned<?> value)
    {
        if (value.size() == 0)
        {
            remove(key);
        }
        else
        {
            store(key, value);
        }
    }

    /** A new, empty set ({@code set}) or hash, which no cut holds. */
    Aggregate empty(final boolean set)
    {
        return Aggregate.empty(set, cuts);
    }

    /**
     * The writing thread: {@code a}, or a copy whose fields the writing thread may change where a cut holds its
     * fields (see {@link Aggregate.Fields}). The caller stores what it changed ({@link #store}).
     */
    Aggregate writable(final Aggregate a)
    {
        return writable(a, false);
    }

    /**
     * The writing thread: a value to store under another key (COPY) that changes apart from {@code stored}: a hash's,
     * set's, list's or sorted set's fields, items or members copied, a string as it is (a write replaces a string,
     * never changes it).
     */
    Object copyOf(final Object stored)
    {
        return stored instanceof Aggregate a ? new Aggregate(a.fields().copy(cuts, false), a.expireAt(), a.set()) :
            stored instanceof WriterOwned<?> w ? w.copy(cuts) : stored;
    }

    /** What {@code key} and {@code stored}, its value as this map keeps it, take in the store's estimate. */
    static long usage(final Key key, final Object stored)
    {
        return key.length() + ENTRY_OVERHEAD + Stored.length(stored);
    }

    /** {@link #writable}, copied into a sorted map too if {@code sort} and its fields are not in one. */
    private Aggregate writable(final Aggregate a, final boolean sort)
    {
        final long cut = cuts;
        return a.fields().cut == cut && (!sort || a.fields().isSorted()) ? a :
            new Aggregate(a.fields().copy(cut, sort), a.expireAt(), a.set());
    }

    /**
     * The writing thread: {@link #writable}, with its fields in a sorted map (a set's SPOP: {@link
     * Aggregate.Fields#first}), stored as it is if it had to be copied.
     */
    Aggregate sorted(final Key key, final Aggregate a)
    {
        final Aggregate sorted = writable(a, true);
        if (sorted != a)
        {
            store(key, sorted);
        }
        return sorted;
    }

    /**
     * The writing thread: removes {@code fields} from {@code key}'s set ({@code set}) or hash, and the key with its
     * last field (as Redis does), and returns how many it held.
     */
    int removeFields(final Key key, final List<Key> fields, final long now, final boolean set)
    {
        final Aggregate live = aggregate(key, now, set);
        if (live == null)
        {
            return 0;
        }
        final Aggregate a = writable(live);
        int removed = 0;
        for (final Key field : fields)
        {
            removed += a.fields().remove(field) ? 1 : 0;
        }
        if (a.fields().map.isEmpty())
        {
            remove(key);
        }
        else if (removed > 0)
        {
            store(key, a);
        }
        return removed;
    }

    /** Looks {@code key} up and nothing more: its value is not loaded (see {@link KvStore#touch}). */
    void touchKey(final Key key)
    {
        entries.has(key);
    }

    /** The writing thread: moves a growth of the table along a step (see {@link KeyTable}). */
    void moveAlong()
    {
        entries.moveAlong();
    }

    void put(final Key key, final KvStore.Entry entry)
    {
        store(key, Stored.of(entry));
    }

    /** Stores {@code value} without expiry. */
    void put(final Key key, final byte[] value)
    {
        store(key, value);
    }

    /**
     * Stores {@code stored}, a value as this map keeps it, for {@code key}: also a hash whose fields changed in place,
     * so that its size and version follow.
     */
    void store(final Key key, final Object stored)
    {
        final int length = Stored.length(stored);
        final Object old = entries.put(key, stored, length); // the length replaced comes from the slot: old unread
        versions.stamp(key);
        if (recordReadyLists && stored instanceof WriterOwned<?>)
        {
            readyLists.add(key); // a client may wait on it: a list or a sorted set
        }
        addBytes(old == null ? key.length() + ENTRY_OVERHEAD + length : length - entries.replacedLength());
        // old is read only while some entry has an expiry: where none has, an overwrite loads no replaced value
        final long expiringBefore = expiring.getPlain();
        final long oldAt = expiringBefore != 0 && old != null ? Stored.expireAt(old) : 0;
        final long at = Stored.expireAt(stored);
        if (oldAt != at)
        {
            final long expiringNow = expiringBefore + (at != 0 ? 1 : 0) - (oldAt != 0 ? 1 : 0);
            expiring.setRelease(expiringNow);
            // a later expiry than the entry had keeps its pair, which comes out early and goes back in at the
            // expiry then (removeExpired): renewing a key's expiry, the usual case, costs no heap work at all
            if (at != 0 && (oldAt == 0 || at < oldAt))
            {
                expiries.add(at, key);
                if (expiries.size() > STALE_FACTOR * expiringNow + STALE_SLACK)
                {
                    rebuildExpiries();
                }
            }
        }
        if (old == null && buckets != null)
        {
            buckets.get(bucket(key)).add(key); // a new key: an overwrite leaves the index alone
        }
    }

    /** Removes {@code key}; returns its value of any type as this map kept it, null if none. */
    Object remove(final Key key)
    {
        final Object stored = entries.remove(key);
        if (stored == null)
        {
            return null;
        }
        addBytes(-(key.length() + ENTRY_OVERHEAD + entries.replacedLength()));
        versions.stamp(key);
        if (Stored.expireAt(stored) != 0)
        {
            expiring.setRelease(expiring.getPlain() - 1); // its pair in expiries is stale now
        }
        if (buckets != null)
        {
            buckets.get(bucket(key)).remove(key);
        }
        return stored;
    }

    void clear()
    {
        entries.clear();
        versions.stampAll();
        bytes.setRelease(0);
        expiring.setRelease(0);
        buckets = null;
        expiries.reset();
    }

    /**
     * The writing thread: removes up to {@code most} of the entries expired at {@code now}, in the order of their
     * (expiry, key), and returns how many it removed. An entry's pair comes out at its expiry or before it (its expiry
     * was renewed since), and an early one goes back in at the expiry: so removals follow that order whatever pairs a
     * member's history left, and a member loaded from a snapshot, which has one exact pair an entry, removes the same
     * entries at the same writes as the members that wrote them.
     */
    int removeExpired(final long now, final int most)
    {
        int removed = 0;
        while (removed < most && expiries.size() > 0 && expiries.firstAt() <= now)
        {
            final long at = expiries.firstAt();
            final Key key = expiries.firstKey();
            expiries.removeFirst();
            final Object stored = entries.get(key);
            final long expiry = stored == null ? 0 : Stored.expireAt(stored);
            if (expiry == at)
            {
                remove(key);
                removed++;
            }
            else if (expiry > at)
            {
                expiries.add(expiry, key); // an early pair goes back in at its entry's expiry, in order from there
            }
            // else stale (no expiry now, removed, or an earlier pair of its own is in): dropped, and not counted
        }
        return removed;
    }

    /** The writing thread: builds {@link #expiries} again from the entries, without stale pairs. */
    private void rebuildExpiries()
    {
        expiries.reset();
        entries.forEach((key, stored) ->
        {
            final long at = Stored.expireAt(stored);
            if (at != 0)
            {
                expiries.add(at, key);
            }
        });
    }

    /** The writing thread. */
    private void addBytes(final long delta)
    {
        bytes.setRelease(bytes.getPlain() + delta); // a plain store on x86: no fence per write
    }

    /** What the entries take, estimated (see {@link #bytes}); any thread. */
    long bytes()
    {
        return bytes.getAcquire();
    }

    int size()
    {
        return entries.size();
    }

    /** The entries of bucket {@code i}, sorted by key: the same order at every member. The writing thread only. */
    List<Map.Entry<Key, Object>> sortedBucket(final int i)
    {
        if (buckets == null)
        {
            final List<Set<Key>> index = new ArrayList<>(BUCKETS);
            for (int b = 0; b < BUCKETS; b++)
            {
                index.add(new HashSet<>());
            }
            entries.forEach((key, stored) -> index.get(bucket(key)).add(key));
            buckets = index;
        }
        final List<Map.Entry<Key, Object>> found = new ArrayList<>(buckets.get(i).size());
        for (final Key key : buckets.get(i))
        {
            found.add(new AbstractMap.SimpleImmutableEntry<>(key, entries.get(key)));
        }
        found.sort(Map.Entry.comparingByKey());
        return found;
    }

    /**
     * Every entry, sorted by key (so bucket by bucket): the same order at every member. A weakly consistent view when
     * the writing thread runs meanwhile.
     */
    List<Map.Entry<Key, Object>> sorted()
    {
        final List<Map.Entry<Key, Object>> all = new ArrayList<>(entries.size());
        entries.forEach((key, stored) -> all.add(new AbstractMap.SimpleImmutableEntry<>(key, stored)));
        all.sort(Map.Entry.comparingByKey());
        return all;
    }

    /**
     * Every entry as of now, walked later by any thread: a copy of the table's arrays, or while the table grows a
     * list of its entries. No write may run meanwhile (see {@link KeyTable#freeze}).
     */
    StoreCut cut()
    {
        cuts = cuts + 1; // no write runs: one thread at a time
        final KeyTable.Frozen frozen = entries.freeze();
        if (frozen == null)
        {
            final List<Map.Entry<Key, Object>> all = new ArrayList<>(entries.size());
            entries.forEach((key, stored) -> all.add(new AbstractMap.SimpleImmutableEntry<>(key, stored)));
            return StoreCut.of(all, versions.copy(), versions.mixed());
        }
        return new StoreCut(frozen::forEach, entries.size(), versions.copy(), versions.mixed());
    }

    /** Keys live at {@code now} (a weakly consistent count): the table's size while no entry has an expiry. */
    long live(final long now)
    {
        return expiring.getAcquire() == 0 ? entries.size() : count(now, false);
    }

    /** Keys live at {@code now} that have an expiry (a weakly consistent count). */
    long liveExpiring(final long now)
    {
        return expiring.getAcquire() == 0 ? 0 : count(now, true);
    }

    private long count(final long now, final boolean expiringOnly)
    {
        final long[] n = {0};
        entries.forEach((key, stored) ->
        {
            final long at = Stored.expireAt(stored);
            n[0] += (at == 0 ? !expiringOnly : at > now) ? 1 : 0;
        });
        return n[0];
    }
}

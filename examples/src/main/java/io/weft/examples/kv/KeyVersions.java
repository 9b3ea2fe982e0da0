package io.weft.examples.kv;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What WATCH compares: for each of {@value #BUCKETS} buckets of keys (by the key's hash), the write position of the
 * last change to a key in it. A transaction that watched a key at write position p is aborted by its EXEC if the key's
 * bucket changed after p. A change to the key itself is never missed; one to another key of its bucket (one in 65,536)
 * aborts it too, which a client handles as it handles a real conflict, by trying again.
 * <p>
 * Part of the replicated state, kept alike at every member: each stamps the group's write positions, in the group's
 * order, and a joiner's state and a log's snapshot carry them ({@link StoreCut}), so every member makes the same
 * decision for an EXEC and a replay makes the one the member made. A version per key instead would cost every key
 * 8 bytes and an object (see {@link Keyspace}'s stored values); this costs 512 KiB once.
 * <p>
 * Stamped by the writing thread; {@link #applied} is read by connection threads, which take it as their WATCH's
 * position.
 */
final class KeyVersions
{
    static final int BUCKETS = 1 << 16;

    private final long[] changed = new long[BUCKETS];
    /** The write position being applied (the writing thread's). */
    private long position;
    /**
     * The last write position applied whole. Released by the writing thread after the batch's changes, acquired by a
     * WATCH, which then reads the store: what it reads is at least as new as that position, so any change it did not
     * see has a later position and is caught by the comparison.
     */
    private final AtomicLong applied = new AtomicLong();

    /** Middle bits of the hash: FNV-1a's multiplications mix the low bits of a key into them. */
    static int bucket(final Key key)
    {
        return (int)(key.hash() >>> 24) & (BUCKETS - 1);
    }

    /** The writing thread: the changes from now on are those of write position {@code p}. */
    void writing(final long p)
    {
        position = p;
    }

    /** The writing thread: write position {@link #writing} is applied whole; WATCH may take it. */
    void written()
    {
        applied.setRelease(position);
    }

    /** The writing thread: {@code key} changes now. */
    void stamp(final Key key)
    {
        changed[bucket(key)] = position;
    }

    /** The writing thread: every key changes now (FLUSHALL). */
    void stampAll()
    {
        Arrays.fill(changed, position);
    }

    /** Any thread: the last write position applied whole. */
    long applied()
    {
        return applied.getAcquire();
    }

    /** The writing thread: whether {@code key}'s bucket changed after write position {@code p}. */
    boolean changedAfter(final Key key, final long p)
    {
        return changed[bucket(key)] > p;
    }

    /** A copy, for a cut of the store (taken while no write runs). */
    long[] copy()
    {
        return changed.clone();
    }

    /**
     * With no write running: takes a loaded state's versions; {@code null} for a state written before versions were
     * kept, whose log holds no watched transaction (WATCH was refused then).
     */
    void load(final long[] versions)
    {
        if (versions == null)
        {
            Arrays.fill(changed, 0);
        }
        else
        {
            System.arraycopy(versions, 0, changed, 0, BUCKETS);
        }
    }
}

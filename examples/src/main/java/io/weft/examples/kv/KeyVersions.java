package io.weft.examples.kv;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What WATCH compares: for each of {@value #BUCKETS} buckets of keys (by the key's hash), the version of the last
 * change to a key in it. A transaction that watched a key at version v is aborted by its EXEC if the key's bucket
 * changed after v. A change to the key itself is never missed; one to another key of its bucket aborts it too, which a
 * client handles as it handles a real conflict, by trying again (keys that differ in their last bytes share buckets
 * far more often than one in 65,536: {@link Key}'s hash is FNV-1a, whose bits here vary little with them).
 * <p>
 * A version is a write position and the number of the write in its batch: {@code position << 17 | write} (a batch of
 * at most {@code SubgroupConfig.MAX_PAYLOAD}, 1 MiB, holds at most 95,325 writes of 11 bytes or more, fewer than
 * 2^17; the removals of expired keys after them take the next number, the writes of an EXEC its own; 2^46 write
 * positions last 22 years at 100,000 batches a second). Every member stamps the same versions, in the group's order,
 * whether it applies its own batch or decodes another's; a joiner's state and a log's snapshot carry them ({@link
 * StoreCut}), so every member makes the same decision for an EXEC and a replay makes the one the member made. A
 * version per key instead would cost every key 8 bytes and an object (see {@link Keyspace}'s stored values); this
 * costs 512 KiB once.
 * <p>
 * Stamped by the writing thread; {@link #applied} is read by connection threads, which take it as their WATCH's
 * version. The origin of a batch publishes each of its writes before it completes the write's reply, so a client's
 * WATCH after its own write's reply sees that write's version: with the batch's version published only at its end,
 * 3% of an uncontended redis-py compare-and-set loop's EXECs failed and were tried again (15 of 515 and 14 of 514,
 * manual runs of 500 increments), none since (three runs of each).
 */
final class KeyVersions
{
    static final int BUCKETS = 1 << 16;
    private static final int WRITE_BITS = 17;

    private final long[] changed = new long[BUCKETS];
    /** The version of the change being applied (the writing thread's). */
    private long version;
    /**
     * The version up to which every change is applied. Released by the writing thread after the changes, acquired by
     * a WATCH, which then reads the store: what it reads is at least as new as that, so any change it did not see has
     * a later version and is caught by the comparison.
     */
    private final AtomicLong applied = new AtomicLong();

    /** Middle bits of the hash: FNV-1a's multiplications mix the low bits of a key into them. */
    static int bucket(final Key key)
    {
        return (int)(key.hash() >>> 24) & (BUCKETS - 1);
    }

    /** The writing thread: the changes from now on are those of the batch of write position {@code position}. */
    void writing(final long position)
    {
        version = position << WRITE_BITS;
    }

    /** With no write running: every change up to write position {@code position} is applied (a loaded state's). */
    void at(final long position)
    {
        writing(position);
        written();
    }

    /** The writing thread: the changes from now on are those of the batch's next write. */
    void next()
    {
        version++;
    }

    /** The writing thread: every change so far is applied; WATCH may take its version. */
    void publish()
    {
        applied.setRelease(version);
    }

    /** The writing thread: the batch is applied whole; WATCH may take any version of it. */
    void written()
    {
        applied.setRelease(version | (1 << WRITE_BITS) - 1);
    }

    /** The writing thread: {@code key} changes now. */
    void stamp(final Key key)
    {
        changed[bucket(key)] = version;
    }

    /** The writing thread: every key changes now (FLUSHALL). */
    void stampAll()
    {
        Arrays.fill(changed, version);
    }

    /** Any thread: the version up to which every change is applied. */
    long applied()
    {
        return applied.getAcquire();
    }

    /** The writing thread: whether {@code key}'s bucket changed after version {@code v}. */
    boolean changedAfter(final Key key, final long v)
    {
        return changed[bucket(key)] > v;
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

package io.weft.examples.kv;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What WATCH compares: for each of {@value #BUCKETS} buckets of keys (by the key's hash), the version of the last
 * change to a key in it. A transaction that watched a key at version v is aborted by its EXEC if the key's bucket
 * changed after v. A change to the key itself is never missed; one to another key of its bucket aborts it too, which a
 * client handles as it handles a real conflict, by trying again: one key in 65,536 shares a key's bucket.
 * <p>
 * A bucket is 16 bits of a 64-bit mix of {@link Key}'s hash ({@link #mix}). Builds before KvWire version 4 took
 * FNV-1a's middle bits unmixed ({@link #unmixed}), which vary little between keys that differ in their last bytes:
 * {@code user:0} to {@code user:999} fell in 64 buckets, so a change to any of about 15 other {@code user:N} aborted a
 * WATCH of one. The buckets decide EXECs, and a log replays the EXECs its build decided, so the function follows the
 * batches: a batch of an older version is applied with the unmixed one, and the group's first batch of this build
 * switches to the mix and stamps every bucket (a transaction watching across it aborts once). Every member meets that
 * batch at the same position, and a cut says which function its versions are by ({@link StoreCut}).
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

    /** The first KvWire version whose batches are applied with the mixed buckets. */
    static final byte MIXED_SINCE = 4;

    private final long[] changed = new long[BUCKETS];
    /** Whether the buckets are by {@link #mix}; else by {@link #unmixed} (the writing thread's). */
    private boolean mixed = true;
    /** No batch applied and no state loaded yet: the first batch's version chooses the function. */
    private boolean fresh = true;
    /** The version of the change being applied (the writing thread's). */
    private long version;
    /** The KvWire version of the batch being applied (the writing thread's): a log's older batch replays as built. */
    private byte wire = KvWire.VERSION;
    /**
     * The version up to which every change is applied. Released by the writing thread after the changes, acquired by
     * a WATCH, which then reads the store: what it reads is at least as new as that, so any change it did not see has
     * a later version and is caught by the comparison.
     */
    private final AtomicLong applied = new AtomicLong();

    /** The high bits of MurmurHash3's 64-bit finalizer of the hash: every bit of the key moves each of them. */
    static int mix(final Key key)
    {
        long h = key.hash();
        h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
        h = (h ^ (h >>> 33)) * 0xc4ceb93fe53a8763L;
        return (int)((h ^ (h >>> 33)) >>> 48);
    }

    /** The buckets of builds before KvWire version {@value #MIXED_SINCE}: the hash's middle bits. */
    static int unmixed(final Key key)
    {
        return (int)(key.hash() >>> 24) & (BUCKETS - 1);
    }

    private int bucket(final Key key)
    {
        return mixed ? mix(key) : unmixed(key);
    }

    /**
     * The writing thread: the changes from now on are those of the batch of write position {@code position}, of
     * KvWire version {@code wire}.
     *
     * @throws IllegalStateException a batch of an older build after one of this build: histories differ.
     */
    void writing(final long position, final byte wire)
    {
        version = position << WRITE_BITS;
        this.wire = wire;
        final boolean mixing = wire >= MIXED_SINCE;
        if (mixing != mixed)
        {
            if (fresh)
            {
                mixed = mixing; // a log of an older build replayed from its start: that build's buckets
            }
            else if (mixing)
            {
                mixed = true; // the group's first batch of this build: what was watched before is compared anew
                Arrays.fill(changed, version);
            }
            else
            {
                throw new IllegalStateException("a key-value batch of version " + wire + " at write position " +
                    position + " follows one of version " + MIXED_SINCE + " or later");
            }
        }
        fresh = false;
    }

    /** The writing thread: the KvWire version of the batch being applied or last applied (before any, this build's). */
    byte wire()
    {
        return wire;
    }

    /** With no write running: every change up to write position {@code position} is applied (a loaded state's). */
    void at(final long position)
    {
        version = position << WRITE_BITS;
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

    /** Whether the buckets are by {@link #mix} (a cut says so; taken while no write runs). */
    boolean mixed()
    {
        return mixed;
    }

    /**
     * With no write running: takes a loaded state's versions, by {@link #mix} if {@code mixed}; {@code null} for a
     * state written before versions were kept, whose log holds no watched transaction (WATCH was refused then).
     */
    void load(final long[] versions, final boolean mixed)
    {
        this.mixed = mixed;
        fresh = false;
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

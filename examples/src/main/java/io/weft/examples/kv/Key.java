package io.weft.examples.kv;

import java.util.Arrays;

/**
 * A key of the store: its bytes and a 64-bit hash. Keys sort by hash, then bytes: SCAN walks them in that order with
 * the hash as its cursor, so a cursor means the same at every member (the hash is FNV-1a, not the JVM's).
 */
final class Key implements Comparable<Key>
{
    final byte[] bytes;
    /** At least 1: cursor 0 means "from the start" and "done". */
    final long hash;

    Key(final byte[] bytes)
    {
        this.bytes = bytes;
        this.hash = hash(bytes);
    }

    /** The first key of a SCAN page that starts at {@code cursor}. */
    static Key from(final long cursor)
    {
        return new Key(cursor);
    }

    private Key(final long hash)
    {
        this.bytes = new byte[0];
        this.hash = hash;
    }

    static long hash(final byte[] bytes)
    {
        long h = 0xcbf29ce484222325L;
        for (final byte b : bytes)
        {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        return 1 + ((h ^ (h >>> 29)) >>> 2); // 1 .. 2^62
    }

    @Override
    public int compareTo(final Key other)
    {
        final int byHash = Long.compare(hash, other.hash);
        return byHash != 0 ? byHash : Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode()
    {
        return (int)(hash ^ (hash >>> 32));
    }
}

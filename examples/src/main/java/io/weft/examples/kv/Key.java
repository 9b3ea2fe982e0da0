package io.weft.examples.kv;

import java.util.Arrays;

/**
 * A key of the store: its bytes and a 62-bit hash (FNV-1a, not the JVM's, so that it is the same at every member:
 * SCAN cursors and snapshot order depend on it). Keys sort by hash, then bytes.
 */
final class Key implements Comparable<Key>
{
    final byte[] bytes;
    final long hash;

    Key(final byte[] bytes)
    {
        this.bytes = bytes;
        this.hash = hash(bytes);
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

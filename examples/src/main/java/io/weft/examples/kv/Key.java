package io.weft.examples.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A key of the store: a 62-bit hash (FNV-1a, not the JVM's, so that it is the same at every member: SCAN cursors and
 * snapshot order depend on it) and the key's bytes. Keys sort by hash, then bytes.
 * <p>
 * A key of at most {@value #INLINE} bytes is held in two longs inside this object and has no byte array: a map lookup
 * that finds it compares it without loading a second object. That is one dependent cache miss less per command and
 * per member on a store larger than the caches.
 */
final class Key implements Comparable<Key>
{
    static final int INLINE = 16;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final long hash;
    private final int length;
    /** The first 16 bytes, little-endian, zero beyond the key's end. */
    private final long head0;
    private final long head1;
    /** The whole key when it is longer than {@value #INLINE} bytes, else null. */
    private final byte[] longKey;

    /** The keys of {@code args} from index {@code from} on (a command's fields or members). */
    static List<Key> all(final List<byte[]> args, final int from)
    {
        final List<Key> keys = new ArrayList<>(args.size() - from);
        for (int i = from; i < args.size(); i++)
        {
            keys.add(new Key(args.get(i)));
        }
        return keys;
    }

    Key(final byte[] bytes)
    {
        this(bytes, 0, bytes.length);
    }

    /** The key {@code bytes[from, from + length)}: a key read in place from a delivered batch ({@link WriteBatch}). */
    Key(final byte[] bytes, final int from, final int length)
    {
        this.hash = hash(bytes, from, length);
        this.length = length;
        if (length >= INLINE)
        {
            this.head0 = (long)LONGS.get(bytes, from);
            this.head1 = (long)LONGS.get(bytes, from + 8);
        }
        else
        {
            this.head0 = head(bytes, from, Math.min(length, 8));
            this.head1 = length > 8 ? head(bytes, from + 8, length - 8) : 0;
        }
        this.longKey = length <= INLINE ? null : from == 0 && length == bytes.length ? bytes :
            Arrays.copyOfRange(bytes, from, from + length);
    }

    /** The {@code n <= 8} bytes from {@code from} on as a little-endian long, zero above them. */
    private static long head(final byte[] bytes, final int from, final int n)
    {
        long v = 0;
        for (int i = from + n - 1; i >= from; i--)
        {
            v = (v << 8) | (bytes[i] & 0xff);
        }
        return v;
    }

    private static long hash(final byte[] bytes, final int from, final int length)
    {
        long h = 0xcbf29ce484222325L;
        for (int i = from; i < from + length; i++)
        {
            h = (h ^ (bytes[i] & 0xff)) * 0x100000001b3L;
        }
        return 1 + ((h ^ (h >>> 29)) >>> 2); // 1 .. 2^62
    }

    long hash()
    {
        return hash;
    }

    /** The key's length and its first 16 bytes as two little-endian longs: what a {@link KeyTable} slot holds. */
    int length()
    {
        return length;
    }

    long head0()
    {
        return head0;
    }

    long head1()
    {
        return head1;
    }

    /**
     * Whether this key is the one a table slot holds, given the slot's length and first 16 bytes; the slot's key
     * object ({@code keys[slot]}) is read only for a key longer than 16 bytes.
     */
    boolean matches(final long slotLength, final long slotHead0, final long slotHead1, final Key[] keys, final int slot)
    {
        return (int)slotLength == length && slotHead0 == head0 && slotHead1 == head1 &&
            (longKey == null || Arrays.equals(keys[slot].longKey, longKey));
    }

    /** The key's bytes: a new array for a short key (SCAN, KEYS and snapshots only, not the point operations). */
    byte[] bytes()
    {
        if (longKey != null)
        {
            return longKey;
        }
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)((i < 8 ? head0 >>> (8 * i) : head1 >>> (8 * (i - 8))) & 0xff);
        }
        return bytes;
    }

    @Override
    public int compareTo(final Key other)
    {
        final int byHash = Long.compare(hash, other.hash);
        // equal keys compare without building their bytes: a set's sorted map compares each lookup's key so
        return byHash != 0 || equals(other) ? byHash : Arrays.compareUnsigned(bytes(), other.bytes());
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Key k && k.hash == hash && k.length == length && k.head0 == head0 && k.head1 == head1 &&
            (longKey == null || Arrays.equals(k.longKey, longKey));
    }

    @Override
    public int hashCode()
    {
        return (int)(hash ^ (hash >>> 32));
    }
}

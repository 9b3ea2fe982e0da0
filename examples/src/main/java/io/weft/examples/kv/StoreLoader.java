package io.weft.examples.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reads a {@link StoreCut}'s bytes into a store as they arrive, in pieces of any size (a log's entries, a state
 * transfer's reads): each whole entry goes into the store at once, and only an entry split between pieces waits, so
 * the state is never whole in memory twice.
 */
final class StoreLoader
{
    private final Keyspace map;
    private byte[] pending = new byte[1 << 16];
    private int length;
    private int count = -1;
    private int loaded;
    private long bytes;

    /** Empties {@code map}: it receives the state that follows. */
    StoreLoader(final Keyspace map)
    {
        this.map = map;
        map.clear();
    }

    void accept(final byte[] piece, final int offset, final int n)
    {
        if (length + n > pending.length)
        {
            pending = Arrays.copyOf(pending, Math.max(length + n, 2 * pending.length));
        }
        System.arraycopy(piece, offset, pending, length, n);
        length += n;
        bytes += n;
        final ByteBuffer in = ByteBuffer.wrap(pending, 0, length);
        if (count < 0 && in.remaining() >= 4)
        {
            count = in.getInt();
            check(count >= 0, "a count of " + count + " entries");
        }
        while (count >= 0 && loaded < count && load(in))
        {
            loaded++;
        }
        length = in.remaining();
        System.arraycopy(pending, in.position(), pending, 0, length);
    }

    /** Reads one whole entry into the store and returns true, or returns false when it is not whole yet. */
    private boolean load(final ByteBuffer in)
    {
        final int at = in.position();
        if (in.remaining() < 4)
        {
            return false;
        }
        final int keyLength = length(in.getInt(at), "key");
        if (in.remaining() < 8L + keyLength)
        {
            return false;
        }
        final int valueAt = at + 8 + keyLength;
        final int valueLength = length(in.getInt(valueAt - 4), "value");
        if (in.remaining() < 16L + keyLength + valueLength)
        {
            return false;
        }
        final byte[] key = new byte[keyLength];
        final byte[] value = new byte[valueLength];
        in.get(at + 4, key).get(valueAt, value).position(valueAt + valueLength + 8);
        map.put(new Key(key), new KvStore.Entry(value, in.getLong(valueAt + valueLength)));
        return true;
    }

    private static int length(final int n, final String of)
    {
        check(n >= 0, "a " + of + " of " + n + " bytes");
        return n;
    }

    /**
     * The state ended: every entry it announced arrived whole. An empty state (no bytes) is an empty store.
     *
     * @throws IllegalStateException it ended early or ran on, naming how far it got.
     */
    void finish()
    {
        check(bytes == 0 || (count == loaded && length == 0), "it ended after " + bytes + " bytes with " + loaded +
            " of " + Math.max(count, 0) + " entries whole and " + length + " bytes more");
    }

    private static void check(final boolean holds, final String what)
    {
        if (!holds)
        {
            throw new IllegalStateException("a corrupt key-value state: " + what);
        }
    }
}

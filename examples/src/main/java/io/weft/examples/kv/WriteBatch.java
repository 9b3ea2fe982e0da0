package io.weft.examples.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Applies the writes of an encoded batch ({@link KvWire}) that this member did not take from its own clients: other
 * members' batches, the log's at recovery, a catch-up's (delivery thread; one instance, reused batch after batch).
 * <p>
 * A plain SET ({@code SET key value}, no options: what clients send most) is read in place from the batch's bytes:
 * one key object, hashed once for the lookup and the store, and the value's array. Decoded into arguments first, as
 * every other write still is, a SET cost eight objects (the argument list, an array per argument, the key twice, the
 * command's name): about 270 bytes per SET at every member (jstat, 3 members, {@code redis-benchmark -P 16}), which
 * also pushed the map's entries out of the caches its lookups need.
 */
final class WriteBatch
{
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private final KvStore store;
    /** Per write of the batch: its first key (null if it has none). */
    private Key[] keys = new Key[256];
    /** Per write: its arguments, or null for a plain SET, read in place. */
    private Object[] args = new Object[256];
    /** Per plain SET: where its value starts (the length, then the bytes). */
    private int[] valueAt = new int[256];

    WriteBatch(final KvStore store)
    {
        this.store = store;
    }

    /**
     * Applies the writes of {@code batch[0, length)} at clock reading {@code now}; returns how many there were. The
     * keys are built first, then looked up in a loop of lookups alone ({@link KvStore#touch}), then the writes apply.
     */
    @SuppressWarnings("unchecked")
    int apply(final byte[] batch, final int length, final long now)
    {
        final int count = (int)INT.get(batch, KvWire.WRITES_OFFSET);
        if (keys.length < count)
        {
            keys = new Key[count];
            args = new Object[count];
            valueAt = new int[count];
        }
        int at = KvWire.HEADER;
        for (int i = 0; i < count; i++)
        {
            final int argc = (int)INT.get(batch, at);
            at += 4;
            if (argc == 3 && isSet(batch, at))
            {
                final int keyAt = at + 4 + 3;
                final int keyLength = (int)INT.get(batch, keyAt);
                keys[i] = new Key(batch, keyAt + 4, keyLength);
                valueAt[i] = keyAt + 4 + keyLength;
                at = valueAt[i] + 4 + (int)INT.get(batch, valueAt[i]);
            }
            else
            {
                final List<byte[]> decoded = new ArrayList<>(argc);
                for (int a = 0; a < argc; a++)
                {
                    final int n = (int)INT.get(batch, at);
                    decoded.add(Arrays.copyOfRange(batch, at + 4, at + 4 + n));
                    at += 4 + n;
                }
                args[i] = decoded;
                keys[i] = store.keyOf(decoded);
            }
        }
        if (at > length)
        {
            throw new IllegalStateException("a key-value batch of " + length + " bytes holds writes up to byte " + at);
        }
        for (int i = 0; i < count; i++)
        {
            if (args[i] == null)
            {
                store.touchKey(keys[i]);
            }
            else
            {
                store.touch(keys[i], (List<byte[]>)args[i]);
            }
        }
        for (int i = 0; i < count; i++)
        {
            store.versions().next(); // as the origin does (KvReplica): every member stamps the same versions
            if (args[i] == null)
            {
                final int v = valueAt[i];
                store.write(keys[i], Arrays.copyOfRange(batch, v + 4, v + 4 + (int)INT.get(batch, v)));
            }
            else
            {
                store.write((List<byte[]>)args[i], keys[i], now);
            }
            keys[i] = null;
            args[i] = null;
        }
        return count;
    }

    /** Whether the argument at {@code at} (its length, then its bytes) is the command name SET. */
    private static boolean isSet(final byte[] batch, final int at)
    {
        return (int)INT.get(batch, at) == 3 && Commands.isSet(batch, at + 4, 3);
    }
}

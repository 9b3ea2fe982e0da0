package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RdbFile}: a store's cut as an RDB file (redis-server loading one is {@code KvSaveTest}'s). */
@Timeout(10)
class RdbFileTest
{
    /**
     * Redis 7.0's magic and version, the keys live at the time given (one expired is left out), each as its type, its
     * name and its value as DUMP writes them, an expiry before its key, then the end mark and the CRC-64 of all
     * before it, little-endian.
     */
    @Test
    void aCutIsWrittenAsAnRdbFileOfItsLiveKeys() throws Exception
    {
        final KvStore store = new KvStore();
        final long now = 1_000_000;
        store.apply(StoreClient.args("SET", "a", "1"), now);
        store.apply(StoreClient.args("SET", "gone", "1", "PX", "10"), now);
        store.apply(StoreClient.args("SET", "e", "2", "PX", "5000"), now);
        store.apply(StoreClient.args("RPUSH", "l", "x", "y"), now);
        store.apply(StoreClient.args("ZADD", "z", "1.5", "m"), now);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(4, RdbFile.write(store.cut(), now + 20, out));
        final byte[] file = out.toByteArray();
        assertEquals("REDIS0010", new String(file, 0, 9, StandardCharsets.US_ASCII));
        assertEquals((byte)0xFF, file[file.length - 9]);
        final long crc = ByteBuffer.wrap(file, file.length - 8, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(Crc64.of(file, 0, file.length - 8), crc);
        for (final String key : new String[] {"a", "e", "l", "z"})
        {
            assertTrue(indexOf(file, entry(store, key, now + 20)) > 0, key + "'s entry");
        }
        final byte[] expiry = ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).put((byte)0xFC)
            .putLong(now + 5000).array();
        assertEquals(indexOf(file, entry(store, "e", now + 20)) - 9, indexOf(file, expiry), "e's expiry before it");
        assertEquals(-1, indexOf(file, "gone".getBytes(StandardCharsets.US_ASCII)), "the expired key is left out");
    }

    /** Key {@code key}'s entry as the file holds it: DUMP's type byte, the key as an RDB string, DUMP's value. */
    private static byte[] entry(final KvStore store, final String key, final long now)
    {
        final byte[] dump = ((Reply.Bulk)store.apply(StoreClient.args("DUMP", key), now)).bytes();
        final byte[] name = key.getBytes(StandardCharsets.US_ASCII);
        final ByteBuffer b = ByteBuffer.allocate(dump.length - 10 + 1 + name.length);
        b.put(dump[0]).put((byte)name.length).put(name).put(dump, 1, dump.length - 11); // the seal's 10 bytes off
        return b.array();
    }

    private static int indexOf(final byte[] in, final byte[] part)
    {
        for (int i = 0; i + part.length <= in.length; i++)
        {
            if (Arrays.equals(in, i, i + part.length, part, 0, part.length))
            {
                return i;
            }
        }
        return -1;
    }
}

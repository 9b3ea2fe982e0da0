package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link RdbImport}'s reading of a file (a redis-server's snapshot loaded through members is {@code KvSaveTest}'s). */
@Timeout(10)
class RdbImportTest
{
    private static final long NOW = 1_000_000;

    /** A store written by {@link RdbFile}, read back and RESTOREd key by key, is the same store to the byte. */
    @Test
    void aSavedStoreReadBackAndRestoredIsTheSameStore() throws Exception
    {
        final KvStore store = new KvStore();
        for (final String[] write : List.of(new String[] {"SET", "s", "v"}, new String[] {"SET", "123", "42"},
            new String[] {"SET", "e", "x", "PX", "5000"}, new String[] {"RPUSH", "l", "a", "b"},
            new String[] {"SADD", "set", "1", "two"}, new String[] {"HSET", "h", "f", "1"},
            new String[] {"ZADD", "z", "-1.5", "m", "2", "n"}, new String[] {"XADD", "st", "1-1", "f", "v"},
            new String[] {"XGROUP", "CREATE", "st", "g", "0"}))
        {
            store.apply(StoreClient.args(write), NOW);
        }
        final List<RdbImport.Entry> entries = RdbImport.parse(file(store));
        assertEquals(8, entries.size());
        final KvStore copy = new KvStore();
        for (final RdbImport.Entry e : entries)
        {
            final Reply reply = copy.apply(List.of("RESTORE".getBytes(StandardCharsets.US_ASCII), e.key(),
                Long.toString(e.expireAt()).getBytes(StandardCharsets.US_ASCII), e.payload(),
                "ABSTTL".getBytes(StandardCharsets.US_ASCII)), NOW);
            assertEquals(Reply.OK, reply, Commands.text(e.key()));
        }
        assertArrayEquals(store.snapshot(), copy.snapshot());
    }

    /** Not an RDB file, a damaged one, one cut short, or one with another database: refused, saying which. */
    @Test
    void aFileThatCannotLoadWholeIsRefusedSayingWhy() throws Exception
    {
        final KvStore store = new KvStore();
        store.apply(StoreClient.args("SET", "s", "v"), NOW);
        final byte[] file = file(store);
        assertEquals("not an RDB file: it does not start with REDIS and a version", refusal("hello".getBytes()));
        final byte[] damaged = file.clone();
        damaged[damaged.length / 2] ^= 1;
        assertEquals("the file's CRC-64 does not match its bytes: it is damaged", refusal(damaged));
        assertEquals("the file ends before its end mark and CRC-64: it is cut short",
            refusal(java.util.Arrays.copyOf(file, 12)));
        final byte[] newer = file.clone();
        newer[8] = (byte)'3'; // REDIS0013
        assertEquals("RDB version 13: this store reads versions 1 to 12 (Redis 7.4's)", refusal(newer));
    }

    private static String refusal(final byte[] file)
    {
        return assertThrows(IllegalArgumentException.class, () -> RdbImport.parse(file)).getMessage();
    }

    private static byte[] file(final KvStore store) throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        RdbFile.write(store.cut(), NOW, out);
        return out.toByteArray();
    }
}

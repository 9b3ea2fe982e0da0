package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.weft.examples.kv.StoreClient.args;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A batch applied in place ends in the same store as its writes decoded into arguments and applied one by one. */
@Timeout(30)
class WriteBatchTest
{
    private static final long NOW = 5_000_000;

    @Test
    void aBatchAppliedInPlaceLeavesTheStoreAsItsWritesAppliedOneByOne()
    {
        final List<List<byte[]>> first = new ArrayList<>();
        final String[] keys = {"", "k", "eight888", "nine99999", "sixteen-bytes-16", "seventeen-bytes-1",
            "a key longer than the sixteen bytes held inline"};
        for (final String k : keys)
        {
            first.add(args("SET", k, "v-" + k));
        }
        first.add(args("set", "lower", "1"));
        first.add(args("SeT", "mixed", ""));
        first.add(args("SET", "ttl", "x", "EX", "100"));
        first.add(args("SET", "ttl-cleared", "x", "PX", "5000"));
        first.add(args("INCR", "counter"));
        first.add(args("MSET", "m1", "a", "m2", "b"));
        first.add(args("SETS", "not-a-set", "x")); // three arguments, not SET: applied as its origin applied it
        final List<List<byte[]>> second = new ArrayList<>();
        second.add(args("SET", "ttl-cleared", "y")); // a plain SET drops the expiry
        second.add(args("SET", "k", "new", "NX")); // exists: unchanged
        second.add(args("SET", "absent", "n", "XX")); // absent: not set
        second.add(args("DEL", "eight888"));
        second.add(args("APPEND", "nine99999", "+"));
        for (int i = 0; i < 600; i++) // more writes than the arrays start with
        {
            second.add(args("SET", "bulk" + i % 450, "value" + i));
        }
        final KvStore inPlace = new KvStore();
        final KvStore decoded = new KvStore();
        final WriteBatch batch = new WriteBatch(inPlace);
        for (final List<List<byte[]>> writes : List.of(first, second))
        {
            final byte[] encoded = encode(writes);
            assertEquals(writes.size(), batch.apply(encoded, encoded.length, NOW));
            for (final List<byte[]> w : writes)
            {
                decoded.versions().next(); // as the origin does: both stamp the same versions (WATCH's)
                decoded.apply(w, NOW);
            }
        }
        assertArrayEquals(decoded.snapshot(), inPlace.snapshot());
        assertEquals(keys.length + 7 - 1 + 450, inPlace.size(NOW)); // lower to m2; not eight888
        assertEquals(1, inPlace.expiring(NOW)); // "ttl" only
    }

    private static byte[] encode(final List<List<byte[]>> writes)
    {
        final ByteBuffer out = ByteBuffer.allocate(1 << 16);
        KvWire.encodeBatch(out, 1, 7, NOW, writes);
        return Arrays.copyOf(out.array(), out.position());
    }
}

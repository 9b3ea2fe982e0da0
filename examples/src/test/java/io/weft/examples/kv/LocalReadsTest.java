package io.weft.examples.kv;

import static io.weft.examples.kv.StoreClient.args;
import static io.weft.examples.kv.StoreClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Local reads on a connection's thread while the delivery thread writes ({@link WriteSequence}): a read sees the store
 * between two writes, never one half applied, or gives up and goes through the group. Across processes:
 * KvStoreGroupTest.localReadsNeverSeeAWriteHalfApplied.
 */
@Timeout(60)
class LocalReadsTest
{
    private static final long NOW = 1_000_000;
    private final KvStore store = new KvStore();

    @Test
    void aReadDuringAWriteGoesThroughTheGroupAndOneAfterItReadsTheStore()
    {
        store.write(args("SET", "k", "v"), new Key(bytes("k")), NOW);
        store.sequence.begin(); // the delivery thread is in a write
        assertNull(store.readBetweenWrites(args("GET", "k"), NOW), "read during a write");
        assertEquals(1, store.sequence.ordered());
        store.sequence.end();
        assertEquals("v", text(store.readBetweenWrites(args("GET", "k"), NOW)));
        assertEquals(1, store.sequence.ordered());
    }

    @Test
    void anMgetNeverSeesAWriteHalfAppliedNorTwoWritesApart() throws Exception
    {
        final int writes = 200_000;
        final AtomicBoolean writing = new AtomicBoolean(true);
        final Thread writer = Thread.ofPlatform().name("delivery").start(() ->
        {
            final Key c = new Key(bytes("c"));
            final Key d = new Key(bytes("d"));
            for (int i = 1; i <= writes; i++)
            {
                final List<byte[]> mset = args("MSET", "a", Integer.toString(i), "b", Integer.toString(i));
                store.write(mset, store.keyOf(mset), NOW); // one write sets a and b
                store.write(c, bytes(Integer.toString(i))); // two writes: c, then d
                store.write(d, bytes(Integer.toString(i)));
            }
            writing.set(false);
        });
        final List<String> torn = new ArrayList<>();
        long served = 0;
        long ordered = 0;
        while (writing.get() && torn.size() < 10)
        {
            final Reply reply = store.readBetweenWrites(args("MGET", "a", "b", "c", "d"), NOW);
            if (reply == null)
            {
                ordered++;
                continue;
            }
            served++;
            final List<Reply> items = ((Reply.Array)reply).items();
            final long a = number(items.get(0));
            final long b = number(items.get(1));
            final long c = number(items.get(2));
            final long d = number(items.get(3));
            // round i sets a and b in one write, then c, then d: between two writes (a, b, c, d) is (i, i, i-1, i-1),
            // (i, i, i, i-1) or (i, i, i, i)
            if (a != b || !(c == a - 1 && d == a - 1 || c == a && (d == a - 1 || d == a)))
            {
                torn.add("a=" + a + " b=" + b + " c=" + c + " d=" + d);
            }
        }
        writer.join(TimeUnit.SECONDS.toMillis(30));
        assertEquals(List.of(), torn, served + " reads served, " + ordered + " through the group");
        assertTrue(served > 0, "no read was served between writes");
        assertEquals(ordered, store.sequence.ordered());
    }

    private static long number(final Reply item)
    {
        final byte[] value = ((Reply.Bulk)item).bytes();
        return value == null ? 0 : Long.parseLong(new String(value, StandardCharsets.US_ASCII));
    }

    private static String text(final Reply reply)
    {
        return new String(((Reply.Bulk)reply).bytes(), StandardCharsets.UTF_8);
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store's table against a HashMap, and its readers beside its writer. */
@Timeout(60)
class KeyTableTest
{
    @Test
    void randomPutsRemovesAndClearsLeaveWhatAHashMapHolds()
    {
        final Random random = new Random(42);
        final List<Key> keys = new ArrayList<>();
        for (int i = 0; i < 20_000; i++)
        {
            // short keys, keys of exactly 16 bytes, and long ones that share their first 16 bytes
            final String text = switch (i % 3)
            {
                case 0 -> "k" + i;
                case 1 -> String.format("sixteen-%08d", i);
                default -> "a shared head of 16+ bytes, then " + i;
            };
            keys.add(new Key(text.getBytes(StandardCharsets.UTF_8)));
        }
        final KeyTable table = new KeyTable();
        final Map<Key, Object> expected = new HashMap<>();
        for (int op = 0; op < 400_000; op++)
        {
            final Key key = keys.get(random.nextInt(op < 200_000 ? keys.size() : 500)); // then churn a few keys
            final int what = random.nextInt(100);
            if (what < 60)
            {
                final byte[] value = new byte[1 + op % 40];
                replaced(expected.put(key, value), table.put(key, value, value.length), table);
            }
            else if (what < 90)
            {
                replaced(expected.remove(key), table.remove(key), table);
            }
            else
            {
                assertSame(expected.get(key), table.get(key));
                if (expected.containsKey(key))
                {
                    assertTrue(table.has(key));
                }
            }
            if (op == 300_000)
            {
                table.clear();
                expected.clear();
            }
        }
        assertEquals(expected.size(), table.size());
        final Map<Key, Object> walked = new HashMap<>();
        table.forEach((key, value) -> assertNull(walked.put(key, value), "a key walked twice"));
        assertEquals(expected, walked);
        for (final Key key : keys)
        {
            assertSame(expected.get(key), table.get(key));
        }
    }

    @Test
    void readersBesideTheWriterFindEveryKeyThatStaysAndNeverSeeAValueGoBack() throws Exception
    {
        final KeyTable table = new KeyTable();
        final int stay = 2_000;
        for (int i = 0; i < stay; i++)
        {
            table.put(key("stays-" + i), counter(0), 8);
        }
        final AtomicBoolean writing = new AtomicBoolean(true);
        final AtomicReference<String> failure = new AtomicReference<>();
        final List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++)
        {
            final int seed = r;
            readers.add(Thread.ofPlatform().start(() ->
            {
                final long[] seen = new long[stay];
                final Random random = new Random(seed);
                while (writing.get() && failure.get() == null)
                {
                    final int i = random.nextInt(stay);
                    final Object value = table.get(key("stays-" + i));
                    if (value == null)
                    {
                        failure.set("key stays-" + i + " not found");
                        return;
                    }
                    final long n = ByteBuffer.wrap((byte[])value).getLong();
                    if (n < seen[i])
                    {
                        failure.set("key stays-" + i + " went back from " + seen[i] + " to " + n);
                        return;
                    }
                    seen[i] = n;
                }
            }));
        }
        // the writer: overwrites the keys that stay, and adds and removes others, through several rebuilds
        for (long round = 1; round <= 40 && failure.get() == null; round++)
        {
            for (int i = 0; i < stay; i++)
            {
                table.put(key("stays-" + i), counter(round), 8);
            }
            for (int i = 0; i < 5_000; i++)
            {
                table.put(key("comes-and-goes-" + round + "-" + i), counter(round), 8);
            }
            for (int i = 0; i < 5_000; i++)
            {
                table.remove(key("comes-and-goes-" + round + "-" + i));
            }
        }
        writing.set(false);
        for (final Thread t : readers)
        {
            t.join(10_000);
        }
        assertNull(failure.get());
        assertEquals(stay, table.size());
        assertTrue(readers.stream().noneMatch(Thread::isAlive));
    }

    @Test
    void aGrowthMovesTheKeysAFewAtATimeAndEveryKeyStaysReachableMeanwhile()
    {
        final KeyTable table = new KeyTable();
        final Map<Key, Object> expected = new HashMap<>();
        int i = 0;
        while (!table.growing())
        {
            final Key key = key("k" + i++);
            final Object value = new byte[] {1};
            expected.put(key, value);
            table.put(key, value, 1);
        }
        // the growth began with the last put; one step moved KeyTable.MOVE_STEP old slots, not the whole table
        final int atStart = expected.size();
        int steps = 0;
        int changed = 0;
        while (table.growing())
        {
            steps++;
            final Key earlier = key("k" + (steps * 7919 % atStart)); // keys moved already and keys not moved yet
            switch (steps % 4)
            {
                case 0 -> replaced(expected.remove(earlier), table.remove(earlier), table);
                case 1 ->
                {
                    final byte[] value = new byte[2 + steps % 30];
                    replaced(expected.put(earlier, value), table.put(earlier, value, value.length), table);
                    changed++;
                }
                case 2 ->
                {
                    final Key fresh = key("fresh-" + steps);
                    final byte[] value = new byte[3];
                    replaced(expected.put(fresh, value), table.put(fresh, value, 3), table);
                }
                default -> table.moveAlong();
            }
            for (final Map.Entry<Key, Object> e : expected.entrySet())
            {
                if (steps % 64 == 0)
                {
                    assertSame(e.getValue(), table.get(e.getKey()), "during the growth: " + e.getKey());
                }
            }
            if (steps % 97 == 0)
            {
                final Map<Key, Object> walked = new HashMap<>();
                table.forEach((key, value) -> assertNull(walked.put(key, value), "a key walked twice"));
                assertEquals(expected, walked, "a walk during the growth");
            }
            assertEquals(expected.size(), table.size());
        }
        assertTrue(steps >= atStart * 2 / KeyTable.MOVE_STEP / 2, "the growth took " + steps + " steps for " +
            atStart + " keys: it moves a few slots a step");
        assertTrue(changed > 0);
        for (final Map.Entry<Key, Object> e : expected.entrySet())
        {
            assertSame(e.getValue(), table.get(e.getKey()), "after the growth: " + e.getKey());
        }
        assertNull(table.get(key("never")));
    }

    private static Key key(final String text)
    {
        return new Key(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The table replaced what a map would have, and tells its length from the slot (the store's size counts it). */
    private static void replaced(final Object expected, final Object actual, final KeyTable table)
    {
        assertSame(expected, actual);
        assertEquals(expected == null ? 0 : ((byte[])expected).length, table.replacedLength());
    }

    private static byte[] counter(final long n)
    {
        return ByteBuffer.allocate(8).putLong(n).array();
    }
}

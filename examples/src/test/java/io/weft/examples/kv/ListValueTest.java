package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A list's ring of items against a deque: pushes and pops at both ends that wrap, grow, drain and shrink it. */
@Timeout(30)
class ListValueTest
{
    @Test
    void aRingHoldsWhatADequeHoldsThroughWrapsGrowthsAndShrinks()
    {
        final Random random = new Random(5);
        final ListValue.Items items = new ListValue.Items(0, 1);
        final Deque<byte[]> deque = new ArrayDeque<>();
        for (int i = 0; i < 200_000; i++)
        {
            final byte[] item = ("i" + i).getBytes();
            // bursts of pushes then of pops, so that the ring grows to thousands of slots and drains to a few
            final boolean push = (i / 5_000) % 2 == 0 ? random.nextInt(10) < 8 : random.nextInt(10) < 2;
            switch (push ? random.nextInt(2) : deque.isEmpty() ? -1 : 2 + random.nextInt(2))
            {
                case 0 ->
                {
                    items.addFirst(item);
                    deque.addFirst(item);
                }
                case 1 ->
                {
                    items.addLast(item);
                    deque.addLast(item);
                }
                case 2 -> assertArrayEquals(deque.removeFirst(), items.removeFirst(), "pop " + i);
                case 3 -> assertArrayEquals(deque.removeLast(), items.removeLast(), "pop " + i);
                default ->
                {
                    // empty: nothing to pop
                }
            }
            assertEquals(deque.size(), items.size());
            if (i % 997 == 0)
            {
                assertEquals(List.copyOf(deque).stream().map(String::new).toList(),
                    items.range(0, items.size() - 1).stream().map(String::new).toList(), "after step " + i);
                final ListValue.Items copy = items.copy(1);
                assertEquals(items.size(), copy.size());
                assertEquals(items.length(), copy.length(), "a copy's estimate, whatever its ring's size");
            }
        }
        final List<byte[]> kept = new ArrayList<>(deque);
        items.replace(kept.subList(0, kept.size() / 2));
        assertEquals(kept.size() / 2, items.size());
        if (!kept.isEmpty())
        {
            assertArrayEquals(kept.getFirst(), items.get(0));
        }
    }
}

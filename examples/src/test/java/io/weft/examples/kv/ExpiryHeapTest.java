package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The expiries come out by expiry and then key, whatever order they went in, ties and removals between adds too. */
@Timeout(30)
class ExpiryHeapTest
{
    private record Pair(long at, Key key)
    {
    }

    @Test
    void pairsComeOutByExpiryThenKey()
    {
        final Random random = new Random(7);
        final ExpiryHeap heap = new ExpiryHeap();
        final List<Pair> in = new ArrayList<>();
        final List<Pair> out = new ArrayList<>();
        for (int i = 0; i < 20_000; i++)
        {
            final Pair p = new Pair(random.nextInt(50), // many ties: the key decides
                new Key(("key-" + random.nextInt(5_000)).getBytes(StandardCharsets.UTF_8)));
            heap.add(p.at, p.key);
            in.add(p);
            if (random.nextInt(3) == 0) // removals between adds: what came out was the least of what was in
            {
                final Pair least = in.stream().min(ORDER).orElseThrow();
                assertEquals(least.at, heap.firstAt());
                assertEquals(least.key, heap.firstKey());
                in.remove(least);
                heap.removeFirst();
            }
        }
        while (heap.size() > 0)
        {
            out.add(new Pair(heap.firstAt(), heap.firstKey()));
            heap.removeFirst();
        }
        in.sort(ORDER);
        assertEquals(in, out);
        heap.add(3, new Key(new byte[] {1}));
        assertEquals(3, heap.firstAt(), "usable after it ran empty");
    }

    private static final Comparator<Pair> ORDER = Comparator.comparingLong(Pair::at).thenComparing(Pair::key);
}

package io.weft.dds;

import io.weft.config.SampleKey;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** KEEP_LAST per topic and per key, with the rules every member applies alike (the processes' proof is in examples). */
class HistoryTest
{
    @Test
    void perTopicKeepsTheLastSamplesInOrder()
    {
        final History h = new History(3, null);
        for (int i = 0; i < 10; i++)
        {
            add(h, i, i % 4);
        }
        assertEquals(List.of(7L, 8L, 9L), positions(h.samples()));
    }

    @Test
    void perKeyKeepsTheLastSamplesOfEveryKeyAndDropsTheKeyUpdatedLeastRecently()
    {
        final History h = new History(2, new SampleKey(0, 4, 3));
        // keys 1, 2, 3 three samples each, interleaved: positions 0..8
        for (int i = 0; i < 9; i++)
        {
            add(h, i, 1 + i % 3);
        }
        assertEquals(List.of(3L, 4L, 5L, 6L, 7L, 8L), positions(h.samples()), "the last 2 of each key, by position");
        add(h, 9, 2);  // key 2 refreshed: key 1 is now the least recently updated
        add(h, 10, 4); // a fourth key drops key 1 and its samples
        assertEquals(List.of(5L, 7L, 8L, 9L, 10L), positions(h.samples()));

        final History joiner = new History(2, new SampleKey(0, 4, 3));
        joiner.replace(h.samples());
        assertEquals(positions(h.samples()), positions(joiner.samples()), "a joiner installs the same history");
        add(h, 11, 3);
        add(joiner, 11, 3);
        add(h, 12, 5);
        add(joiner, 12, 5);
        assertEquals(positions(h.samples()), positions(joiner.samples()), "and keeps it the same afterwards");
    }

    @Test
    void keyIsUnsignedBigEndianAndMissingBytesReadAsZero()
    {
        final SampleKey key = new SampleKey(1, 2, 10);
        final MemorySegment s = MemorySegment.ofArray(new byte[] {9, (byte)0xff, 0x01, 7});
        assertEquals(0xff01, History.key(key, s, 0, 4));
        assertEquals(0xff00, History.key(key, s, 0, 2), "a sample ending inside its key");
    }

    private static void add(final History h, final long position, final int key)
    {
        final byte[] sample = ByteBuffer.allocate(12).putInt(key).putLong(position).array();
        h.add(key, position, 0, MemorySegment.ofArray(sample), 0, sample.length);
    }

    private static List<Long> positions(final List<LoggedSample> samples)
    {
        return samples.stream().map(LoggedSample::position).toList();
    }
}

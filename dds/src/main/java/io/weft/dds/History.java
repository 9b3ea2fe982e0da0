package io.weft.dds;

import java.util.ArrayList;
import java.util.List;

/**
 * The last {@code capacity} samples of a volatile-storage topic (KEEP_LAST n per topic), as encoded bytes. Each
 * slot's array is reused once it has grown to the largest sample seen, so a steady stream allocates nothing.
 * Guarded by its topic's monitor.
 */
final class History
{
    private final int capacity;
    private final byte[][] payloads;
    private final int[] lengths;
    private final int[] publishers;
    private final long[] positions;
    private final long[] nanos;
    private long added;

    History(final int capacity)
    {
        this.capacity = capacity;
        this.payloads = new byte[capacity][];
        this.lengths = new int[capacity];
        this.publishers = new int[capacity];
        this.positions = new long[capacity];
        this.nanos = new long[capacity];
    }

    void add(final int publisherId, final long position, final long sourceNanos, final java.lang.foreign.MemorySegment segment,
        final long offset, final int length)
    {
        final int i = (int)(added++ % capacity);
        if (payloads[i] == null || payloads[i].length < length)
        {
            payloads[i] = new byte[length];
        }
        java.lang.foreign.MemorySegment.copy(segment, java.lang.foreign.ValueLayout.JAVA_BYTE, offset, payloads[i], 0,
            length);
        lengths[i] = length;
        publishers[i] = publisherId;
        positions[i] = position;
        nanos[i] = sourceNanos;
    }

    /** The kept samples, oldest first, as copies. */
    List<LoggedSample> samples()
    {
        final List<LoggedSample> result = new ArrayList<>();
        final long from = Math.max(0, added - capacity);
        for (long n = from; n < added; n++)
        {
            final int i = (int)(n % capacity);
            result.add(new LoggedSample(positions[i], publishers[i], nanos[i],
                java.util.Arrays.copyOf(payloads[i], lengths[i]), 0));
        }
        return result;
    }

    /** Replaces the contents (state transfer to a joiner). */
    void replace(final List<LoggedSample> samples)
    {
        added = 0;
        for (final LoggedSample s : samples)
        {
            final java.lang.foreign.MemorySegment seg = java.lang.foreign.MemorySegment.ofArray(s.payload());
            add(s.publisherId(), s.position(), s.sourceNanos(), seg, 0, s.payload().length);
        }
    }
}

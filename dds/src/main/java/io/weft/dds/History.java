package io.weft.dds;

import io.weft.config.SampleKey;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a volatile-storage topic keeps at every member: the last {@code depth} samples of the topic (KEEP_LAST per
 * topic) or of each key (KEEP_LAST per key, at most {@code maxKeys} keys, the key updated least recently dropped
 * first). Every member applies the same deliveries in the same order, so every member keeps the same samples.
 * Guarded by its topic's monitor.
 */
final class History
{
    private final int depth;
    private final SampleKey key;
    private final Ring topic;
    private final LinkedHashMap<Key, Ring> keys;
    private final Key probe = new Key(0);

    History(final int depth, final SampleKey key)
    {
        this.depth = depth;
        this.key = key;
        this.topic = key == null ? new Ring(depth) : null;
        this.keys = key == null ? null : new LinkedHashMap<>(16, 0.75f, true)
        {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<Key, Ring> eldest)
            {
                return size() > key.maxKeys();
            }
        };
    }

    void add(final int publisherId, final long position, final long sourceNanos, final MemorySegment segment,
        final long offset, final int length)
    {
        final Ring ring;
        if (topic != null)
        {
            ring = topic;
        }
        else
        {
            probe.value = key(key, segment, offset, length);
            final Ring existing = keys.get(probe); // access order: this key becomes the most recently updated
            ring = existing != null ? existing : new Ring(depth);
            if (existing == null)
            {
                keys.put(new Key(probe.value), ring); // only a new key allocates
            }
        }
        ring.add(publisherId, position, sourceNanos, segment, offset, length);
    }

    /**
     * The key of a sample: {@code key.length()} bytes at {@code key.offset()}, unsigned big-endian. Bytes past the
     * sample's end read as zero (writers refuse such samples; this keeps a member safe from one anyway).
     */
    static long key(final SampleKey key, final MemorySegment segment, final long offset, final int length)
    {
        long k = 0;
        for (int i = key.offset(); i < key.end(); i++)
        {
            k = (k << 8) | (i < length ? segment.get(ValueLayout.JAVA_BYTE, offset + i) & 0xff : 0);
        }
        return k;
    }

    /** The kept samples, oldest first (by position), as copies. */
    List<LoggedSample> samples()
    {
        final List<LoggedSample> result = new ArrayList<>();
        if (topic != null)
        {
            topic.copyTo(result);
            return result;
        }
        keys.values().forEach(r -> r.copyTo(result));
        result.sort(Comparator.comparingLong(LoggedSample::position));
        return result;
    }

    /** Replaces the contents (state transfer to a joiner): the donor's samples, applied in their order. */
    void replace(final List<LoggedSample> samples)
    {
        if (topic != null)
        {
            topic.clear();
        }
        else
        {
            keys.clear();
        }
        for (final LoggedSample s : samples)
        {
            add(s.publisherId(), s.position(), s.sourceNanos(), MemorySegment.ofArray(s.payload()), 0,
                s.payload().length);
        }
    }

    /** A key in the map; the probe is one reused instance, so looking up a known key allocates nothing. */
    private static final class Key
    {
        long value;

        Key(final long value)
        {
            this.value = value;
        }

        @Override
        public boolean equals(final Object o)
        {
            return o instanceof Key other && other.value == value;
        }

        @Override
        public int hashCode()
        {
            return Long.hashCode(value);
        }
    }

    /**
     * The last {@code capacity} samples of one stream; each slot's array is reused once grown, so steady state
     * allocates nothing.
     */
    private static final class Ring
    {
        private final int capacity;
        private final byte[][] payloads;
        private final int[] lengths;
        private final int[] publishers;
        private final long[] positions;
        private final long[] nanos;
        private long added;

        Ring(final int capacity)
        {
            this.capacity = capacity;
            this.payloads = new byte[capacity][];
            this.lengths = new int[capacity];
            this.publishers = new int[capacity];
            this.positions = new long[capacity];
            this.nanos = new long[capacity];
        }

        void add(final int publisherId, final long position, final long sourceNanos, final MemorySegment segment,
            final long offset, final int length)
        {
            final int i = (int)(added++ % capacity);
            if (payloads[i] == null || payloads[i].length < length)
            {
                payloads[i] = new byte[length];
            }
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, payloads[i], 0, length);
            lengths[i] = length;
            publishers[i] = publisherId;
            positions[i] = position;
            nanos[i] = sourceNanos;
        }

        void copyTo(final List<LoggedSample> out)
        {
            for (long n = Math.max(0, added - capacity); n < added; n++)
            {
                final int i = (int)(n % capacity);
                out.add(new LoggedSample(positions[i], publishers[i], nanos[i],
                    java.util.Arrays.copyOf(payloads[i], lengths[i]), 0));
            }
        }

        void clear()
        {
            added = 0;
        }
    }
}

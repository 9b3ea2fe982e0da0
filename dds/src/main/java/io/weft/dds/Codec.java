package io.weft.dds;

import java.lang.foreign.MemorySegment;

/**
 * Turns samples of a topic into bytes in place and back. Writers encode straight into the multicast slot, readers
 * decode straight from the table, so no intermediate buffer is involved. See {@link Codecs} for the ones provided.
 *
 * @param <T> the sample type.
 */
public interface Codec<T>
{
    /**
     * Encodes {@code sample} at {@code offset} of {@code segment}, using at most {@code capacity} bytes.
     *
     * @return the encoded length.
     * @throws IllegalArgumentException if the sample needs more than {@code capacity} bytes (the topic's max-sample).
     */
    int encode(T sample, MemorySegment segment, long offset, int capacity);

    /** Decodes a sample of {@code length} bytes; the result must not refer to {@code segment} afterwards. */
    T decode(MemorySegment segment, long offset, int length);
}

package io.weft.dds;

import java.lang.foreign.MemorySegment;

/**
 * Told of every sample of a topic as bytes in place, on the delivery thread, with nothing allocated: read the
 * {@code length} bytes at {@code offset} of {@code segment} (a flyweight codec can wrap them) during the call, and
 * keep neither the segment nor the header.
 */
@FunctionalInterface
public interface RawSampleListener
{
    /** One sample: {@code length} bytes at {@code offset} of {@code segment}, valid only during the call. */
    void onSample(MemorySegment segment, long offset, int length, SampleHeader header);

    /** The topic was deleted after the last sample this listener was given: nothing follows (membership thread). */
    default void onTopicDeleted()
    {
    }

    /**
     * This member's participant ended after the last sample this listener was given (as {@link SampleListener}'s).
     *
     * @param why what ended it, in words.
     */
    default void onParticipantEnded(final String why)
    {
    }
}

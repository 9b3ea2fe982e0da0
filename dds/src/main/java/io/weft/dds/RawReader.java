package io.weft.dds;

import java.lang.foreign.MemorySegment;

/**
 * A reader of a topic's samples as bytes in place ({@link DomainParticipant#createRawReader}): no decoding and no
 * allocation per sample, for the hot paths a typed {@link DataReader} is too slow for. Stored samples (history, log)
 * come first, as for every reader.
 */
public final class RawReader implements ReaderSink, AutoCloseable
{
    private final TopicState state;
    private final RawSampleListener listener;
    private long received;

    RawReader(final TopicState state, final RawSampleListener listener)
    {
        this.state = state;
        this.listener = listener;
    }

    @Override
    public void deliver(final MemorySegment segment, final long offset, final int length, final SampleHeader header)
    {
        received++; // under the topic's monitor, like every delivery
        listener.onSample(segment, offset, length, header);
    }

    @Override
    public void topicDeleted()
    {
        listener.onTopicDeleted();
    }

    @Override
    public void participantEnded(final String why)
    {
        listener.onParticipantEnded(why);
    }

    /** {@return the samples handed to the listener so far} */
    public long received()
    {
        synchronized (state)
        {
            return received;
        }
    }

    /** Stops delivery to this reader. */
    @Override
    public void close()
    {
        state.removeReader(this);
    }
}

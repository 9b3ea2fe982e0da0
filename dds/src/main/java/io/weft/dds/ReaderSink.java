package io.weft.dds;

import java.lang.foreign.MemorySegment;

/** Where a topic hands a delivered sample's bytes: a {@link DataReader} or a {@link RawReader}. Called under the
 * topic's monitor. */
interface ReaderSink
{
    void deliver(MemorySegment segment, long offset, int length, SampleHeader header);

    /** The topic was deleted after the last sample delivered here; nothing follows. */
    void topicDeleted();

    /** The participant ended ({@link SampleListener#onParticipantEnded}) after the last sample delivered here. */
    void participantEnded(String why);
}

package io.weft.dds;

/**
 * Told of every sample of a topic as it is delivered, on the delivery thread: return promptly, and do not write
 * with a timeout from here (protocol threads must not wait; {@link DataWriter#write} refuses). What it throws is
 * counted ({@code weft.dds.listener.failures}) and logged at most once per 10 s; the topic and its other readers go
 * on.
 */
@FunctionalInterface
public interface SampleListener<T>
{
    /** One delivered sample, decoded, with where it came from and its position in the topic. */
    void onSample(T sample, SampleInfo info);

    /**
     * The topic was deleted ({@link DomainParticipant#deleteTopic}) after the last sample this listener was given:
     * nothing follows. On the membership thread.
     */
    default void onTopicDeleted()
    {
    }

    /**
     * This member's participant ended after the last sample this listener was given: it was closed or finished, it
     * left, or its group stopped (then {@code participant.group().minorityReason()} is set); {@code why} says which.
     * Nothing follows. On the thread that ended it.
     *
     * @param why what ended it, in words.
     */
    default void onParticipantEnded(final String why)
    {
    }
}

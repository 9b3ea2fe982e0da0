package io.weft.dds;

/**
 * What a raw reader is told about a sample beside its bytes: one object per topic, filled again for every sample
 * (a flyweight in the manner of Aeron's {@code Header}), so that delivery allocates nothing. Valid during the
 * callback only; {@link #info()} makes a lasting copy.
 */
public final class SampleHeader
{
    private int topicId;
    private int publisherId;
    private long position;
    private long sourceNanos;
    private boolean stored;

    /** Made by the topic layer only, one per topic, filled again for each sample. */
    SampleHeader()
    {
    }

    SampleHeader set(final int topicId, final int publisherId, final long position, final long sourceNanos,
        final boolean stored)
    {
        this.topicId = topicId;
        this.publisherId = publisherId;
        this.position = position;
        this.sourceNanos = sourceNanos;
        this.stored = stored;
        return this;
    }

    /** {@return the topic's number (weft.dds.topics[].id)} */
    public int topicId()
    {
        return topicId;
    }

    /** {@return the member that wrote the sample} */
    public int publisherId()
    {
        return publisherId;
    }

    /** {@return the sample's place in the topic (for the ordered levels the same at every member)} */
    public long position()
    {
        return position;
    }

    /** {@return {@code System.nanoTime()} at the publisher when it wrote the sample} */
    public long sourceNanos()
    {
        return sourceNanos;
    }

    /** {@return whether the sample came from storage (history or log) rather than live delivery} */
    public boolean stored()
    {
        return stored;
    }

    /** {@return a lasting copy of this header} */
    public SampleInfo info()
    {
        return new SampleInfo(topicId, publisherId, position, sourceNanos, stored);
    }
}

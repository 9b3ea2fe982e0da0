package io.weft.dds;

/**
 * What came with a sample.
 *
 * @param topicId         the topic's number.
 * @param publisherId     member id of the publisher.
 * @param position        the sample's position in the topic at this member, from 0: for ordered topics the same at
 *                        every member that delivered it (the log position of logged topics); for unordered topics
 *                        this member's count of arrivals.
 * @param sourceNanos     {@code System.nanoTime()} at the publisher when it wrote the sample: comparable only on
 *                        the publisher's host.
 * @param stored          true for a sample handed from storage (the volatile history, or the log, replayed to a new
 *                        reader or received on joining), false for one delivered as it arrived.
 */
public record SampleInfo(int topicId, int publisherId, long position, long sourceNanos, boolean stored)
{
}

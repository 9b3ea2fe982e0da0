package io.weft.dds;

/**
 * One entry of a logged topic's log, as {@link SampleLog} reads it back.
 *
 * @param position    the sample's position in the topic (0, 1, 2, ...): the same at every member.
 * @param publisherId member id of the publisher.
 * @param sourceNanos the publisher's clock when it wrote the sample.
 * @param payload     the encoded sample.
 * @param crc         CRC-32C over position, publisher, time and payload, as stored.
 */
public record LoggedSample(long position, int publisherId, long sourceNanos, byte[] payload, int crc)
{
}

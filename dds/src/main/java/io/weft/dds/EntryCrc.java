package io.weft.dds;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The CRC-32C of a log entry: over its position, publisher and source time (little-endian, 20 bytes) and its
 * payload. The header goes in as one array (it went in a byte at a time: 20 calls per entry, 7% of the persistence
 * thread). One per thread.
 */
final class EntryCrc
{
    private static final int HEADER = 8 + 4 + 8;

    private final CRC32C crc = new CRC32C();
    private final byte[] header = new byte[HEADER];
    private final ByteBuffer headerBuffer = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);

    int of(final long position, final int publisherId, final long sourceNanos, final byte[] payload, final int length)
    {
        headerBuffer.putLong(0, position).putInt(8, publisherId).putLong(12, sourceNanos);
        crc.reset();
        crc.update(header, 0, HEADER);
        crc.update(payload, 0, length);
        return (int)crc.getValue();
    }
}

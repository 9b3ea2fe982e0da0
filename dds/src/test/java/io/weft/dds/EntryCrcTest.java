package io.weft.dds;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** An entry's CRC is the one logs written before have: position, publisher, source time (little-endian), payload. */
class EntryCrcTest
{
    @Test
    void theCrcCoversTheHeaderByteByByteAndThePayload()
    {
        final Random random = new Random(42);
        final EntryCrc crc = new EntryCrc();
        for (int i = 0; i < 1000; i++)
        {
            final long position = random.nextLong();
            final int publisher = random.nextInt();
            final long nanos = random.nextLong();
            final byte[] payload = new byte[random.nextInt(2048)];
            random.nextBytes(payload);
            final int length = payload.length == 0 ? 0 : random.nextInt(payload.length + 1);
            assertEquals(reference(position, publisher, nanos, payload, length),
                crc.of(position, publisher, nanos, payload, length), "entry " + i);
        }
    }

    /** The CRC as the log computed it before {@link EntryCrc}: the header one byte at a time, lowest byte first. */
    private static int reference(final long position, final int publisher, final long nanos, final byte[] payload,
        final int length)
    {
        final CRC32C c = new CRC32C();
        for (int i = 0; i < 8; i++)
        {
            c.update((int)(position >>> (8 * i)));
        }
        for (int i = 0; i < 4; i++)
        {
            c.update(publisher >>> (8 * i));
        }
        for (int i = 0; i < 8; i++)
        {
            c.update((int)(nanos >>> (8 * i)));
        }
        c.update(payload, 0, length);
        return (int)c.getValue();
    }
}

package io.weft.examples.kv;

/**
 * The CRC-64 Redis seals a DUMP payload with (Jones' polynomial {@code 0xad93d23594c935a9}, reflected, from 0, no
 * final inversion: {@code 123456789} gives {@code 0xe9c6d914c4b8d9ca}), byte by byte through a table.
 */
final class Crc64
{
    /** The polynomial, bits reversed: the reflected form the table is built from. */
    private static final long REFLECTED = 0x95ac9329ac4bc9b5L;
    private static final long[] TABLE = new long[256];

    static
    {
        for (int i = 0; i < 256; i++)
        {
            long c = i;
            for (int bit = 0; bit < 8; bit++)
            {
                c = (c & 1) != 0 ? (c >>> 1) ^ REFLECTED : c >>> 1;
            }
            TABLE[i] = c;
        }
    }

    private Crc64()
    {
    }

    /** The CRC of {@code length} bytes of {@code bytes} from {@code from}. */
    static long of(final byte[] bytes, final int from, final int length)
    {
        return update(0, bytes, from, length);
    }

    /**
     * {@code crc0}, the CRC of the bytes before, carried on over {@code length} bytes of {@code bytes} from
     * {@code from}.
     */
    static long update(final long crc0, final byte[] bytes, final int from, final int length)
    {
        long crc = crc0;
        for (int i = from; i < from + length; i++)
        {
            crc = TABLE[(int)(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
        }
        return crc;
    }
}

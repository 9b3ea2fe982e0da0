package io.weft.examples.kv;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes a value in Redis's RDB serialization, {@link RdbReader}'s counterpart: DUMP's payload, whose CRC-64 is taken
 * over the bytes in place, not over a copy (a value may be 16 MiB).
 */
final class RdbWriter extends ByteArrayOutputStream
{
    /** A length in RDB's form: 6 bits, 14 bits, 0x80 and 32 bits, or 0x81 and 64 bits, big-endian; unsigned. */
    void length(final long n)
    {
        if (Long.compareUnsigned(n, 1 << 6) < 0)
        {
            write((int)n);
        }
        else if (Long.compareUnsigned(n, 1 << 14) < 0)
        {
            write(0x40 | (int)n >>> 8);
            write((int)n & 0xff);
        }
        else if (Long.compareUnsigned(n, 0xffffffffL) <= 0)
        {
            write(0x80);
            bigEndian(n, 4);
        }
        else
        {
            write(0x81);
            bigEndian(n, 8);
        }
    }

    /** A string as its length and bytes. */
    void string(final byte[] bytes)
    {
        length(bytes.length);
        writeBytes(bytes);
    }

    void bigEndian(final long v, final int bytes)
    {
        for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8)
        {
            write((int)(v >>> shift) & 0xff);
        }
    }

    void littleEndian(final long v, final int bytes)
    {
        for (int i = 0; i < bytes; i++)
        {
            write((int)(v >>> 8 * i) & 0xff);
        }
    }

    /**
     * Moves the bytes written to {@code out} and empties this writer; returns {@code crc}, the CRC-64 of the bytes
     * before, carried on over them (an RDB file's, {@link RdbFile}).
     */
    long drainTo(final OutputStream out, final long crc) throws IOException
    {
        out.write(buf, 0, count);
        final long carried = Crc64.update(crc, buf, 0, count);
        reset();
        return carried;
    }

    /** The payload: the bytes written, then RDB version {@code version} and the CRC-64 of all before the CRC. */
    byte[] seal(final int version)
    {
        littleEndian(version, 2);
        littleEndian(Crc64.of(buf, 0, count), 8);
        return toByteArray();
    }
}

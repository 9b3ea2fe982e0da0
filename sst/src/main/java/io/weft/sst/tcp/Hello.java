package io.weft.sst.tcp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The versioned handshake both ends of a tcp connection send before any push is applied: magic, protocol version,
 * group name, member id and rank, and the table layout (checksum, rows, row size). A refusal carries a reason.
 * Fixed 128 bytes so that frames after it stay 8-byte aligned in the receive buffer.
 */
record Hello(int kind, long layoutChecksum, int rows, int rowSize, int memberId, int rank, String group, String reason)
{
    static final int MAGIC = 0x5745_4654; // "WEFT"
    static final short VERSION = 1;
    static final int SIZE = 128;
    static final int HELLO = 1;
    static final int REJECT = 2;
    private static final int MAX_GROUP = 63;
    private static final int MAX_REASON = SIZE - 10;

    static Hello hello(final long checksum, final int rows, final int rowSize, final int memberId, final int rank,
        final String group)
    {
        return new Hello(HELLO, checksum, rows, rowSize, memberId, rank, group, null);
    }

    static Hello reject(final String reason)
    {
        return new Hello(REJECT, 0, 0, 0, -1, -1, null, reason);
    }

    void encode(final ByteBuffer dst)
    {
        final int start = dst.position();
        dst.putInt(MAGIC).putShort(VERSION).putShort((short)kind);
        if (kind == HELLO)
        {
            final byte[] name = group.getBytes(StandardCharsets.UTF_8);
            dst.putLong(layoutChecksum).putInt(rows).putInt(rowSize).putInt(memberId).putInt(rank)
                .putShort((short)name.length).put(name, 0, Math.min(name.length, MAX_GROUP));
        }
        else
        {
            final byte[] text = reason.getBytes(StandardCharsets.UTF_8);
            final int length = Math.min(text.length, MAX_REASON);
            dst.putShort((short)length).put(text, 0, length);
        }
        while (dst.position() < start + SIZE)
        {
            dst.put((byte)0);
        }
    }

    /**
     * Decodes the 128 bytes at the buffer's position (which advances).
     *
     * @throws HandshakeException naming what is wrong: this is input from a possible stranger.
     */
    static Hello decode(final ByteBuffer src) throws HandshakeException
    {
        final int start = src.position();
        try
        {
            final int magic = src.getInt();
            if (magic != MAGIC)
            {
                throw new HandshakeException("not a Weft peer: bad magic 0x" + Integer.toHexString(magic));
            }
            final short version = src.getShort();
            if (version != VERSION)
            {
                throw new HandshakeException("protocol version " + version + ", this member speaks " + VERSION);
            }
            final int kind = src.getShort();
            if (kind == REJECT)
            {
                final int length = src.getShort();
                if (length < 0 || length > MAX_REASON)
                {
                    throw new HandshakeException("malformed refusal");
                }
                final byte[] text = new byte[length];
                src.get(text);
                return reject(new String(text, StandardCharsets.UTF_8));
            }
            if (kind != HELLO)
            {
                throw new HandshakeException("unknown handshake kind " + kind);
            }
            final long checksum = src.getLong();
            final int rows = src.getInt();
            final int rowSize = src.getInt();
            final int memberId = src.getInt();
            final int rank = src.getInt();
            final int length = src.getShort();
            if (length <= 0 || length > MAX_GROUP)
            {
                throw new HandshakeException("malformed group name length " + length);
            }
            final byte[] name = new byte[length];
            src.get(name);
            return hello(checksum, rows, rowSize, memberId, rank, new String(name, StandardCharsets.UTF_8));
        }
        finally
        {
            src.position(start + SIZE);
        }
    }

    /** Thrown for a handshake that must be refused; the message is the logged and returned reason. */
    static final class HandshakeException extends Exception
    {
        HandshakeException(final String message)
        {
            super(message, null, false, false);
        }
    }
}

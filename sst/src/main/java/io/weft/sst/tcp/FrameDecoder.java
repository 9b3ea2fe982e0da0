package io.weft.sst.tcp;

import io.weft.sst.RowCopy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Decodes the frames a peer sent after its handshake and applies each push to the peer's row of the local table,
 * in arrival order, with {@link RowCopy} (the ordering contract). Every frame is checked against the row before it
 * touches the table; an invalid one fails the connection. Selector thread only.
 */
final class FrameDecoder
{
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

    /** Where a connection that sent an invalid frame is reported. */
    @FunctionalInterface
    interface Failures
    {
        void failed(TcpConnection c, String reason);
    }

    private final MemorySegment table;
    private final int rowSize;
    private final boolean[] frozen;
    private final Failures failures;

    FrameDecoder(final MemorySegment table, final int rowSize, final boolean[] frozen, final Failures failures)
    {
        this.table = table;
        this.rowSize = rowSize;
        this.frozen = frozen;
        this.failures = failures;
    }

    /** Applies every complete frame in the connection's receive buffer. Returns true if any push was applied. */
    boolean apply(final TcpConnection c)
    {
        final ByteBuffer in = c.recv;
        final long rowBase = (long)c.peerRank * rowSize;
        boolean applied = false;
        long ack = -1;
        while (in.remaining() >= Frame.HEADER && c.state == TcpConnection.State.ESTABLISHED)
        {
            final int at = in.position();
            final byte type = in.get(at + Frame.TYPE_OFFSET);
            final int length = in.getInt(at + Frame.LENGTH_OFFSET);
            final int offset = in.getInt(at + Frame.ROW_OFFSET_OFFSET);
            final String problem = check(type, length, offset);
            if (problem != null)
            {
                LOG.warn("refused frame from member at rank {} ({}): {}; closing the connection", c.peerRank, c.remote,
                    problem);
                failures.failed(c, "sent an invalid frame: " + problem);
                return applied;
            }
            final int header = Frame.headerLength(type);
            final int total = header + (type == Frame.ACK ? 0 : length);
            if (in.remaining() < total)
            {
                break;
            }
            if (frozen[c.peerRank])
            {
                in.position(at + total);
                continue;
            }
            switch (type)
            {
                case Frame.ACK -> c.acked(in.getLong(at + Frame.ID_OFFSET));
                case Frame.PUSH_TRACKED ->
                {
                    RowCopy.copy(c.recvSegment, at + header, table, rowBase + offset, length);
                    ack = in.getLong(at + Frame.ID_OFFSET);
                    applied = true;
                }
                default ->
                {
                    RowCopy.copy(c.recvSegment, at + header, table, rowBase + offset, length);
                    applied = true;
                }
            }
            in.position(at + total);
        }
        if (ack >= 0)
        {
            owe(c, ack);
        }
        return applied;
    }

    private void owe(final TcpConnection c, final long ack)
    {
        try
        {
            c.owesAck(ack);
        }
        catch (final java.io.IOException ex)
        {
            failures.failed(c, ex.getMessage() == null ? ex.toString() : ex.getMessage());
        }
    }

    /** Why a frame header is invalid, or null. */
    private String check(final byte type, final int length, final int offset)
    {
        if (type != Frame.PUSH && type != Frame.PUSH_TRACKED && type != Frame.ACK)
        {
            return "unknown frame type " + type;
        }
        if (type == Frame.ACK)
        {
            return length == 0 ? null : "acknowledgement with a length of " + length;
        }
        if (length < 0 || length > rowSize)
        {
            return "oversized frame of " + Integer.toUnsignedString(length) + " bytes, a row has " + rowSize;
        }
        if (offset < 0 || (long)offset + length > rowSize)
        {
            return "frame [" + Integer.toUnsignedString(offset) + ", +" + length + ") outside the row of " + rowSize +
                " bytes";
        }
        if ((offset & 7) != 0 || (length & 7) != 0)
        {
            return "frame offset " + offset + " or length " + length + " not a multiple of 8";
        }
        return null;
    }
}

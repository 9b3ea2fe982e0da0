package io.weft.sst.tcp;

/**
 * Frames after the handshake, in both directions:
 * <pre>
 *   PUSH          type:1 pad:3 length:4 rowOffset:4 pad:4 | length bytes of the sender's row
 *   PUSH_TRACKED  type:1 pad:3 length:4 rowOffset:4 pad:4 id:8 | length bytes; the receiver answers ACK(id)
 *   ACK           type:1 pad:3 0:4 0:4 pad:4 id:8        | every tracked push up to id was applied
 * </pre>
 * Every length and offset is a multiple of 8 and a push lies inside the row; anything else closes the connection.
 */
final class Frame
{
    static final byte PUSH = 1;
    static final byte PUSH_TRACKED = 2;
    static final byte ACK = 3;
    /** Field offsets within a frame. */
    static final int TYPE_OFFSET = 0;
    static final int LENGTH_OFFSET = 4;
    static final int ROW_OFFSET_OFFSET = 8;
    static final int ID_OFFSET = 16;
    static final int HEADER = 16;
    static final int ID = 8;

    private Frame()
    {
    }

    static int headerLength(final byte type)
    {
        return type == PUSH ? HEADER : HEADER + ID;
    }
}

package io.weft.examples.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The state a joiner receives: the donor's write position, whether the donor was still in a cold start's recovery,
 * then the store. A joiner admitted during a recovery would serve before the group does, with the state of a donor
 * not yet caught up, and its clients' writes would take positions that differ between members still catching up:
 * it refuses the state, so its join fails with the reason.
 */
record KvSnapshot(long position, byte[] state)
{
    private static final int HEADER = 8 + 1;

    static byte[] encode(final long position, final boolean recovering, final byte[] state)
    {
        return ByteBuffer.allocate(HEADER + state.length).putLong(position).put((byte)(recovering ? 1 : 0)).put(state)
            .array();
    }

    /**
     * The snapshot in {@code bytes}.
     *
     * @throws IllegalStateException the donor was still recovering, or the bytes are too short to be a snapshot.
     */
    static KvSnapshot decode(final byte[] bytes)
    {
        if (bytes.length < HEADER)
        {
            throw new IllegalStateException("a key-value snapshot of " + bytes.length + " bytes: at least " + HEADER +
                " expected");
        }
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final long position = in.getLong();
        if (in.get() != 0)
        {
            throw new IllegalStateException("the group is still in a cold start's recovery (its donor was at write " +
                "position " + position + "): join once it serves");
        }
        return new KvSnapshot(position, Arrays.copyOfRange(bytes, HEADER, bytes.length));
    }
}

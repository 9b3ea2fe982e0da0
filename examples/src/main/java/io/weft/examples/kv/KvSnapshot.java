package io.weft.examples.kv;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The head of the state a joiner receives: the donor's write position and whether the donor was still in a cold
 * start's recovery; the store follows ({@link StoreCut}). A joiner admitted during a recovery would serve before the
 * group does, with the state of a donor not yet caught up, and its clients' writes would take positions that differ
 * between members still catching up: it refuses the state, so its join fails with the reason.
 */
final class KvSnapshot
{
    private KvSnapshot()
    {
    }

    static void writeHead(final OutputStream out, final long position, final boolean recovering) throws IOException
    {
        final DataOutputStream data = new DataOutputStream(out);
        data.writeLong(position);
        data.writeBoolean(recovering);
        data.flush();
    }

    /**
     * Reads the head; returns the donor's write position.
     *
     * @throws IllegalStateException the donor was still recovering, or the state ended before its head did.
     */
    static long readHead(final InputStream in) throws IOException
    {
        final DataInputStream data = new DataInputStream(in);
        try
        {
            final long position = data.readLong();
            if (data.readBoolean())
            {
                throw new IllegalStateException("the group is still in a cold start's recovery (its donor was at " +
                    "write position " + position + "): join once it serves");
            }
            return position;
        }
        catch (final EOFException ex)
        {
            throw new IllegalStateException("a key-value state that ends before its head (9 bytes: a write " +
                "position, a recovery flag)", ex);
        }
    }
}

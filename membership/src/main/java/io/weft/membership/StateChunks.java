package io.weft.membership;

import javax.crypto.Mac;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The application state on the control channel, cut into STATE frames so that neither side ever holds it whole:
 * each frame is {@code index:8 last:1 mac:32 data} with at most {@link #CHUNK} bytes of data, its MAC over the
 * admission's handshake ({@link ControlWire#admission}), the index, the flag and the data. The joiner checks every
 * chunk before its installer sees a byte of it, so nothing altered, reordered, replayed from another admission or
 * dropped is ever installed, and it takes the state as complete only at the frame marked last.
 */
final class StateChunks
{
    /** Data bytes per frame. */
    static final int CHUNK = 1 << 20;
    private static final int HEADER = 8 + 1 + 32;
    private static final String LABEL = "weft-state";

    private StateChunks()
    {
    }

    private static byte[] mac(final Mac keyed, final long index, final boolean last, final byte[] data,
        final int length)
    {
        try
        {
            final Mac mac = (Mac)keyed.clone();
            mac.update(ByteBuffer.allocate(9).putLong(index).put((byte)(last ? 1 : 0)).array());
            mac.update(data, 0, length);
            return mac.doFinal();
        }
        catch (final CloneNotSupportedException ex)
        {
            throw new IllegalStateException("HmacSHA256 cannot be cloned", ex);
        }
    }

    /** The member's side: buffers a chunk, then sends it; {@link #close} sends the last one. */
    static final class Output extends OutputStream
    {
        private final DataOutputStream out;
        private final Mac keyed;
        private final byte[] chunk = new byte[CHUNK];
        private int length;
        private volatile long index; // read by the watchdog of a stalled joiner
        private volatile boolean closed;

        Output(final DataOutputStream out, final String secret, final String group, final int memberId,
            final byte[] joinerNonce, final byte[] memberNonce)
        {
            this.out = out;
            this.keyed = ControlWire.admission(secret, LABEL, group, memberId, joinerNonce, memberNonce);
        }

        @Override
        public void write(final int b) throws IOException
        {
            write(new byte[] {(byte)b}, 0, 1);
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            if (closed)
            {
                throw new IOException("the state stream is closed");
            }
            int at = off;
            int left = len;
            while (left > 0)
            {
                if (length == CHUNK)
                {
                    send(false);
                }
                final int n = Math.min(left, CHUNK - length);
                System.arraycopy(b, at, chunk, length, n);
                length += n;
                at += n;
                left -= n;
            }
        }

        private void send(final boolean last) throws IOException
        {
            final byte[] payload = ByteBuffer.allocate(HEADER + length).putLong(index).put((byte)(last ? 1 : 0))
                .put(mac(keyed, index, last, chunk, length)).put(chunk, 0, length).array();
            ControlWire.write(out, ControlWire.STATE, payload);
            index++;
            length = 0;
        }

        /** Chunks sent so far. */
        long sent()
        {
            return index;
        }

        /** Whether the last chunk was sent (or the stream given up). */
        boolean closed()
        {
            return closed;
        }

        /** Sends what is buffered as the last chunk. */
        @Override
        public void close() throws IOException
        {
            if (!closed)
            {
                closed = true;
                send(true);
            }
        }
    }

    /** The joiner's side: reads and checks one chunk at a time. */
    static final class Input extends InputStream
    {
        private final DataInputStream in;
        private final Mac keyed;
        private final String from;
        private byte[] data = new byte[0];
        private int at;
        private long index;
        private boolean last;
        /** When the installer last asked for bytes: a joiner's watch ({@link FirstTable}) reads it. */
        private volatile long askedNanos = System.nanoTime();

        Input(final DataInputStream in, final String secret, final String group, final int memberId,
            final byte[] joinerNonce, final byte[] memberNonce, final String from)
        {
            this.in = in;
            this.keyed = ControlWire.admission(secret, LABEL, group, memberId, joinerNonce, memberNonce);
            this.from = from;
        }

        @Override
        public int read() throws IOException
        {
            final byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException
        {
            askedNanos = System.nanoTime();
            if (len == 0)
            {
                return 0;
            }
            while (at == data.length)
            {
                if (last)
                {
                    return -1;
                }
                next();
            }
            final int n = Math.min(len, data.length - at);
            System.arraycopy(data, at, b, off, n);
            at += n;
            return n;
        }

        private void next() throws IOException
        {
            final byte[] p = ControlWire.expect(in, HEADER + CHUNK, ControlWire.STATE).payload();
            if (p.length < HEADER)
            {
                throw new ControlWire.ProtocolException("a state chunk from " + from + " of " + p.length + " bytes");
            }
            final ByteBuffer b = ByteBuffer.wrap(p);
            final long i = b.getLong();
            final boolean end = b.get() != 0;
            final byte[] mac = new byte[32];
            b.get(mac);
            final byte[] chunk = Arrays.copyOfRange(p, HEADER, p.length);
            if (i != index || !ControlWire.sameProof(mac, mac(keyed, i, end, chunk, chunk.length)))
            {
                throw new ControlWire.ProtocolException("state chunk " + index + " from " + from + " failed " +
                    "authentication (altered, reordered or replayed on the way)");
            }
            index++;
            last = end;
            data = chunk;
            at = 0;
        }

        /** When the installer last asked for bytes (System.nanoTime). */
        long askedNanos()
        {
            return askedNanos;
        }

        /** Checks that the state was read to its last chunk and nothing of it was left. */
        void finish() throws IOException
        {
            if (read() >= 0)
            {
                throw new IllegalStateException("the state transfer's installer left bytes of the state from " +
                    from + " unread: it does not read what the snapshot writes");
            }
        }
    }
}

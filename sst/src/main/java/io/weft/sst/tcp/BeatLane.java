package io.weft.sst.tcp;

import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.IntConsumer;

/**
 * Heartbeats beside the data: one udp datagram per peer and beat, so that a sign of life never queues behind pushes
 * on the ordered connection (a slow or stalled link held them for seconds, long enough for a live member to be
 * suspected). A beat only says "alive": it never writes the table, so losing or reordering one is harmless.
 * <pre>
 *   [0, 4)    magic "WFHB"
 *   [4, 6)    version
 *   [6, 8)    sender rank
 *   [8, 24)   token: the pair's connection nonces (8 bytes of the acceptor's challenge, 8 of the dialler's hello)
 * </pre>
 * A datagram counts only if its source is the address and port the peer announced in its hello on an established
 * connection and it carries that connection's token: a stranger who cannot read the connection cannot keep a dead
 * member alive. Anything else is dropped, and the first drop of each kind (length, magic, rank, address, token) logged.
 */
final class BeatLane implements AutoCloseable
{
    static final int SIZE = 24;
    private static final int MAGIC = 0x5746_4842; // "WFHB"
    private static final short VERSION = 1;
    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);

    private final DatagramChannel channel;
    private final int myRank;
    private final SocketAddress[] peers;
    private final long[] tokenHigh;
    private final long[] tokenLow;
    private final ByteBuffer out = ByteBuffer.allocateDirect(SIZE).order(ByteOrder.BIG_ENDIAN);
    private final ByteBuffer in = ByteBuffer.allocateDirect(SIZE + 1).order(ByteOrder.BIG_ENDIAN);
    /** The kinds of {@link Drop} already logged, one bit each. */
    private int logged;

    /** Opens the socket, or runs {@code undo} (closing what the transport opened before) and throws. */
    BeatLane(final String host, final int myRank, final int rows, final Closer undo) throws IOException
    {
        this.myRank = myRank;
        this.peers = new SocketAddress[rows];
        this.tokenHigh = new long[rows];
        this.tokenLow = new long[rows];
        DatagramChannel opened = null;
        try
        {
            opened = DatagramChannel.open();
            opened.bind(new InetSocketAddress(host, 0));
            opened.configureBlocking(false);
        }
        catch (final IOException ex)
        {
            if (opened != null)
            {
                opened.close();
            }
            undo.close();
            throw new TransportException("cannot open the heartbeat socket on " + host + ": " + ex.getMessage(), ex);
        }
        this.channel = opened;
    }

    /** What to close when opening fails. */
    interface Closer
    {
        void close() throws IOException;
    }

    /** The udp port peers send beats to: announced in this member's hello. */
    int port()
    {
        return ((InetSocketAddress)channel.socket().getLocalSocketAddress()).getPort();
    }

    void register(final Selector selector) throws IOException
    {
        try
        {
            channel.register(selector, SelectionKey.OP_READ, this);
        }
        catch (final IOException ex)
        {
            close();
            throw ex;
        }
    }

    /** Selector thread, once a connection is established: where the peer listens and the pair's token. */
    void connected(final int rank, final InetAddress host, final int port, final byte[] challenge, final byte[] dial)
    {
        tokenHigh[rank] = ByteBuffer.wrap(challenge).getLong();
        tokenLow[rank] = ByteBuffer.wrap(dial).getLong();
        peers[rank] = new InetSocketAddress(host, port); // published by the volatile state of the connection
    }

    /** The failure detector's thread: one beat to each target it can reach now; never waits. */
    synchronized void beat(final int[] targets, final TcpConnection[] connections)
    {
        for (final int t : targets)
        {
            final TcpConnection c = connections[t];
            final SocketAddress peer = peers[t];
            if (c == null || c.state != TcpConnection.State.ESTABLISHED || peer == null)
            {
                continue;
            }
            out.clear();
            out.putInt(MAGIC).putShort(VERSION).putShort((short)myRank).putLong(tokenHigh[t]).putLong(tokenLow[t])
                .flip();
            try
            {
                channel.send(out, peer); // a full socket buffer drops it: the next beat supersedes it
            }
            catch (final IOException ex)
            {
                LOG.debug("beat to rank {} not sent: {}", t, ex.toString());
            }
        }
    }

    /** Selector thread: takes every pending datagram and reports each valid beat's sender rank. */
    void receive(final TcpConnection[] connections, final IntConsumer alive) throws IOException
    {
        SocketAddress from;
        while ((from = receiveOne()) != null)
        {
            final Drop drop = check(from, connections);
            if (drop == null)
            {
                alive.accept(in.getShort(6));
            }
            else if ((logged & 1 << drop.ordinal()) == 0)
            {
                logged |= 1 << drop.ordinal(); // a stranger must not flood the log
                LOG.warn("dropped a heartbeat datagram from {}: {} (more of this kind are dropped silently)", from,
                    drop.describe(in));
            }
        }
    }

    private SocketAddress receiveOne() throws IOException
    {
        in.clear();
        return channel.receive(in);
    }

    private Drop check(final SocketAddress from, final TcpConnection[] connections)
    {
        if (in.position() != SIZE)
        {
            return Drop.LENGTH;
        }
        if (in.getInt(0) != MAGIC || in.getShort(4) != VERSION)
        {
            return Drop.MAGIC;
        }
        final int rank = in.getShort(6);
        if (rank < 0 || rank >= peers.length || rank == myRank)
        {
            return Drop.RANK;
        }
        final TcpConnection c = connections[rank];
        if (c == null || c.state != TcpConnection.State.ESTABLISHED || !from.equals(peers[rank]))
        {
            return Drop.ADDRESS;
        }
        if (in.getLong(8) != tokenHigh[rank] || in.getLong(16) != tokenLow[rank])
        {
            return Drop.TOKEN;
        }
        return null;
    }

    /** Why a datagram was dropped. */
    private enum Drop
    {
        LENGTH, MAGIC, RANK, ADDRESS, TOKEN;

        String describe(final ByteBuffer datagram)
        {
            return switch (this)
            {
                case LENGTH -> "length " + datagram.position() + (datagram.position() > SIZE ? " or more" : "") +
                    ", expected " + SIZE;
                case MAGIC -> "not a Weft heartbeat of version " + VERSION;
                case RANK -> "rank " + datagram.getShort(6) + " is not a peer of this table";
                case ADDRESS -> "not the address that rank " + datagram.getShort(6) + " announced on its connection";
                case TOKEN -> "wrong token for rank " + datagram.getShort(6);
            };
        }
    }

    @Override
    public void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            LOG.debug("closing the heartbeat socket", ex);
        }
    }
}

package io.weft.sst.tcp;

import io.weft.config.MemberAddress;
import io.weft.config.TcpOptions;
import io.weft.config.WeftConfig;
import io.weft.sst.HostPort;
import io.weft.sst.TransportContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Connecting: the higher rank dials the lower, both ends exchange a {@link Hello} (magic, version, group, member id
 * and rank, layout checksum) and anything that does not match is refused with a logged reason, never touching the
 * table. While the table is opening a refused or failed dial is retried; a handshake has a total deadline.
 * Selector thread only.
 */
final class Handshakes
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
    private static final long HANDSHAKE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * A dial that found no table listening (or the previous view's, which refuses it) is tried again after 1 ms,
     * doubling up to 50 ms: in a view change the peer opens its table within milliseconds of this member, and a
     * fixed 50 ms wait was most of the pause after a failure. A refused dial on loopback costs microseconds.
     */
    private static final long FIRST_REDIAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long REDIAL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * A dial whose SYN got no answer in this long on a table that is opening is dropped and dialled again: the kernel
     * would retransmit the SYN only after 1 s and then 3 s more, longer than a later view's whole connect timeout.
     */
    private static final long CONNECT_STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * A dial that connected but got no challenge in this long (from the dial) is dropped and dialled again: the
     * acceptor answers at once, and a stalled handshake would otherwise wait out the handshake deadline, as long as a
     * view's whole connect timeout (NativeMemoryTest saw two members never connect in a view, with no error). Not
     * once this side has sent its signed dial: the acceptor may have taken the connection already, and dropping it
     * then makes the acceptor see this member fail before the view opens (chaos, seed 404, on a loaded host: the
     * accept took over a second, the dialler dialled again, and every redial was refused for a member already failed).
     */
    private static final long ANSWER_STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);
    private static final int MAX_HANDSHAKING = 64;

    private final TransportContext context;
    private final WeftConfig config;
    private final TcpOptions options;
    /** This member's hello (unsigned): what every peer's must match. */
    private final Hello mine;
    private final int myRank;
    private final Selector selector;
    private final ServerSocketChannel server;
    private final TcpConnection[] connections;
    private final boolean[] frozen;
    private final boolean[] resolved;
    private final BooleanSupplier opened;
    private final IntConsumer resolve;
    private final BeatLane beats;
    private final long[] redialAt;
    private final long[] redialDelay;
    private final Set<TcpConnection> handshaking = new HashSet<>();
    private volatile String lastRefusal;

    Handshakes(final TransportContext context, final Selector selector, final ServerSocketChannel server,
        final TcpConnection[] connections, final boolean[] frozen, final boolean[] resolved,
        final BooleanSupplier opened, final IntConsumer resolve, final BeatLane beats)
    {
        this.context = context;
        this.config = context.config();
        this.options = config.transport().tcp();
        this.myRank = context.myRank();
        this.mine = Hello.hello(context.layout().checksum(), context.rows(), context.layout().rowSize(),
            config.memberId(), myRank, beats.port(), config.group().name());
        this.beats = beats;
        this.selector = selector;
        this.server = server;
        this.connections = connections;
        this.frozen = frozen;
        this.resolved = resolved;
        this.opened = opened;
        this.resolve = resolve;
        this.redialAt = new long[context.rows()];
        this.redialDelay = new long[context.rows()];
        java.util.Arrays.fill(redialDelay, FIRST_REDIAL_NANOS);
    }

    /** The last refusal a peer sent us while opening, for the connect-timeout error. */
    String lastRefusal()
    {
        return lastRefusal;
    }

    /** Forgets a connection lost during its handshake; true if it was one (an outbound one is dialled again). */
    boolean forget(final TcpConnection c)
    {
        if (!handshaking.remove(c))
        {
            return false;
        }
        if (c.outbound && c.peerRank >= 0)
        {
            redialSoon(c.peerRank);
        }
        return true;
    }

    void closeAll()
    {
        for (final TcpConnection c : handshaking)
        {
            c.close("transport closed");
        }
        handshaking.clear();
    }

    /** Accepts pending connections; each must complete its handshake within the deadline. */
    void accept()
    {
        try
        {
            SocketChannel ch;
            while ((ch = server.accept()) != null)
            {
                if (handshaking.size() >= MAX_HANDSHAKING)
                {
                    LOG.warn("refused connection from {}: too many connections in handshake", ch.getRemoteAddress());
                    ch.close();
                    continue;
                }
                configure(ch);
                final TcpConnection c = new TcpConnection(ch, ch.getRemoteAddress(), false, sendBufferBytes(),
                    recvBufferBytes(), System.nanoTime() + HANDSHAKE_TIMEOUT_NANOS);
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
                handshaking.add(c);
                c.nonce = Hello.freshNonce();
                try
                {
                    c.sendHandshake(Hello.challenge(c.nonce)); // the acceptor speaks first
                }
                catch (final IOException ex)
                {
                    handshaking.remove(c);
                    c.close("challenge failed: " + ex.getMessage());
                }
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("accept failed: {}", ex.toString());
        }
    }

    /** While the table opens: dials every lower rank not connected yet, at most once per redial period. */
    void dialDue()
    {
        if (opened.getAsBoolean())
        {
            return;
        }
        final long now = System.nanoTime();
        for (int r = 0; r < myRank; r++)
        {
            if (!resolved[r] && connections[r] == null && now >= redialAt[r] && !dialing(r))
            {
                dial(r);
            }
        }
    }

    /** How long the selector may sleep before a dial falls due, in ms (1..50); 50 once the table is open. */
    long dialWaitMillis()
    {
        if (opened.getAsBoolean())
        {
            return TimeUnit.NANOSECONDS.toMillis(REDIAL_NANOS);
        }
        final long now = System.nanoTime();
        long wait = REDIAL_NANOS;
        for (int r = 0; r < myRank; r++)
        {
            if (!resolved[r] && connections[r] == null && !dialing(r))
            {
                wait = Math.min(wait, redialAt[r] - now);
            }
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait));
    }

    /** Dials {@code rank} again after its current delay, and doubles the delay for the next failure. */
    private void redialSoon(final int rank)
    {
        redialAt[rank] = System.nanoTime() + redialDelay[rank];
        redialDelay[rank] = Math.min(REDIAL_NANOS, 2 * redialDelay[rank]);
    }

    private boolean dialing(final int rank)
    {
        for (final TcpConnection c : handshaking)
        {
            if (c.outbound && c.peerRank == rank)
            {
                return true;
            }
        }
        return false;
    }

    private void dial(final int rank)
    {
        final MemberAddress peer = config.group().members().get(rank);
        try
        {
            final InetSocketAddress address = HostPort.resolve(peer.host(), peer.sstPort());
            final SocketChannel ch = SocketChannel.open();
            configure(ch);
            final TcpConnection c = new TcpConnection(ch, address, true, sendBufferBytes(), recvBufferBytes(),
                System.nanoTime() + HANDSHAKE_TIMEOUT_NANOS);
            c.peerRank = rank;
            handshaking.add(c);
            if (ch.connect(address))
            {
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
                startHandshake(c);
            }
            else
            {
                c.key = ch.register(selector, SelectionKey.OP_CONNECT, c);
            }
        }
        catch (final java.net.UnknownHostException ex) // not known yet (a peer's name may come with it): again
        {
            lastRefusal = "member " + peer.id() + "'s host " + ex.getMessage();
            redialSoon(rank);
        }
        catch (final IOException ex)
        {
            redialSoon(rank);
        }
    }

    void finishDial(final TcpConnection c)
    {
        try
        {
            c.channel.finishConnect();
            c.key.interestOps(SelectionKey.OP_READ);
            startHandshake(c);
        }
        catch (final IOException ex)
        {
            // not listening yet: try again shortly, until the connect timeout
            handshaking.remove(c);
            c.close("dial failed: " + ex.getMessage());
            redialSoon(c.peerRank);
        }
    }

    /** Dialled: the acceptor speaks first, with its challenge. */
    private void startHandshake(final TcpConnection c)
    {
        c.state = TcpConnection.State.AWAIT_CHALLENGE;
    }

    private String secret()
    {
        return config.membership().secret();
    }

    /**
     * Takes the next handshake message of a connection: the challenge (dialler), the dialler's hello (acceptor) or
     * the acceptor's hello (dialler), and moves the connection on; any mismatch or failed proof refuses and closes
     * it. Returns true once it is established.
     */
    boolean handshake(final TcpConnection c) throws IOException
    {
        final Hello hello;
        try
        {
            hello = Hello.decode(c.recv);
        }
        catch (final Hello.HandshakeException ex)
        {
            refuse(c, ex.getMessage());
            return false;
        }
        if (hello.kind() == Hello.REJECT)
        {
            // the peer may still be in the previous view's table on the same port: dial again until the timeout
            final String reason = "member at " + c.remote + " refused our handshake: " + hello.reason();
            LOG.info("{}; dialling again", reason);
            lastRefusal = reason;
            handshaking.remove(c);
            c.close(reason);
            redialSoon(c.peerRank);
            return false;
        }
        if (c.state == TcpConnection.State.AWAIT_CHALLENGE)
        {
            if (hello.kind() != Hello.CHALLENGE)
            {
                refuse(c, "expected a challenge, got handshake kind " + hello.kind());
                return false;
            }
            c.challenge = hello.nonce();
            c.nonce = Hello.freshNonce();
            c.state = TcpConnection.State.AWAIT_REPLY;
            c.sendHandshake(mine.signed(secret(), Hello.DIAL, c.nonce, hello.nonce()));
            return false;
        }
        if (hello.kind() != Hello.HELLO)
        {
            refuse(c, "expected a hello, got handshake kind " + hello.kind());
            return false;
        }
        if (!hello.verifies(secret(), c.outbound ? Hello.ACCEPT : Hello.DIAL, c.nonce))
        {
            final String problem = "authentication failed: the peer does not prove it knows weft.membership.secret";
            if (c.outbound)
            {
                lastRefusal = "member at " + c.remote + ": " + problem;
                redialAt[c.peerRank] = System.nanoTime() + REDIAL_NANOS;
            }
            refuse(c, problem);
            return false;
        }
        final String problem = mismatch(hello, c);
        if (problem != null)
        {
            if (c.outbound)
            {
                lastRefusal = "member at " + c.remote + " is incompatible: " + problem;
                redialAt[c.peerRank] = System.nanoTime() + REDIAL_NANOS;
            }
            refuse(c, problem);
            return false;
        }
        final int rank = hello.rank();
        handshaking.remove(c);
        c.peerRank = rank;
        if (!c.outbound)
        {
            c.sendHandshake(mine.signed(secret(), Hello.ACCEPT, Hello.freshNonce(), hello.nonce()));
        }
        // before the state is published: a beat reads the lane's fields only on an established connection
        beats.connected(rank, peerHost(rank), hello.beatPort(), c.outbound ? c.challenge : c.nonce,
            c.outbound ? c.nonce : hello.nonce());
        c.state = TcpConnection.State.ESTABLISHED;
        connections[rank] = c;
        redialDelay[rank] = FIRST_REDIAL_NANOS;
        LOG.info("connected to member {} (rank {}) at {}", hello.memberId(), rank, c.remote);
        resolve.accept(rank);
        return true;
    }

    /** Where the member at {@code rank} sends its beats from: its configured host (loopback for a wildcard). */
    private java.net.InetAddress peerHost(final int rank) throws IOException
    {
        final java.net.InetAddress host = java.net.InetAddress.getByName(config.group().members().get(rank).host());
        return host.isAnyLocalAddress() ? java.net.InetAddress.getLoopbackAddress() : host;
    }

    private String mismatch(final Hello h, final TcpConnection c)
    {
        if (!config.group().name().equals(h.group()))
        {
            return "group '" + h.group() + "', this member is in '" + config.group().name() + "'";
        }
        if (h.layoutChecksum() != mine.layoutChecksum() || h.rows() != mine.rows() || h.rowSize() != mine.rowSize())
        {
            return "layout checksum " + Long.toHexString(h.layoutChecksum()) + " with " + h.rows() + " rows of " +
                h.rowSize() + " bytes, this member has " + Long.toHexString(mine.layoutChecksum()) + " with " +
                mine.rows() + " rows of " + mine.rowSize() + " bytes";
        }
        final int rank = config.group().rankOf(h.memberId());
        if (rank < 0 || rank != h.rank())
        {
            return "member id " + h.memberId() + " at rank " + h.rank() + " is not in this group's member list";
        }
        if (c.outbound ? rank != c.peerRank : rank <= myRank)
        {
            return c.outbound ? "expected member " + config.group().members().get(c.peerRank).id() + " at " + c.remote
                : "member " + h.memberId() + " (rank " + rank + ") must wait for this member (rank " + myRank + ") " +
                "to dial it";
        }
        if (connections[rank] != null || frozen[rank] || (opened.getAsBoolean() && !c.outbound))
        {
            return "member " + h.memberId() + " is already connected or has failed in this view";
        }
        return null;
    }

    private void refuse(final TcpConnection c, final String reason)
    {
        LOG.warn("refused connection from {}: {}", c.remote, reason);
        handshaking.remove(c);
        try
        {
            c.sendHandshake(Hello.reject(reason));
        }
        catch (final IOException ignored)
        {
            // best effort: the stranger may already be gone
        }
        c.close("refused: " + reason);
    }

    /** Drops handshakes past their deadline: a peer that trickles bytes cannot hold a slot. */
    void expire()
    {
        if (handshaking.isEmpty())
        {
            return;
        }
        final long now = System.nanoTime();
        for (final TcpConnection c : List.copyOf(handshaking))
        {
            if (c.outbound && c.state == TcpConnection.State.CONNECTING &&
                now > c.handshakeDeadline - HANDSHAKE_TIMEOUT_NANOS + CONNECT_STALL_NANOS)
            {
                handshaking.remove(c);
                c.close("no answer to the dial within " + TimeUnit.NANOSECONDS.toMillis(CONNECT_STALL_NANOS) + " ms");
                redialAt[c.peerRank] = now; // dial again at once
            }
            else if (c.outbound && c.state == TcpConnection.State.AWAIT_CHALLENGE &&
                now > c.handshakeDeadline - HANDSHAKE_TIMEOUT_NANOS + ANSWER_STALL_NANOS)
            {
                LOG.info("no handshake answer from {} within {} ms of the dial ({}); dialling again", c.remote,
                    TimeUnit.NANOSECONDS.toMillis(ANSWER_STALL_NANOS), c.state);
                handshaking.remove(c);
                c.close("no handshake answer");
                redialAt[c.peerRank] = now;
            }
            else if (now > c.handshakeDeadline && c.state != TcpConnection.State.CONNECTING)
            {
                if (c.outbound)
                {
                    handshaking.remove(c);
                    c.close("handshake timed out");
                    redialSoon(c.peerRank);
                }
                else
                {
                    refuse(c, "no complete handshake within " +
                        TimeUnit.NANOSECONDS.toSeconds(HANDSHAKE_TIMEOUT_NANOS) + "s");
                }
            }
        }
    }

    private void configure(final SocketChannel ch) throws IOException
    {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, options.noDelay());
        ch.setOption(StandardSocketOptions.SO_SNDBUF, options.socketBufferBytes());
        ch.setOption(StandardSocketOptions.SO_RCVBUF, options.socketBufferBytes());
    }

    private int sendBufferBytes()
    {
        return Math.max(options.sendBufferBytes(), 2 * (mine.rowSize() + Frame.HEADER + Frame.ID) +
            TcpConnection.HEADROOM);
    }

    private int recvBufferBytes()
    {
        return Math.max(256 * 1024, 2 * (mine.rowSize() + Frame.HEADER + Frame.ID));
    }
}

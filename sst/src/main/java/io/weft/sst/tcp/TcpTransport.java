package io.weft.sst.tcp;

import io.weft.config.MemberAddress;
import io.weft.config.TcpOptions;
import io.weft.config.WeftConfig;
import io.weft.predicates.Doorbell;
import io.weft.predicates.ParkingDoorbell;
import io.weft.sst.RowCopy;
import io.weft.sst.Sst;
import io.weft.sst.SstTransport;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The tcp transport: pure Java NIO, one ordered connection per member pair (the higher rank dials the lower).
 *
 * <ul>
 *     <li>Handshake first: both ends exchange a {@link Hello} (magic, version, group, member id and rank, layout
 *     checksum); anything that does not match is refused with a logged reason and never touches the table.</li>
 *     <li>Then frames ({@link Frame}): each is bounds-checked against the row before it is applied to the sender's
 *     row of the local table, in arrival order, with {@link RowCopy} (the ordering contract).</li>
 *     <li>One selector thread accepts, reads, applies and flushes; after each round that applied data it rings the
 *     doorbell of the predicate thread.</li>
 *     <li>Reconnect: while the table is opening, a refused dial is retried until the connect timeout. Once open, a
 *     lost connection is a member failure, reported to the failure listener and never silently re-established:
 *     a member rejoins through a new view (membership), with a fresh table.</li>
 *     <li>Teardown: {@link #close()} closes every connection; peers observe this member as failed.</li>
 * </ul>
 */
public final class TcpTransport implements SstTransport
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
    private static final long HANDSHAKE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long REDIAL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int MAX_HANDSHAKING = 64;
    private static final java.lang.invoke.VarHandle LAST_HEARD =
        java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);

    private final TransportContext context;
    private final WeftConfig config;
    private final TcpOptions options;
    private final int rows;
    private final int myRank;
    private final int rowSize;
    private final long myRowOffset;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment table;
    private final ParkingDoorbell doorbell = new ParkingDoorbell();
    private final Selector selector;
    private final ServerSocketChannel server;
    private final TcpConnection[] connections;
    private final boolean[] frozen;
    private final boolean[] resolved;
    private final long[] redialAt;
    private final Set<TcpConnection> handshaking = new HashSet<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread ioThread;
    private final long writeWaitNanos;
    private final long[] lastHeard;
    private final Object openLock = new Object();
    private volatile boolean opened;
    private volatile boolean running = true;
    private String fatal;
    private volatile String lastRefusal;

    private TcpTransport(final TransportContext context) throws IOException
    {
        this.context = context;
        this.config = context.config();
        this.options = config.transport().tcp();
        this.rows = context.rows();
        this.myRank = context.myRank();
        this.rowSize = context.layout().rowSize();
        this.myRowOffset = (long)myRank * rowSize;
        // a peer that takes nothing for a failure timeout is treated as failed rather than hold up the pusher
        this.writeWaitNanos = config.failure().failureTimeout().toNanos();
        this.table = arena.allocate((long)rows * rowSize, 64);
        Sst.initialize(table, context.layout(), rows);
        this.connections = new TcpConnection[rows];
        this.frozen = new boolean[rows];
        this.resolved = new boolean[rows];
        this.redialAt = new long[rows];
        this.lastHeard = new long[rows];
        java.util.Arrays.fill(lastHeard, Long.MIN_VALUE);
        this.selector = Selector.open();
        final MemberAddress me = config.group().members().get(myRank);
        this.server = ServerSocketChannel.open();
        try
        {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(me.host(), me.sstPort()));
        }
        catch (final IOException ex)
        {
            server.close();
            selector.close();
            throw new TransportException("cannot listen on " + me.host() + ":" + me.sstPort() + " (member " + me.id() +
                "'s sst-port): " + ex.getMessage() + "; is another process using the port?", ex);
        }
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.ioThread = Thread.ofPlatform().name("weft-tcp-" + me.id()).daemon(true).unstarted(this::run);
    }

    /** Listens, dials the lower ranks, and waits up to the connect timeout until every peer completed the handshake. */
    public static TcpTransport open(final TransportContext context)
    {
        final TcpTransport transport;
        try
        {
            transport = new TcpTransport(context);
        }
        catch (final IOException ex)
        {
            throw new TransportException("cannot open the tcp transport: " + ex.getMessage(), ex);
        }
        transport.resolved[transport.myRank] = true;
        transport.ioThread.start();
        try
        {
            transport.awaitOpen();
        }
        catch (final RuntimeException ex)
        {
            transport.close();
            throw ex;
        }
        return transport;
    }

    private void awaitOpen()
    {
        final long deadline = System.nanoTime() + config.transport().connectTimeout().toNanos();
        synchronized (openLock)
        {
            while (fatal == null && !allResolved())
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    final List<Integer> missing = new ArrayList<>();
                    for (int r = 0; r < rows; r++)
                    {
                        if (!resolved[r])
                        {
                            missing.add(config.group().members().get(r).id());
                        }
                    }
                    final String why = "timed out after " + config.transport().connectTimeout() +
                        " waiting for members " + missing + " of group " + config.group().name() + " to connect" +
                        (lastRefusal == null ? "" : "; last refusal: " + lastRefusal);
                    if (!context.tolerateMissing())
                    {
                        throw new TransportException(why);
                    }
                    for (int r = 0; r < rows; r++)
                    {
                        if (!resolved[r])
                        {
                            resolved[r] = true;
                            context.failures().onMemberFailure(r, why);
                        }
                    }
                    break;
                }
                try
                {
                    openLock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new TransportException("interrupted while opening the tcp transport");
                }
            }
            if (fatal != null)
            {
                throw new TransportException(fatal);
            }
            opened = true;
        }
        LOG.info("tcp table of group {} open: member {} rank {}, {} rows of {} bytes", config.group().name(),
            config.memberId(), myRank, rows, rowSize);
    }

    private boolean allResolved()
    {
        for (final boolean r : resolved)
        {
            if (!r)
            {
                return false;
            }
        }
        return true;
    }

    private void resolve(final int rank)
    {
        synchronized (openLock)
        {
            resolved[rank] = true;
            openLock.notifyAll();
        }
    }

    private void openFailed(final String reason)
    {
        synchronized (openLock)
        {
            if (fatal == null)
            {
                fatal = reason;
            }
            openLock.notifyAll();
        }
    }

    @Override
    public MemorySegment table()
    {
        return table;
    }

    @Override
    public void post(final int rowOffset, final int length, final int[] targets)
    {
        append(rowOffset, length, targets, writeWaitNanos);
    }

    @Override
    public void offer(final int rowOffset, final int length, final int[] targets)
    {
        append(rowOffset, length, targets, 0);
        flush();
    }

    private void append(final int rowOffset, final int length, final int[] targets, final long waitNanos)
    {
        for (final int t : targets)
        {
            final TcpConnection c = connections[t];
            if (c != null && !frozen[t] &&
                c.push(table, myRowOffset + rowOffset, rowOffset, length, null, waitNanos) == TcpConnection.Append.CLOSED)
            {
                report(c);
            }
        }
    }

    /** One write per connection for everything posted since the last flush. */
    @Override
    public void flush()
    {
        for (final TcpConnection c : connections)
        {
            if (c != null && c.state == TcpConnection.State.ESTABLISHED && !c.flushPending())
            {
                report(c);
            }
        }
    }

    @Override
    public CompletableFuture<Void> pushTracked(final int rowOffset, final int length, final int[] targets)
    {
        final List<CompletableFuture<Void>> all = new ArrayList<>(targets.length);
        for (final int t : targets)
        {
            final TcpConnection c = connections[t];
            if (c == null || frozen[t])
            {
                all.add(CompletableFuture.failedFuture(new TransportException("member at rank " + t + " has failed")));
                continue;
            }
            final CompletableFuture<Void> done = new CompletableFuture<>();
            if (c.push(table, myRowOffset + rowOffset, rowOffset, length, done, writeWaitNanos) != TcpConnection.Append.APPENDED
                || !c.flushPending())
            {
                report(c);
                done.completeExceptionally(new TransportException("member at rank " + t + " has failed"));
            }
            all.add(done);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /** A pusher found a connection broken: the selector thread, which owns connection state, handles it. */
    private void report(final TcpConnection c)
    {
        final String reason = c.closeReason() == null ? "connection closed" : c.closeReason();
        tasks.add(() -> failed(c, reason));
        selector.wakeup();
    }

    @Override
    public long lastHeardNanos(final int rank)
    {
        return (long)LAST_HEARD.getAcquire(lastHeard, rank);
    }

    @Override
    public void freeze(final int rank)
    {
        frozen[rank] = true;
        tasks.add(() ->
        {
            final TcpConnection c = connections[rank];
            if (c != null)
            {
                c.close("frozen");
            }
        });
        selector.wakeup();
    }

    @Override
    public Doorbell doorbell()
    {
        return doorbell;
    }

    @Override
    public void close()
    {
        if (!running)
        {
            return;
        }
        running = false;
        selector.wakeup();
        try
        {
            ioThread.join(TimeUnit.SECONDS.toMillis(10));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    // ---- selector thread --------------------------------------------------------------------------------------

    private void run()
    {
        try
        {
            while (running)
            {
                dialDue();
                selector.select(50);
                Runnable task;
                while ((task = tasks.poll()) != null)
                {
                    task.run();
                }
                boolean applied = false;
                for (final SelectionKey key : selector.selectedKeys())
                {
                    applied |= handle(key);
                }
                selector.selectedKeys().clear();
                expireHandshakes();
                if (applied)
                {
                    doorbell.ring();
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            if (running)
            {
                LOG.error("tcp selector thread failed", ex);
                openFailed("tcp selector thread failed: " + ex);
            }
        }
        finally
        {
            shutdown();
        }
    }

    private boolean handle(final SelectionKey key)
    {
        if (!key.isValid())
        {
            return false;
        }
        if (key.channel() == server)
        {
            accept();
            return false;
        }
        final TcpConnection c = (TcpConnection)key.attachment();
        try
        {
            if (key.isConnectable())
            {
                finishDial(c);
                return false;
            }
            boolean applied = false;
            if (key.isReadable())
            {
                applied = read(c);
            }
            if (key.isValid() && key.isWritable() && c.state != TcpConnection.State.CLOSED)
            {
                c.flush();
            }
            return applied;
        }
        catch (final IOException ex)
        {
            failed(c, ex.getMessage() == null ? ex.toString() : ex.getMessage());
            return false;
        }
    }

    private void accept()
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
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("accept failed: {}", ex.toString());
        }
    }

    private void dialDue()
    {
        if (opened)
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
        final InetSocketAddress address = new InetSocketAddress(peer.host(), peer.sstPort());
        try
        {
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
        catch (final IOException ex)
        {
            redialAt[rank] = System.nanoTime() + REDIAL_NANOS;
        }
    }

    private void finishDial(final TcpConnection c)
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
            c.release();
            redialAt[c.peerRank] = System.nanoTime() + REDIAL_NANOS;
        }
    }

    private void startHandshake(final TcpConnection c) throws IOException
    {
        c.state = TcpConnection.State.AWAIT_REPLY;
        c.sendHandshake(myHello());
    }

    private Hello myHello()
    {
        return Hello.hello(context.layout().checksum(), rows, rowSize, config.memberId(), myRank, config.group().name());
    }

    private boolean read(final TcpConnection c) throws IOException
    {
        final int n = c.channel.read(c.recv);
        if (n < 0)
        {
            failed(c, "connection closed by peer");
            return false;
        }
        if (n > 0 && c.state == TcpConnection.State.ESTABLISHED)
        {
            LAST_HEARD.setRelease(lastHeard, c.peerRank, System.nanoTime()); // read by the failure detector
        }
        c.recv.flip();
        boolean applied = false;
        try
        {
            if (c.state == TcpConnection.State.AWAIT_HELLO || c.state == TcpConnection.State.AWAIT_REPLY)
            {
                if (c.recv.remaining() < Hello.SIZE)
                {
                    return false;
                }
                if (!handshake(c))
                {
                    return false;
                }
            }
            applied = frames(c);
        }
        finally
        {
            if (c.state != TcpConnection.State.CLOSED)
            {
                c.recv.compact();
            }
        }
        return applied;
    }

    /** Validates the peer's hello; returns false (connection refused and closed) on any mismatch. */
    private boolean handshake(final TcpConnection c) throws IOException
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
            c.release();
            redialAt[c.peerRank] = System.nanoTime() + REDIAL_NANOS;
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
            c.sendHandshake(myHello());
        }
        c.state = TcpConnection.State.ESTABLISHED;
        connections[rank] = c;
        LOG.info("connected to member {} (rank {}) at {}", hello.memberId(), rank, c.remote);
        resolve(rank);
        return true;
    }

    private String mismatch(final Hello h, final TcpConnection c)
    {
        if (!config.group().name().equals(h.group()))
        {
            return "group '" + h.group() + "', this member is in '" + config.group().name() + "'";
        }
        if (h.layoutChecksum() != context.layout().checksum() || h.rows() != rows || h.rowSize() != rowSize)
        {
            return "layout checksum " + Long.toHexString(h.layoutChecksum()) + " with " + h.rows() + " rows of " +
                h.rowSize() + " bytes, this member has " + Long.toHexString(context.layout().checksum()) + " with " +
                rows + " rows of " + rowSize + " bytes";
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
        if (connections[rank] != null || frozen[rank] || (opened && !c.outbound))
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
        c.release();
    }

    /** Applies every complete frame in the receive buffer. Returns true if any push was applied. */
    private boolean frames(final TcpConnection c) throws IOException
    {
        final ByteBuffer in = c.recv;
        final long rowBase = (long)c.peerRank * rowSize;
        boolean applied = false;
        long ack = -1;
        while (in.remaining() >= Frame.HEADER && c.state == TcpConnection.State.ESTABLISHED)
        {
            final int at = in.position();
            final byte type = in.get(at);
            final int length = in.getInt(at + 4);
            final int offset = in.getInt(at + 8);
            final String problem = check(type, length, offset);
            if (problem != null)
            {
                LOG.warn("refused frame from member at rank {} ({}): {}; closing the connection", c.peerRank, c.remote,
                    problem);
                failed(c, "sent an invalid frame: " + problem);
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
                case Frame.ACK -> c.acked(in.getLong(at + Frame.HEADER));
                case Frame.PUSH_TRACKED ->
                {
                    RowCopy.copy(c.recvSegment, at + header, table, rowBase + offset, length);
                    ack = in.getLong(at + Frame.HEADER);
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
            c.owesAck(ack);
        }
        return applied;
    }

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

    private void expireHandshakes()
    {
        if (handshaking.isEmpty())
        {
            return;
        }
        final long now = System.nanoTime();
        for (final TcpConnection c : List.copyOf(handshaking))
        {
            if (now > c.handshakeDeadline && c.state != TcpConnection.State.CONNECTING)
            {
                if (c.outbound)
                {
                    handshaking.remove(c);
                    c.close("handshake timed out");
                    c.release();
                    redialAt[c.peerRank] = now + REDIAL_NANOS;
                }
                else
                {
                    refuse(c, "no complete handshake within " + TimeUnit.NANOSECONDS.toSeconds(HANDSHAKE_TIMEOUT_NANOS) + "s");
                }
            }
        }
    }

    /** A connection broke or misbehaved: close it and report its member, once. */
    private void failed(final TcpConnection c, final String reason)
    {
        final int rank = c.peerRank;
        final boolean established = c.state == TcpConnection.State.ESTABLISHED || connections[rank < 0 ? 0 : rank] == c;
        c.close(reason);
        if (handshaking.remove(c))
        {
            // lost before the handshake completed (for instance the peer's previous view closed its listener)
            c.release();
            if (c.outbound && rank >= 0)
            {
                redialAt[rank] = System.nanoTime() + REDIAL_NANOS;
            }
            return;
        }
        if (rank >= 0 && established && connections[rank] == c && running && !frozen[rank])
        {
            frozen[rank] = true;
            resolve(rank);
            context.failures().onMemberFailure(rank, "connection to " + c.remote + ": " + reason);
        }
    }

    private void shutdown()
    {
        for (final TcpConnection c : connections)
        {
            if (c != null)
            {
                c.close("transport closed");
            }
        }
        for (final TcpConnection c : handshaking)
        {
            c.close("transport closed");
        }
        try
        {
            server.close();
            selector.close();
        }
        catch (final IOException ex)
        {
            LOG.debug("closing selector", ex);
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
        return Math.max(options.sendBufferBytes(), 2 * (rowSize + Frame.HEADER + Frame.ID) + TcpConnection.HEADROOM);
    }

    private int recvBufferBytes()
    {
        return Math.max(256 * 1024, 2 * (rowSize + Frame.HEADER + Frame.ID));
    }
}

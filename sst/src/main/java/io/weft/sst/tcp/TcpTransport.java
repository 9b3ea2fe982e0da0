package io.weft.sst.tcp;

import io.weft.config.MemberAddress;
import io.weft.config.TcpOptions;
import io.weft.config.WeftConfig;
import io.weft.config.Doorbell;
import io.weft.config.ParkingDoorbell;
import io.weft.config.PassHost;
import io.weft.sst.HostedPasses;
import io.weft.sst.HostPort;
import io.weft.sst.Sst;
import io.weft.sst.SstTransport;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The tcp transport: pure Java NIO, one ordered connection per member pair (the higher rank dials the lower).
 *
 * <ul>
 *     <li>Connecting and the handshake ({@link Handshakes}): anything that does not match is refused with a logged
 *     reason and never touches the table.</li>
 *     <li>Then frames ({@link FrameDecoder}): each is bounds-checked against the row before it is applied to the
 *     sender's row of the local table, in arrival order (the ordering contract).</li>
 *     <li>One selector thread accepts, reads, applies and flushes; after each round that applied data it rings the
 *     doorbell of the predicate thread. It alone changes connection state: pushers that find a connection broken
 *     report it through its task queue. With {@code threading = merged} it runs the predicate passes itself
 *     between its rounds ({@link HostedPasses}) and, idle, sleeps in select.</li>
 *     <li>Pushers append frames to a connection's send buffer and wait at most a failure timeout for room; heartbeats
 *     never wait ({@link #offer}); arriving bytes are a sign of life ({@link #lastHeardNanos}), and so are beats,
 *     udp datagrams beside the connection that nothing queued on it can delay ({@link BeatLane}).</li>
 *     <li>Reconnect: while the table is opening, a refused dial is retried until the connect timeout. Once open, a
 *     lost connection is a member failure, reported to the failure listener and never silently re-established:
 *     a member rejoins through a new view (membership), with a fresh table.</li>
 *     <li>Teardown: {@link #close()} closes every connection; peers observe this member as failed. So does the
 *     selector thread's own failure, which it reports to this member too ({@link TransportContext#threadFailed}).</li>
 * </ul>
 */
public final class TcpTransport implements SstTransport
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
    private static final java.lang.invoke.VarHandle LAST_HEARD =
        java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);

    private final TransportContext context;
    private final WeftConfig config;
    private final TcpOptions options;
    private final int rows;
    private final int myRank;
    private final int rowSize;
    private final long myRowOffset;
    /**
     * Freed by the garbage collector once the table is unreachable (no view keeps it): readers never meet freed memory.
     */
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment table;
    private final Doorbell doorbell;
    private final Selector selector;
    private final ServerSocketChannel server;
    private final TcpConnection[] connections;
    private final boolean[] frozen;
    private final OpenBarrier open;
    private final Handshakes handshakes;
    private final FrameDecoder decoder;
    private final BeatLane beats;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final java.util.function.BooleanSupplier tasksQueued = () -> !tasks.isEmpty();
    private final Thread ioThread;
    /** The predicate passes this thread runs between its rounds; null unless {@code threading} is merged. */
    private final HostedPasses hosted;
    private final Runnable readWhileFull = this::readWhileFull;
    private boolean inRound; // selector thread only
    private final long writeWaitNanos;
    private final long heartbeatNanos;
    private final long[] lastHeard;
    private volatile boolean running = true;

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
        this.heartbeatNanos = config.failure().heartbeatInterval().toNanos();
        this.table = arena.allocate((long)rows * rowSize, 64);
        Sst.initialize(table, context.layout(), rows);
        this.connections = new TcpConnection[rows];
        this.frozen = new boolean[rows];
        this.lastHeard = new long[rows];
        java.util.Arrays.fill(lastHeard, Long.MIN_VALUE);
        this.selector = Selector.open();
        final MemberAddress me = config.group().members().get(myRank);
        this.server = ServerSocketChannel.open();
        try
        {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(HostPort.resolve(me.host(), me.sstPort()));
        }
        catch (final IOException ex)
        {
            server.close();
            selector.close();
            throw new TransportException(HostPort.cannotListen(me.host(), me.sstPort(), me.id(), "sst-port", ex), ex);
        }
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.beats = new BeatLane(me.host(), myRank, rows, () ->
        {
            server.close();
            selector.close();
        });
        beats.register(selector);
        this.open = new OpenBarrier(context);
        this.handshakes = new Handshakes(context, selector, server, connections, frozen, open.resolved(), open::isOpen,
            open::resolve, beats);
        this.decoder = new FrameDecoder(table, rowSize, frozen, this::failed);
        this.ioThread = Thread.ofPlatform().name("weft-tcp-" + me.id()).daemon(true).unstarted(this::run);
        final boolean merged = options.threading().merged();
        this.doorbell = merged ? new SelectorDoorbell(selector, ioThread) : new ParkingDoorbell();
        this.hosted = merged ? new HostedPasses(ioThread, doorbell, selector::wakeup) : null;
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
        transport.ioThread.start();
        try
        {
            transport.open.await(transport.handshakes::lastRefusal);
        }
        catch (final RuntimeException ex)
        {
            transport.close();
            throw ex;
        }
        LOG.info("tcp table of group {} open: member {} rank {}, {} rows of {} bytes", transport.config.group().name(),
            transport.config.memberId(), transport.myRank, transport.rows, transport.rowSize);
        return transport;
    }

    @Override
    public MemorySegment table()
    {
        return table;
    }

    @Override
    public void post(final int rowOffset, final int length, final int[] targets)
    {
        ensureOpen();
        append(rowOffset, length, targets, writeWaitNanos);
    }

    @Override
    public void offer(final int rowOffset, final int length, final int[] targets)
    {
        if (!running)
        {
            return; // a heartbeat that raced close(): the next one would supersede it anyway
        }
        append(rowOffset, length, targets, 0);
        writeQueued();
    }

    /** A push begun after {@link #close()} is refused, as on the other transports, rather than dropped unsent. */
    private void ensureOpen()
    {
        if (!running)
        {
            throw new IllegalStateException("the tcp table of member " + config.memberId() + " is closed");
        }
    }

    private void append(final int rowOffset, final int length, final int[] targets, final long waitNanos)
    {
        for (final int t : targets)
        {
            final TcpConnection c = connections[t];
            if (c != null && !frozen[t] &&
                c.push(table, myRowOffset + rowOffset, rowOffset, length, null, waitNanos,
                    whileFull()) == TcpConnection.Append.CLOSED)
            {
                report(c);
            }
        }
    }

    /** One write per connection for everything posted since the last flush. */
    @Override
    public void flush()
    {
        ensureOpen();
        writeQueued();
    }

    private void writeQueued()
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
        ensureOpen();
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
            if (c.push(table, myRowOffset + rowOffset, rowOffset, length, done, writeWaitNanos,
                whileFull()) != TcpConnection.Append.APPENDED
                || !c.flushPending())
            {
                report(c);
                done.completeExceptionally(new TransportException("member at rank " + t + " has failed"));
            }
            all.add(done);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /** On the selector thread (a hosted pass) a push waiting for room reads meanwhile; other pushers just wait. */
    private Runnable whileFull()
    {
        return hosted != null && !inRound && hosted.inPass() ? readWhileFull : null;
    }

    /** A pusher found a connection broken: the selector thread, which owns connection state, handles it. */
    private void report(final TcpConnection c)
    {
        final String reason = c.closeReason() == null ? "connection closed" : c.closeReason();
        tasks.add(() -> failed(c, reason));
        selector.wakeup();
    }

    /** A udp datagram per target, beside the connection: it never queues behind data ({@link BeatLane}). */
    @Override
    public void beat(final int[] targets)
    {
        beats.beat(targets, connections);
    }

    @Override
    public long lastHeardNanos(final int rank)
    {
        if (hosted != null)
        {
            final long now = System.nanoTime();
            if (hosted.passLongerThan(now, heartbeatNanos))
            {
                return now; // a long pass (a slow delivery callback) keeps this thread from reading: no evidence
            }
        }
        return (long)LAST_HEARD.getAcquire(lastHeard, rank);
    }

    @Override
    public boolean copiesWhenPosted()
    {
        return true;
    }

    @Override
    public PassHost passHost()
    {
        return hosted;
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
        if (Thread.currentThread() == ioThread)
        {
            return; // closed from a hosted pass: the loop ends after it and shuts down
        }
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
                handshakes.dialDue();
                final boolean hosting = hosted != null && hosted.hosting();
                if (!hosting)
                {
                    selector.select(handshakes.dialWaitMillis());
                }
                else if (hosted.run() > 0 || !tasks.isEmpty())
                {
                    selector.selectNow();
                }
                else
                {
                    idle();
                }
                // passes this thread does not run (a predicate thread, an invoker, the rdma control's) must be woken
                if (round() && !hosting)
                {
                    doorbell.ring();
                }
            }
        }
        catch (final Throwable ex) // an Error too (a failure listener's): the member must not go on cut off
        {
            if (running)
            {
                LOG.error("tcp selector thread failed", ex);
                open.fail("tcp selector thread failed: " + ex);
                context.threadFailed().accept(ex);
            }
        }
        finally
        {
            shutdown();
        }
    }

    /** After a hosted pass found nothing to do: waits as the passes' idle settings say, asleep in select. */
    private void idle() throws IOException
    {
        if (!hosted.idle(tasksQueued, Long.MAX_VALUE))
        {
            selector.selectNow();
        }
    }

    /** Runs the queued tasks and handles the selected keys; true if data was applied to the table. */
    private boolean round()
    {
        inRound = true; // a push from a failure listener run here waits rather than nest a round
        try
        {
            return roundBody();
        }
        finally
        {
            inRound = false;
        }
    }

    private boolean roundBody()
    {
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
        handshakes.expire();
        return applied;
    }

    /** A hosted pass waits for room in a send buffer: read meanwhile, for the peer may be waiting for us to read. */
    private void readWhileFull()
    {
        try
        {
            selector.select(1);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("select failed", ex);
        }
        round();
    }

    private boolean handle(final SelectionKey key)
    {
        if (!key.isValid())
        {
            return false;
        }
        if (key.channel() == server)
        {
            handshakes.accept();
            return false;
        }
        if (key.attachment() == beats)
        {
            try
            {
                beats.receive(connections, this::heard);
            }
            catch (final IOException ex)
            {
                LOG.warn("heartbeat socket: {}", ex.toString());
            }
            return false;
        }
        final TcpConnection c = (TcpConnection)key.attachment();
        try
        {
            if (key.isConnectable())
            {
                handshakes.finishDial(c);
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
            heard(c.peerRank);
        }
        c.recv.flip();
        boolean applied = false;
        try
        {
            while (c.state.handshaking())
            {
                if (c.recv.remaining() < Hello.SIZE)
                {
                    return false;
                }
                handshakes.handshake(c); // advances the state, or refuses and closes the connection
            }
            applied = decoder.apply(c);
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

    /** Bytes or a beat from {@code rank} arrived: a sign of life, read by the failure detector. */
    private void heard(final int rank)
    {
        LAST_HEARD.setRelease(lastHeard, rank, System.nanoTime());
    }

    /** A connection broke or misbehaved: close it and report its member, once. */
    private void failed(final TcpConnection c, final String reason)
    {
        final int rank = c.peerRank;
        final boolean established = c.state == TcpConnection.State.ESTABLISHED || connections[rank < 0 ? 0 : rank] == c;
        c.close(reason);
        if (handshakes.forget(c))
        {
            return; // lost before the handshake completed (for instance the peer's previous view closed its listener)
        }
        if (rank >= 0 && established && connections[rank] == c && running && !frozen[rank])
        {
            frozen[rank] = true;
            open.resolve(rank);
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
        handshakes.closeAll();
        beats.close();
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
}

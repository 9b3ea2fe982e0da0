package io.weft.sst.rdma;

import io.weft.config.MemberAddress;
import io.weft.config.RdmaOptions;
import io.weft.config.WeftConfig;
import io.weft.config.Doorbell;
import io.weft.sst.Sst;
import io.weft.sst.SstTransport;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The table over one-sided RDMA writes, through libfabric ({@link FabricEndpoint}) or libibverbs
 * ({@link VerbsEndpoint}, one RC queue pair per peer): weft.transport.rdma.backend. A push is a write of the range of
 * my row into the same range of each target's registered table.
 *
 * <ul>
 *     <li>Set-up and liveness go over a small tcp table on the member's sst-port ({@link RdmaControl}): after its
 *     handshake every member publishes its backend, address (libfabric endpoint name; verbs LID, GID and queue-pair
 *     numbers), table base and, per peer, the key of the row that peer writes into (every row is registered on its
 *     own); losing that connection is a member failure, like an error completion of a write to it.</li>
 *     <li>Freezing a member withdraws its row's registration here, so its later writes fail at its end and land
 *     nowhere: a suspected member that still runs cannot change what the view change reads of it.</li>
 *     <li>Ordering (payload before guard): libfabric endpoints are opened with FI_ORDER_WAW (a provider without it is
 *     refused at set-up); an RC queue pair executes its writes in order. Either way writes from one member to one
 *     target land in the order they were posted.</li>
 *     <li>Wake-up: {@link #flush()} waits until its writes have completed (libfabric FI_DELIVERY_COMPLETE: visible
 *     at the target; verbs: the completion of the last write to each target, acknowledged by the target's NIC), then
 *     bumps a ring counter in the control table of each target it wrote to, which rings the target's doorbell. (With
 *     hardware, remote CQ data or write-with-immediate would do this without the control channel; not built.)</li>
 *     <li>Progress: a progress thread reaps completions and, for MANUAL-progress providers such as tcp;ofi_rxm and
 *     shm, is what makes peers' writes land here; it backs off to parking when idle.</li>
 * </ul>
 */
public final class RdmaTransport implements SstTransport
{
    private static final Logger LOG = LoggerFactory.getLogger(RdmaTransport.class);
    private static final long FLUSH_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long POST_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long SLOW_FLUSH_MICROS = 2_000;

    private final TransportContext context;
    private final int rows;
    private final int myRank;
    private final long rowSize;
    private final long myRowOffset;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment table;
    private final RdmaEndpoint endpoint;
    private final RdmaControl control;
    private final long[] peerKey;
    private final long[] peerBase;
    private final boolean[] frozen;
    private final boolean[] written;
    private final ReentrantLock fabricLock = new ReentrantLock();
    private final java.util.function.IntConsumer onWriteError = this::writeFailed;
    private final Thread progressThread;
    private volatile boolean running = true;

    private RdmaTransport(final TransportContext context)
    {
        this.context = context;
        final WeftConfig config = context.config();
        this.rows = context.rows();
        this.myRank = context.myRank();
        this.rowSize = context.layout().rowSize();
        this.myRowOffset = myRank * rowSize;
        // whole pages: what a NIC registers, and no other data shares the registered pages
        this.table = arena.allocate((rows * rowSize + 4095) & ~4095L, 4096);
        Sst.initialize(table, context.layout(), rows);
        this.peerKey = new long[rows];
        this.peerBase = new long[rows];
        this.frozen = new boolean[rows];
        this.written = new boolean[rows];
        final MemberAddress me = config.group().members().get(myRank);
        final RdmaOptions rdma = config.transport().rdma();
        try
        {
            this.endpoint = switch (rdma.backend())
            {
                // software providers other than shm bind to the member's own address (loopback or a test namespace)
                case LIBFABRIC -> new FabricEndpoint(rdma.provider(), rdma.provider().startsWith("shm") ? null :
                    me.host(), table, rows, rowSize, myRank, 0x5745_0000L + ((long)myRank << 8));
                case VERBS -> new VerbsEndpoint(rdma.verbs(), table, rows, rowSize, myRank);
            };
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
        try
        {
            this.control = new RdmaControl(context, frozen);
        }
        catch (final RuntimeException ex)
        {
            endpoint.close();
            arena.close();
            throw ex;
        }
        this.progressThread = Thread.ofPlatform().name("weft-rdma-" + me.id()).daemon(true).unstarted(this::progressLoop);
    }

    /** Opens the endpoint, exchanges addresses over the control channel and waits until every peer is known. */
    public static RdmaTransport open(final TransportContext context)
    {
        final RdmaTransport t = new RdmaTransport(context);
        try
        {
            t.control.exchange(t.endpoint, t.table.address(), t.peerKey, t.peerBase);
        }
        catch (final RuntimeException ex)
        {
            t.close();
            throw ex;
        }
        t.progressThread.start();
        LOG.info("rdma table of group {} open: member {} rank {}, {} rows of {} bytes, {}",
            context.config().group().name(), context.config().memberId(), t.myRank, t.rows, t.rowSize,
            t.endpoint.describe());
        return t;
    }

    /** Whether libfabric can be loaded here (the rdma transport needs it). */
    public static boolean libfabricInstalled()
    {
        try
        {
            Fabric.load();
            return true;
        }
        catch (final TransportException ex)
        {
            return false;
        }
    }

    /** libfabric providers of this host that can carry the table (reliable-datagram RMA); throws if none. */
    public static java.util.List<String> providers()
    {
        return FabricEndpoint.rmaProviders();
    }

    @Override
    public MemorySegment table()
    {
        return table;
    }

    @Override
    public void post(final int rowOffset, final int length, final int[] targets)
    {
        final long local = table.address() + myRowOffset + rowOffset;
        fabricLock.lock();
        try
        {
            ensureOpen();
            for (final int t : targets)
            {
                if (frozen[t])
                {
                    continue;
                }
                final long remote = remoteAddress(t, rowOffset);
                int tries = 0;
                long deadline = 0;
                while (!frozen[t] && !endpoint.write(local, length, t, remote, peerKey[t]))
                {
                    endpoint.progress(onWriteError); // the provider's queue is full: let it drain
                    if (++tries > 100)
                    {
                        // a peer that is gone never takes the write: a failure after a bound, never a hang
                        deadline = deadline == 0 ? System.nanoTime() + POST_TIMEOUT_NANOS : deadline;
                        if (System.nanoTime() > deadline)
                        {
                            frozen[t] = true;
                            context.failures().onMemberFailure(t, "rdma writes to it could not be posted for " +
                                TimeUnit.NANOSECONDS.toSeconds(POST_TIMEOUT_NANOS) + " s");
                            break;
                        }
                        yieldLock(); // a frozen target: heartbeats, its freeze and progress go on meanwhile
                        if (!running)
                        {
                            return; // closed meanwhile, as in awaitSlowly
                        }
                    }
                }
                written[t] = !frozen[t];
            }
        }
        catch (final TransportException ex)
        {
            LOG.error("rdma post failed", ex);
            throw ex;
        }
        finally
        {
            fabricLock.unlock();
        }
    }

    /**
     * Waits until every write posted so far to a live target is visible there, then rings the targets written to.
     * The wait holds the lock for {@value #SLOW_FLUSH_MICROS} us at most. Past that a target has stalled (a frozen
     * member's writes never complete), and the wait goes on without the lock ({@link #awaitSlowly}): held, it stopped
     * the heartbeats and the freeze of the stalled member, and the live members took each other for failed.
     */
    @Override
    public void flush()
    {
        fabricLock.lock();
        try
        {
            ensureOpen();
            final long start = System.nanoTime();
            for (int t = 0; t < rows; t++)
            {
                if (written[t] && !frozen[t])
                {
                    endpoint.requestCompletion(t);
                }
            }
            int spins = 0;
            while (pendingToLiveTarget() >= 0)
            {
                endpoint.progress(onWriteError);
                if (pendingToLiveTarget() < 0)
                {
                    break;
                }
                if (System.nanoTime() - start > TimeUnit.MICROSECONDS.toNanos(SLOW_FLUSH_MICROS))
                {
                    awaitSlowly(start);
                    return;
                }
                if (++spins > 50)
                {
                    Thread.yield();
                }
            }
            ring(written);
        }
        finally
        {
            fabricLock.unlock();
        }
    }

    /**
     * Under the lock, which it gives up while it parks: waits for the writes posted before now (later ones are their
     * flushers' to wait for, so a busy peer cannot keep this wait going), then rings the targets written before now.
     * A target whose writes have not completed {@code FLUSH_TIMEOUT_NANOS} after {@code start} fails.
     */
    private void awaitSlowly(final long start)
    {
        final boolean[] mine = written.clone(); // the slow path allocates: it is taken when a target has stalled
        Arrays.fill(written, false);
        final long[] awaited = new long[rows];
        for (int t = 0; t < rows; t++)
        {
            awaited[t] = endpoint.posted(t);
        }
        while (true)
        {
            int waiting = -1;
            for (int t = 0; t < rows && waiting < 0; t++)
            {
                waiting = !frozen[t] && endpoint.completed(t) < awaited[t] ? t : -1;
            }
            if (waiting < 0)
            {
                break;
            }
            if (System.nanoTime() - start > FLUSH_TIMEOUT_NANOS)
            {
                frozen[waiting] = true; // its writes stay incomplete: a failure, rather than a hang
                context.failures().onMemberFailure(waiting, "rdma writes to it not completed within 10 s");
                continue;
            }
            fabricLock.unlock();
            try
            {
                LockSupport.parkNanos(50_000);
            }
            finally
            {
                fabricLock.lock();
            }
            if (!running)
            {
                return; // closed meanwhile: the endpoint is gone, and so is the view these writes were for
            }
            endpoint.progress(onWriteError);
        }
        ring(mine);
    }

    /**
     * Under the lock, which {@link #close()} takes to close the endpoint: a write or flush begun after the close
     * would reach freed native objects (a crash, not an exception), for instance from a sender committing as its
     * group closes.
     */
    private void ensureOpen()
    {
        if (!running)
        {
            throw closed();
        }
    }

    private IllegalStateException closed()
    {
        return new IllegalStateException("the rdma table of member " + context.config().memberId() + " is closed");
    }

    /**
     * Rings {@code targets} over the control channel. {@link #close()} closes that channel before it takes the lock
     * (a ring blocked on it fails rather than holding the close up), so a flush racing the close is told that this
     * rdma table is closed, not that a tcp table is (the control channel's, which the application never opened).
     */
    private void ring(final boolean[] targets)
    {
        try
        {
            control.ring(targets);
        }
        catch (final IllegalStateException ex)
        {
            if (!running)
            {
                throw (IllegalStateException)closed().initCause(ex);
            }
            throw ex;
        }
    }

    /** Where {@code rowOffset} of my row lies at target {@code t}: my row is a registration of its own there. */
    private long remoteAddress(final int t, final int rowOffset)
    {
        return endpoint.virtualAddresses() ? peerBase[t] + myRowOffset + rowOffset : rowOffset;
    }

    /** Gives the lock up for a moment while this thread waits for a slow target. */
    private void yieldLock()
    {
        fabricLock.unlock();
        try
        {
            Thread.yield();
        }
        finally
        {
            fabricLock.lock();
        }
    }

    /**
     * A heartbeat: one write to each live target with room for it, waited for by nobody (the next one supersedes
     * it). It asks for its completion so that a later flush is not left waiting on it (selective signalling).
     */
    @Override
    public void offer(final int rowOffset, final int length, final int[] targets)
    {
        final long local = table.address() + myRowOffset + rowOffset;
        fabricLock.lock();
        try
        {
            for (final int t : targets)
            {
                if (!running)
                {
                    return; // a heartbeat that raced close(): the endpoint is gone
                }
                if (!frozen[t] && endpoint.write(local, length, t, remoteAddress(t, rowOffset), peerKey[t]))
                {
                    endpoint.requestCompletion(t);
                }
            }
            endpoint.progress(onWriteError);
        }
        finally
        {
            fabricLock.unlock();
        }
    }

    /** A live target with writes not yet complete, or -1. */
    private int pendingToLiveTarget()
    {
        for (int t = 0; t < rows; t++)
        {
            if (!frozen[t] && endpoint.outstanding(t) > 0)
            {
                return t;
            }
        }
        return -1;
    }

    private void writeFailed(final int rank)
    {
        if (!frozen[rank])
        {
            frozen[rank] = true;
            context.failures().onMemberFailure(rank, "rdma write to it completed with an error");
        }
    }

    @Override
    public CompletableFuture<Void> pushTracked(final int rowOffset, final int length, final int[] targets)
    {
        post(rowOffset, length, targets);
        flush(); // delivery complete: visible at every target that did not fail
        return SstTransport.appliedUnlessFrozen(targets, frozen);
    }

    @Override
    public void freeze(final int rank)
    {
        fabricLock.lock();
        try
        {
            frozen[rank] = true;
            endpoint.revoke(rank);
        }
        finally
        {
            fabricLock.unlock();
        }
        control.freeze(rank);
    }

    @Override
    public Doorbell doorbell()
    {
        return control.doorbell();
    }

    private void progressLoop()
    {
        long idle = 0;
        while (running)
        {
            final int before;
            fabricLock.lock();
            try
            {
                before = endpoint.outstanding();
                endpoint.progress(onWriteError);
            }
            catch (final TransportException ex)
            {
                LOG.error("rdma progress failed", ex);
                return;
            }
            finally
            {
                fabricLock.unlock();
            }
            // manual progress: peers' writes land only while this polls; poll often, park longer when idle
            idle = before > 0 ? 0 : idle + 1;
            LockSupport.parkNanos(idle < 100 ? 20_000 : 200_000);
        }
    }

    @Override
    public void close()
    {
        if (!running)
        {
            return;
        }
        running = false;
        LockSupport.unpark(progressThread);
        try
        {
            progressThread.join(5000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        control.close();
        fabricLock.lock();
        try
        {
            endpoint.close();
        }
        finally
        {
            fabricLock.unlock();
        }
        arena.close();
    }
}

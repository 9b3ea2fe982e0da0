package io.weft.sst.rdma;

import io.weft.config.MemberAddress;
import io.weft.config.RdmaOptions;
import io.weft.config.WeftConfig;
import io.weft.config.Doorbell;
import io.weft.config.PassHost;
import io.weft.sst.Sst;
import io.weft.sst.SstTransport;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 *     own); losing that connection is a member failure, like an error completion of a write to it. Its udp beats
 *     and rings are signs of life that no rdma write queued in the provider can delay ({@link #beat}).</li>
 *     <li>Freezing a member withdraws its row's registration here, so its later writes fail at its end and land
 *     nowhere: a suspected member that still runs cannot change what the view change reads of it.</li>
 *     <li>Ordering (payload before guard): libfabric endpoints are opened with FI_ORDER_WAW (a provider without it is
 *     refused at set-up); an RC queue pair executes its writes in order. Either way writes from one member to one
 *     target land in the order they were posted.</li>
 *     <li>Wake-up: where the libfabric provider carries remote CQ data, each write leaves an entry in the target's
 *     completion queue once its bytes are visible there, and the target's progress thread rings its own doorbell.
 *     Otherwise (verbs) a target is rung once the writes flushed to it have completed (the completion of the last
 *     write to it, acknowledged by the target's NIC): a ring counter in the target's control table is bumped, which
 *     rings its doorbell. Either way {@link #flush()} does not wait for its own writes' completions (libfabric
 *     FI_DELIVERY_COMPLETE: visible at the target): the progress thread counts them (and rings), so the flushing
 *     thread (the predicate thread, a committer) goes on while they are in flight; it waits for the flushes before
 *     it.</li>
 *     <li>Progress: a {@link ProgressThread} reaps completions (counting this member's, ringing targets where they
 *     are rung ({@link RingLedger}), and waking this member for peers' remote CQ data) and, for MANUAL-progress
 *     providers such as tcp;ofi_rxm and shm, is what makes peers' writes land here. With {@code threading = merged}
 *     (the default where cores are scarce) it also runs the predicate passes between its polls.</li>
 * </ul>
 */
public final class RdmaTransport implements SstTransport
{
    private static final Logger LOG = LoggerFactory.getLogger(RdmaTransport.class);
    private static final long POST_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TransportContext context;
    private final int rows;
    private final int myRank;
    private final long rowSize;
    private final long myRowOffset;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment table;
    private final RdmaEndpoint endpoint;
    private final RdmaControl control;
    private final Doorbell doorbell;
    private final long[] peerKey;
    private final long[] peerBase;
    private final boolean[] frozen;
    private final boolean[] written;
    /** Under the lock: what the flushes owe each target, and how far it has been rung. */
    private final RingLedger ledger;
    private final ReentrantLock fabricLock = new ReentrantLock();
    private final java.util.function.IntConsumer onWriteError = this::writeFailed;
    private final ProgressThread progress;
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
            this.endpoint = RdmaEndpoint.open(rdma, me, table, rows, rowSize, myRank);
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
        this.doorbell = control.doorbell();
        this.ledger = new RingLedger(endpoint, frozen, context.failures(), this::ring);
        this.progress = new ProgressThread("weft-rdma-" + me.id(), this::poll, this::progressFailed,
            rdma.threading().merged() ? doorbell : null);
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
        t.progress.start();
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
                    reapLocked(); // the provider's queue is full: let it drain
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
                            return; // closed meanwhile: the endpoint is gone
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
     * Asks for the completion of every write posted since the last flush; each target written to is owed their
     * completions (and, where targets are rung, a ring once they have completed there). Counts and rings what has
     * completed already; the progress thread does the rest. The flush waits for the flushes before it
     * ({@link #awaitEarlierFlushes}), not for itself.
     */
    @Override
    public void flush()
    {
        fabricLock.lock();
        try
        {
            ensureOpen();
            awaitEarlierFlushes();
            ensureOpen();
            final long now = System.nanoTime();
            boolean flushed = false;
            for (int t = 0; t < rows; t++)
            {
                if (written[t])
                {
                    written[t] = false;
                    if (!frozen[t])
                    {
                        endpoint.requestCompletion(t);
                        ledger.flushed(t, now);
                        flushed = true;
                    }
                }
            }
            if (!flushed)
            {
                return;
            }
            settleLocked(now);
        }
        finally
        {
            fabricLock.unlock();
        }
        progress.wake(); // polls for the rest at once, not after its idle park
    }

    /**
     * Under the lock, which it gives up while it parks: waits until the writes of the flushes before this one have
     * been rung at every live target, so that a flush overlaps the round trip of the one before it, not more. A
     * stalled target then holds two flushes' writes at most. Unbounded, the members of a majority took each other
     * for failed during a partition in chaos, their heartbeats stopped (probably the provider's queue full of writes
     * to the partitioned members). Spins (yielding) for up to 2 ms, then parks 50 us at a time; later flushes are
     * their flushers' to wait for, so a busy peer cannot keep this wait going.
     */
    private void awaitEarlierFlushes()
    {
        final long start = System.nanoTime();
        int spins = 0;
        for (int t = 0; t < rows; t++)
        {
            final long mark = ledger.flushedTo(t);
            while (running && ledger.owes(t, mark))
            {
                final long now = System.nanoTime();
                settleLocked(now);
                if (now - start >= ProgressThread.RING_SPIN_NANOS)
                {
                    parkUnlocked();
                }
                else if (++spins > 50)
                {
                    Thread.yield();
                }
            }
        }
    }

    /** Under the lock: reaps completions; a peer's write that wakes this member rings its doorbell. */
    private boolean reapLocked()
    {
        final boolean landed = endpoint.progress(onWriteError);
        if (landed)
        {
            // the provider placed the bytes before it queued their entry, which this thread has read; the ring (a
            // volatile sequence, acquired by the woken thread) carries that order on to the predicate thread
            doorbell.ring();
        }
        return landed;
    }

    /** Under the lock: reaps completions, then counts (and, where targets are rung, rings) what has completed. */
    private void settleLocked(final long now)
    {
        reapLocked();
        ledger.advance(now);
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

    /** Gives the lock up for 50 us while this thread waits for a stalled target: heartbeats and freezes go on. */
    private void parkUnlocked()
    {
        fabricLock.unlock();
        try
        {
            LockSupport.parkNanos(50_000);
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
            reapLocked();
        }
        finally
        {
            fabricLock.unlock();
        }
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
        flush();
        awaitRung(targets); // delivery complete: visible at every target that did not fail
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
        return doorbell;
    }

    @Override
    public PassHost passHost()
    {
        return progress.hosted();
    }

    /**
     * A udp datagram per target from the control channel ({@code BeatLane}): the heartbeat column is an rdma write,
     * which writes queued in the provider ahead of it can delay or, with the queue full, keep from being posted.
     */
    @Override
    public void beat(final int[] targets)
    {
        control.beat(targets);
    }

    /** When the control channel last heard from {@code rank}: its beats and rings. */
    @Override
    public long lastHeardNanos(final int rank)
    {
        return control.lastHeardNanos(rank);
    }

    /** One poll of the progress thread, under the lock: what it found ({@link ProgressThread}'s flags). */
    private int poll()
    {
        fabricLock.lock();
        try
        {
            if (!running)
            {
                return ProgressThread.STOP;
            }
            final long advances = ledger.advances();
            final int busy = endpoint.outstanding() > 0 ? ProgressThread.BUSY : 0;
            final int landed = reapLocked() ? ProgressThread.LANDED : 0;
            final int owed = ledger.advance(System.nanoTime()) ? ProgressThread.OWED : 0;
            return busy | landed | owed | (ledger.advances() != advances ? ProgressThread.ADVANCED : 0);
        }
        catch (final TransportException | IllegalStateException ex)
        {
            progressFailed(ex); // a ring that found the control channel closed, too (its thread failed first)
            return ProgressThread.STOP;
        }
        finally
        {
            fabricLock.unlock();
        }
    }

    /** The progress thread ends: without its polls nothing lands or completes here, so the member must stop. */
    private void progressFailed(final Throwable ex)
    {
        if (running)
        {
            LOG.error("rdma progress failed", ex);
            context.threadFailed().accept(ex);
        }
    }

    /**
     * Waits, without the lock, until the rings owed to {@code targets} (null: every target) have been sent or their
     * targets failed; at most the flush timeout for a tracked push, {@code DRAIN_NANOS} at close.
     */
    private void awaitRung(final int[] targets)
    {
        final long deadline = System.nanoTime() + (targets == null ? DRAIN_NANOS : RingLedger.FLUSH_TIMEOUT_NANOS);
        while (running && System.nanoTime() - deadline < 0 && owed(targets))
        {
            if (progress.isCurrent())
            {
                reap(); // a hosted pass that waits: nobody else polls for it
                Thread.yield();
            }
            else
            {
                progress.wake();
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private void reap()
    {
        fabricLock.lock();
        try
        {
            settleLocked(System.nanoTime());
        }
        finally
        {
            fabricLock.unlock();
        }
    }

    private boolean owed(final int[] targets)
    {
        fabricLock.lock();
        try
        {
            return ledger.owes(targets);
        }
        finally
        {
            fabricLock.unlock();
        }
    }

    @Override
    public void close()
    {
        if (!running)
        {
            return;
        }
        awaitRung(null); // the last flushes land and are rung, a stalled target for a bounded time only
        running = false;
        progress.stop();
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

package io.weft.sst.shm;

import io.weft.config.MemberAddress;
import io.weft.config.WeftConfig;
import io.weft.config.Doorbell;
import io.weft.sst.RowCopy;
import io.weft.sst.SstLayout;
import io.weft.sst.SstTransport;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * The shm transport: every member's table is a mapped file (see {@link ShmTableFile}). With zero copy (the default,
 * {@code weft.transport.shm.zero-copy}) a member's table is one region whose row r is member r's own row mapped from
 * its file ({@link SharedRows}): my release stores are seen in place, so a push only rings the targets' doorbells.
 * Otherwise a push copies my row's range into my row of each target's file, then rings. Works across processes and
 * between members in one JVM.
 *
 * <p>Failures: a peer in another process is watched through a pidfd ({@link ExitWatch}: its exit, kill -9 included,
 * is told within about a millisecond); a peer in this process, or one that closed, is seen when its header stops
 * saying LIVE at the next push.
 */
public final class ShmTransport implements SstTransport
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmTransport.class);
    private static final VarHandle DIRTY = MethodHandles.arrayElementVarHandle(int[].class);

    private final TransportContext context;
    private final ShmTableFile own;
    private final ShmTableFile[] peers;
    private final FutexDoorbell[] peerDoorbells;
    private final FutexDoorbell doorbell;
    /** The table: the zero-copy region, or my own file's table when pushes copy. */
    private final MemorySegment table;
    /** Holds the zero-copy region (null when pushes copy). */
    private final Arena sharedRows;
    private final boolean[] frozen;
    private final int[] dirty;
    private final int rowSize;
    private final long myRowOffset;
    private volatile ExitWatch exits; // set once open, before the table is handed out
    private volatile boolean closed;

    private ShmTransport(final TransportContext context, final ShmTableFile own, final ShmTableFile[] peers,
        final boolean zeroCopy)
    {
        this.context = context;
        this.own = own;
        this.peers = peers;
        this.rowSize = context.layout().rowSize();
        this.myRowOffset = (long)context.myRank() * rowSize;
        this.frozen = new boolean[peers.length];
        this.dirty = new int[peers.length];
        this.peerDoorbells = new FutexDoorbell[peers.length];
        for (int r = 0; r < peers.length; r++)
        {
            if (peers[r] != null)
            {
                peerDoorbells[r] = peers[r].doorbell();
            }
        }
        this.doorbell = own.doorbell();
        this.sharedRows = zeroCopy ? Arena.ofShared() : null;
        this.table = zeroCopy ? mapRows(own, peers, context.myRank(), rowSize, sharedRows) : own.table();
    }

    /** Row r from member r's file; mine, and the rows of members missing at the open, from my own file. */
    private static MemorySegment mapRows(final ShmTableFile own, final ShmTableFile[] peers, final int myRank,
        final int rowSize, final Arena arena)
    {
        final MemorySegment[] sources = new MemorySegment[peers.length];
        for (int r = 0; r < peers.length; r++)
        {
            final ShmTableFile file = r == myRank || peers[r] == null ? own : peers[r];
            sources[r] = file.table().asSlice((long)r * rowSize, rowSize);
        }
        try
        {
            return SharedRows.map(sources, rowSize, arena);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** Creates this member's file, then waits up to the connect timeout for every peer's live file. */
    public static ShmTransport open(final TransportContext context)
    {
        final WeftConfig config = context.config();
        final Path dir = config.transport().shm().directory();
        final String group = config.group().name();
        final SstLayout layout = context.layout();
        final int rows = context.rows();
        final ShmTableFile own = ShmTableFile.create(dir, group, config.memberId(), layout, rows);
        final ShmTableFile[] peers = new ShmTableFile[rows];
        final java.util.Map<Integer, String> missing = new java.util.TreeMap<>();
        try
        {
            final long deadline = System.nanoTime() + config.transport().connectTimeout().toNanos();
            long backoff = 100_000;
            for (int r = 0; r < rows; r++)
            {
                if (r == context.myRank())
                {
                    continue;
                }
                final MemberAddress peer = config.group().members().get(r);
                Optional<ShmTableFile> file;
                while ((file = ShmTableFile.attach(dir, group, peer.id(), layout, rows)).isEmpty())
                {
                    if (context.givesUpOn(r))
                    {
                        missing.put(r, "member " + peer.id() + " of group " + group + " is gone: it never " +
                            "created its table file");
                        break;
                    }
                    if (System.nanoTime() > deadline && context.tolerateMissing())
                    {
                        missing.put(r, "timed out after " + config.transport().connectTimeout() +
                            " waiting for member " + peer.id() + " of group " + group);
                        break;
                    }
                    if (System.nanoTime() > deadline)
                    {
                        throw new TransportException("timed out after " + config.transport().connectTimeout() +
                            " waiting for member " + peer.id() + " of group " + group + ": no live table file " +
                            ShmTableFile.pathOf(dir, group, peer.id()) + " (is the member started with the same " +
                            "weft.transport.shm.directory?)");
                    }
                    LockSupport.parkNanos(backoff); // start-up only: peers appear within milliseconds to seconds
                    backoff = Math.min(backoff * 2, 50_000_000);
                }
                peers[r] = file.orElse(null);
            }
        }
        catch (final RuntimeException ex)
        {
            closeAll(own, peers);
            throw ex;
        }
        final boolean zeroCopy = config.transport().shm().zeroCopy() && SharedRows.supported(layout.rowSize());
        final ShmTransport transport;
        try
        {
            transport = new ShmTransport(context, own, peers, zeroCopy);
        }
        catch (final RuntimeException ex)
        {
            closeAll(own, peers);
            throw ex;
        }
        missing.forEach((rank, why) ->
        {
            transport.frozen[rank] = true;
            transport.reportFailure(rank, why);
        });
        transport.watchPeers();
        LOG.info("shm table of group {} open: member {} rank {}, {} rows of {} bytes at {}, {}", group,
            config.memberId(), context.myRank(), rows, layout.rowSize(), own.path(),
            zeroCopy ? "zero copy" : "pushes copy");
        return transport;
    }

    private static void closeAll(final ShmTableFile own, final ShmTableFile[] peers)
    {
        for (final ShmTableFile p : peers)
        {
            if (p != null)
            {
                p.close();
            }
        }
        own.markClosed();
        own.close();
        own.delete();
    }

    private void watchPeers()
    {
        final long self = ProcessHandle.current().pid();
        final long[] pids = new long[peers.length];
        for (int r = 0; r < peers.length; r++)
        {
            final ShmTableFile p = peers[r];
            pids[r] = p == null || p.ownerPid() == self ? -1 : p.ownerPid();
        }
        exits = new ExitWatch("weft-shm-exits-" + context.config().memberId(), pids,
            rank -> reportFailure(rank, "process " + pids[rank] + " exited"), context.threadFailed());
    }

    private void reportFailure(final int rank, final String reason)
    {
        if (!closed)
        {
            context.failures().onMemberFailure(rank, reason);
        }
    }

    @Override
    public MemorySegment table()
    {
        return table;
    }

    @Override
    public boolean readsInPlace()
    {
        return sharedRows != null;
    }

    @Override
    public void post(final int rowOffset, final int length, final int[] targets)
    {
        final MemorySegment src = own.table();
        final long offset = myRowOffset + rowOffset;
        for (final int t : targets)
        {
            if (frozen[t])
            {
                continue;
            }
            final ShmTableFile peer = peers[t];
            if (!peer.isLive())
            {
                frozen[t] = true;
                reportFailure(t, "table file " + peer.path() + " closed by its owner");
                continue;
            }
            if (sharedRows == null)
            {
                RowCopy.copy(src, offset, peer.table(), offset, length);
            }
            else
            {
                // the target reads my row in place: stores before this push are ordered before stores after it
                VarHandle.releaseFence();
            }
            // release: whichever thread flushes and sees the flag rings after this copy (or, with zero copy, the
            // caller's stores to my row) is visible to the target
            DIRTY.setRelease(dirty, t, 1);
        }
    }

    /** Rings the doorbell of every target written since the last flush: one ring per target, not per push. */
    @Override
    public void flush()
    {
        for (int t = 0; t < dirty.length; t++)
        {
            if ((int)DIRTY.getAcquire(dirty, t) != 0 && (int)DIRTY.getAndSet(dirty, t, 0) != 0)
            {
                peerDoorbells[t].ring();
            }
        }
    }

    @Override
    public CompletableFuture<Void> pushTracked(final int rowOffset, final int length, final int[] targets)
    {
        // a copy into the target's mapping is applied when it returns
        post(rowOffset, length, targets);
        flush();
        return SstTransport.appliedUnlessFrozen(targets, frozen);
    }

    @Override
    public void freeze(final int rank)
    {
        frozen[rank] = true;
        if (SharedRows.supported(rowSize))
        {
            snapshot(rank);
        }
    }

    /**
     * The frozen row becomes a private copy of what it holds now, so that a suspected member that still runs cannot
     * change what the view change reads of it (its trims, its slots): it no longer reaches my table, in place (zero
     * copy) or by copying into my file. A reader may see the row step back once, to the snapshot; a frozen row's
     * values are no longer trusted for progress.
     */
    private synchronized void snapshot(final int rank)
    {
        if (!closed)
        {
            SharedRows.snapshot(table, (long)rank * rowSize, rowSize);
        }
    }

    @Override
    public Doorbell doorbell()
    {
        return doorbell;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (exits != null)
        {
            exits.close();
        }
        own.markClosed();
        // wake peers so that they notice at once
        for (final FutexDoorbell d : peerDoorbells)
        {
            if (d != null)
            {
                d.ring();
            }
        }
        for (final ShmTableFile p : peers)
        {
            if (p != null)
            {
                p.deleteIfOwnerEnded(); // killed: nobody else would, and a joiner's next view takes a new name
                p.close();
            }
        }
        synchronized (this) // after any snapshot in progress
        {
            if (sharedRows != null)
            {
                sharedRows.close();
            }
            own.delete();
            own.close();
        }
    }
}

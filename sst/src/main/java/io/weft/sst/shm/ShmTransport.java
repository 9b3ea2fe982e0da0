package io.weft.sst.shm;

import io.weft.config.MemberAddress;
import io.weft.config.WeftConfig;
import io.weft.predicates.Doorbell;
import io.weft.sst.RowCopy;
import io.weft.sst.SstLayout;
import io.weft.sst.SstTransport;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * The shm transport: every member's table copy is a mapped file (see {@link ShmTableFile}); a push is a copy of my
 * row's range into my row of each target's mapping followed by a ring of the target's doorbell. Works across
 * processes and between members in one JVM.
 *
 * <p>Failures: a peer in another process is watched with {@link ProcessHandle#onExit()} (kill -9 included); a peer
 * in this process, or one that closed, is seen when its header stops saying LIVE at the next push.
 */
public final class ShmTransport implements SstTransport
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmTransport.class);
    private static final java.lang.invoke.VarHandle DIRTY = java.lang.invoke.MethodHandles.arrayElementVarHandle(int[].class);

    private final TransportContext context;
    private final ShmTableFile own;
    private final ShmTableFile[] peers;
    private final FutexDoorbell[] peerDoorbells;
    private final FutexDoorbell doorbell;
    private final boolean[] frozen;
    private final int[] dirty;
    private final int rowSize;
    private final long myRowOffset;
    private final List<CompletableFuture<?>> watchers = new ArrayList<>();
    private volatile boolean closed;

    private ShmTransport(final TransportContext context, final ShmTableFile own, final ShmTableFile[] peers)
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
            throw ex;
        }
        final ShmTransport transport = new ShmTransport(context, own, peers);
        missing.forEach((rank, why) ->
        {
            transport.frozen[rank] = true;
            transport.reportFailure(rank, why);
        });
        transport.watchPeers();
        LOG.info("shm table of group {} open: member {} rank {}, {} rows of {} bytes at {}", group, config.memberId(),
            context.myRank(), rows, layout.rowSize(), own.path());
        return transport;
    }

    private void watchPeers()
    {
        final long self = ProcessHandle.current().pid();
        for (int r = 0; r < peers.length; r++)
        {
            final ShmTableFile p = peers[r];
            if (p == null || p.ownerPid() == self)
            {
                continue;
            }
            final int rank = r;
            ProcessHandle.of(p.ownerPid()).ifPresentOrElse(
                h -> watchers.add(h.onExit().thenRun(() -> reportFailure(rank, "process " + p.ownerPid() + " exited"))),
                () -> reportFailure(rank, "process " + p.ownerPid() + " exited"));
        }
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
        return own.table();
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
            RowCopy.copy(src, offset, peer.table(), offset, length);
            // release: whichever thread flushes and sees the flag rings after this copy is visible
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
        watchers.forEach(w -> w.cancel(false));
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
                p.close();
            }
        }
        own.delete();
        own.close();
    }
}

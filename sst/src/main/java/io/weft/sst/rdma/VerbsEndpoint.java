package io.weft.sst.rdma;

import io.weft.config.VerbsOptions;
import io.weft.sst.TransportException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;

import static io.weft.sst.rdma.VerbsAbi.*;

/**
 * The table over libibverbs: one protection domain, the table registered once as one memory region, one completion
 * queue, and one reliable-connected (RC) queue pair per peer, taken RESET -> INIT -> RTR -> RTS with the peer's queue
 * pair number, packet sequence number, LID and GID as it published them on the control channel.
 *
 * <ul>
 *     <li>Ordering: an RC queue pair executes its requests in order, so a guard written after its payload is never
 *     seen first (the assumption Derecho makes too).</li>
 *     <li>Selective signalling: one write in {@value #SIGNAL_INTERVAL} asks for a completion; an RC queue pair
 *     completes in order, so that completion retires the unsignalled writes before it.
 *     {@link #requestCompletion} posts a signalled zero-length write when the last write to a peer was unsignalled:
 *     its completion says every earlier write to that peer has landed.</li>
 *     <li>Small writes go inline (the payload copied into the work request: no DMA read of the table).</li>
 *     <li>Failure: an error completion (retry count exceeded when the peer is gone, an access error) fails the
 *     peer.</li>
 * </ul>
 */
final class VerbsEndpoint implements RdmaEndpoint
{
    static final int SEND_QUEUE_DEPTH = 512;
    static final int SIGNAL_INTERVAL = 64;
    private static final int REQUESTED_INLINE = 128;
    private static final int ENOMEM = 12;
    private static final int HEADER = 20; // lid (2), pad (2), gid (16); then qpn (4) and psn (4) per rank

    private final Verbs verbs;
    private final VerbsOptions options;
    private final int rows;
    private final int myRank;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment attr = arena.allocate(QP_ATTR_SIZE, 8);
    private MemorySegment context = MemorySegment.NULL;
    private MemorySegment pd = MemorySegment.NULL;
    /** One registration per row, so that a frozen member's can be withdrawn; NULL once revoked. */
    private final MemorySegment[] mrs;
    private final int[] rkeys;
    private final long rowSize;
    private MemorySegment cq = MemorySegment.NULL;
    private final MemorySegment[] qps;
    private final Verbs.SendQueue[] sendQueues;
    private Verbs.CompletionQueue completions;
    private final int[] psn;
    private final long[] posted;
    private final long[] completed;
    private final long[] lastSignaled;
    private final boolean[] failed;
    private final boolean[] reported;
    private final long[] wrIds = new long[64];
    private final int[] statuses = new int[64];
    private int lid;
    private int linkLayer;
    private int activeMtu;
    private int maxInline;
    private int lkey; // of this member's own row, the source of every write
    private final byte[] gid = new byte[(int)GID_SIZE];
    private String device = "";
    private int outstanding;
    private boolean closed;

    VerbsEndpoint(final VerbsOptions options, final MemorySegment table, final int rows, final long rowSize,
        final int myRank)
    {
        this.options = options;
        this.rows = rows;
        this.rowSize = rowSize;
        this.myRank = myRank;
        this.mrs = new MemorySegment[rows];
        this.rkeys = new int[rows];
        java.util.Arrays.fill(mrs, MemorySegment.NULL);
        this.qps = new MemorySegment[rows];
        this.sendQueues = new Verbs.SendQueue[rows];
        this.psn = new int[rows];
        this.posted = new long[rows];
        this.completed = new long[rows];
        this.lastSignaled = new long[rows];
        this.failed = new boolean[rows];
        this.reported = new boolean[rows];
        java.util.Arrays.fill(qps, MemorySegment.NULL);
        this.verbs = Verbs.load(options.library());
        try
        {
            JvmSignals.preserve(() ->
            {
                open(table);
                return null;
            });
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    private void open(final MemorySegment table)
    {
        try (Arena call = Arena.ofConfined())
        {
            final Verbs.Device opened = verbs.open(options.device());
            context = opened.context();
            device = opened.name();
            final MemorySegment port = call.allocate(PORT_ATTR_SIZE, 8);
            check("ibv_query_port(" + options.port() + ")",
                (int)verbs.queryPort.invokeExact(context, (byte)options.port(), port));
            final int state = port.get(ValueLayout.JAVA_INT, PORT_ATTR_STATE);
            if (state != PORT_ACTIVE)
            {
                throw new TransportException("port " + options.port() + " of RDMA device " + device + " is not " +
                    "active (state " + state + "; 4 is active): check the cable and the subnet manager (ibstat), or " +
                    "pick another port with weft.transport.rdma.verbs.port");
            }
            lid = Short.toUnsignedInt(port.get(ValueLayout.JAVA_SHORT, PORT_ATTR_LID));
            linkLayer = Byte.toUnsignedInt(port.get(ValueLayout.JAVA_BYTE, PORT_ATTR_LINK_LAYER));
            activeMtu = port.get(ValueLayout.JAVA_INT, PORT_ATTR_ACTIVE_MTU);
            final MemorySegment gidBuf = call.allocate(GID_SIZE, 8);
            check("ibv_query_gid(index " + options.gidIndex() + ")",
                (int)verbs.queryGid.invokeExact(context, (byte)options.port(), options.gidIndex(), gidBuf));
            MemorySegment.copy(gidBuf, ValueLayout.JAVA_BYTE, 0, gid, 0, gid.length);
            if (useGrh(lid) && isZero(gid))
            {
                throw new TransportException("GID index " + options.gidIndex() + " of RDMA device " + device +
                    " is empty and the port needs a GRH (RoCE, or no LID): pick a populated index with " +
                    "weft.transport.rdma.verbs.gid-index (show_gids lists them)");
            }

            final MemorySegment state0 = Verbs.callState(call);
            pd = (MemorySegment)verbs.allocPd.invokeExact(state0, context);
            notNull(pd, "ibv_alloc_pd", state0);
            for (int r = 0; r < rows; r++)
            {
                final MemorySegment row = table.asSlice(r * rowSize, rowSize);
                mrs[r] = (MemorySegment)verbs.regMr.invokeExact(state0, pd, row, rowSize,
                    (int)(r == myRank ? ACCESS_LOCAL_WRITE : ACCESS_LOCAL_WRITE | ACCESS_REMOTE_WRITE));
                notNull(mrs[r], "ibv_reg_mr of the " + rowSize + "-byte row " + r, state0);
                final MemorySegment mrView = mrs[r].reinterpret(MR_RKEY + 4);
                rkeys[r] = mrView.get(ValueLayout.JAVA_INT, MR_RKEY);
                if (r == myRank)
                {
                    lkey = mrView.get(ValueLayout.JAVA_INT, MR_LKEY);
                }
            }
            cq = (MemorySegment)verbs.createCq.invokeExact(state0, context, SEND_QUEUE_DEPTH * Math.max(1, rows - 1),
                MemorySegment.NULL, MemorySegment.NULL, 0);
            notNull(cq, "ibv_create_cq", state0);
            completions = new Verbs.CompletionQueue(cq);

            final MemorySegment init = call.allocate(QP_INIT_ATTR_SIZE, 8);
            maxInline = Integer.MAX_VALUE;
            for (int r = 0; r < rows; r++)
            {
                if (r == myRank)
                {
                    continue;
                }
                init.fill((byte)0);
                init.set(ValueLayout.ADDRESS, QP_INIT_ATTR_SEND_CQ, cq);
                init.set(ValueLayout.ADDRESS, QP_INIT_ATTR_RECV_CQ, cq);
                init.set(ValueLayout.JAVA_INT, QP_INIT_ATTR_MAX_SEND_WR, SEND_QUEUE_DEPTH);
                init.set(ValueLayout.JAVA_INT, QP_INIT_ATTR_MAX_RECV_WR, 1);
                init.set(ValueLayout.JAVA_INT, QP_INIT_ATTR_MAX_SEND_SGE, 1);
                init.set(ValueLayout.JAVA_INT, QP_INIT_ATTR_MAX_RECV_SGE, 1);
                init.set(ValueLayout.JAVA_INT, QP_INIT_ATTR_MAX_INLINE, REQUESTED_INLINE);
                init.set(ValueLayout.JAVA_INT, QP_INIT_ATTR_QP_TYPE, (int)QPT_RC);
                init.set(ValueLayout.JAVA_INT, QP_INIT_ATTR_SQ_SIG_ALL, 0);
                final MemorySegment qp = (MemorySegment)verbs.createQp.invokeExact(state0, pd, init);
                notNull(qp, "ibv_create_qp (RC, " + SEND_QUEUE_DEPTH + " send work requests)", state0);
                qps[r] = qp.reinterpret(QP_NUM + 4);
                // the device reports the inline size it granted in the same structure
                maxInline = Math.min(maxInline, init.get(ValueLayout.JAVA_INT, QP_INIT_ATTR_MAX_INLINE));
                sendQueues[r] = new Verbs.SendQueue(qp);
                psn[r] = ThreadLocalRandom.current().nextInt(1 << 24);
                attr.fill((byte)0);
                attr.set(ValueLayout.JAVA_INT, QP_ATTR_STATE, (int)QPS_INIT);
                attr.set(ValueLayout.JAVA_SHORT, QP_ATTR_PKEY_INDEX, (short)0);
                attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_PORT_NUM, (byte)options.port());
                attr.set(ValueLayout.JAVA_INT, QP_ATTR_ACCESS_FLAGS, (int)ACCESS_REMOTE_WRITE);
                modify(r, "INIT", QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS);
            }
            if (maxInline == Integer.MAX_VALUE)
            {
                maxInline = 0;
            }
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable t)
        {
            throw new TransportException("verbs set-up failed: " + t, t);
        }
    }

    private boolean useGrh(final int peerLid)
    {
        return linkLayer == LINK_LAYER_ETHERNET || peerLid == 0;
    }

    private static boolean isZero(final byte[] bytes)
    {
        for (final byte b : bytes)
        {
            if (b != 0)
            {
                return false;
            }
        }
        return true;
    }

    private void check(final String call, final int rc)
    {
        if (rc != 0)
        {
            throw new TransportException(call + " on RDMA device " + device + " failed: " + rc);
        }
    }

    private void notNull(final MemorySegment result, final String call, final MemorySegment state)
    {
        if (result.equals(MemorySegment.NULL))
        {
            throw new TransportException(call + " on RDMA device " + device + " failed: " + Verbs.errno(state));
        }
    }

    private void modify(final int rank, final String to, final long mask)
    {
        final int rc;
        try
        {
            rc = (int)verbs.modifyQp.invokeExact(qps[rank], attr, (int)mask);
        }
        catch (final Throwable t)
        {
            throw new TransportException("ibv_modify_qp failed: " + t, t);
        }
        if (rc != 0)
        {
            throw new TransportException("ibv_modify_qp to " + to + " of the queue pair to the member at rank " + rank +
                " failed: errno " + rc);
        }
    }

    /** LID, GID, and for each rank the number and first packet sequence number of my queue pair to it. */
    @Override
    public byte[] address()
    {
        final ByteBuffer b = ByteBuffer.allocate(HEADER + 8 * rows).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short)lid).putShort((short)0).put(gid);
        for (int r = 0; r < rows; r++)
        {
            b.putInt(r == myRank ? 0 : qps[r].get(ValueLayout.JAVA_INT, QP_NUM)).putInt(psn[r]);
        }
        return b.array();
    }

    @Override
    public long key(final int rank)
    {
        return Integer.toUnsignedLong(rkeys[rank]);
    }

    @Override
    public void revoke(final int rank)
    {
        if (!mrs[rank].equals(MemorySegment.NULL))
        {
            try
            {
                // the NIC checks the rkey of every incoming write: the member's next one fails with a remote access
                // error at its end (its queue pair to this member goes to the error state) and lands nowhere
                final int ignored = (int)verbs.deregMr.invokeExact(mrs[rank]);
            }
            catch (final Throwable t)
            {
                throw new TransportException("ibv_dereg_mr of row " + rank + " failed: " + t, t);
            }
            mrs[rank] = MemorySegment.NULL;
        }
    }

    @Override
    public boolean virtualAddresses()
    {
        return true;
    }

    /** Takes my queue pair to {@code rank} through RTR (to its queue pair to me) and RTS. */
    @Override
    public void connect(final int rank, final byte[] peerAddress)
    {
        if (peerAddress.length != HEADER + 8 * rows)
        {
            throw new TransportException("the member at rank " + rank + " published a verbs address of " +
                peerAddress.length + " bytes, expected " + (HEADER + 8 * rows) + " for " + rows + " members");
        }
        final ByteBuffer b = ByteBuffer.wrap(peerAddress).order(ByteOrder.LITTLE_ENDIAN);
        final int peerLid = Short.toUnsignedInt(b.getShort(0));
        final int peerQpn = b.getInt(HEADER + 8 * myRank);
        final int peerPsn = b.getInt(HEADER + 8 * myRank + 4);
        attr.fill((byte)0);
        attr.set(ValueLayout.JAVA_INT, QP_ATTR_STATE, (int)QPS_RTR);
        attr.set(ValueLayout.JAVA_INT, QP_ATTR_PATH_MTU, activeMtu);
        attr.set(ValueLayout.JAVA_INT, QP_ATTR_DEST_QP_NUM, peerQpn);
        attr.set(ValueLayout.JAVA_INT, QP_ATTR_RQ_PSN, peerPsn);
        attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_MAX_DEST_RD_ATOMIC, (byte)1);
        attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_MIN_RNR_TIMER, (byte)12);
        attr.set(ValueLayout.JAVA_SHORT, QP_ATTR_AH_DLID, (short)peerLid);
        attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_AH_PORT_NUM, (byte)options.port());
        if (useGrh(peerLid))
        {
            attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_AH_IS_GLOBAL, (byte)1);
            MemorySegment.copy(peerAddress, 4, attr, ValueLayout.JAVA_BYTE, QP_ATTR_AH_DGID, (int)GID_SIZE);
            attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_AH_SGID_INDEX, (byte)options.gidIndex());
            attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_AH_HOP_LIMIT, (byte)64);
        }
        modify(rank, "RTR", QP_STATE | QP_AV | QP_PATH_MTU | QP_DEST_QPN | QP_RQ_PSN | QP_MAX_DEST_RD_ATOMIC |
            QP_MIN_RNR_TIMER);
        attr.fill((byte)0);
        attr.set(ValueLayout.JAVA_INT, QP_ATTR_STATE, (int)QPS_RTS);
        attr.set(ValueLayout.JAVA_INT, QP_ATTR_SQ_PSN, psn[rank]);
        // 4.096 us * 2^14 = 67 ms per try, 7 tries: a peer that is gone fails the queue pair in about half a second
        attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_TIMEOUT, (byte)14);
        attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_RETRY_CNT, (byte)7);
        attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_RNR_RETRY, (byte)7);
        attr.set(ValueLayout.JAVA_BYTE, QP_ATTR_MAX_RD_ATOMIC, (byte)1);
        modify(rank, "RTS", QP_STATE | QP_SQ_PSN | QP_TIMEOUT | QP_RETRY_CNT | QP_RNR_RETRY | QP_MAX_QP_RD_ATOMIC);
    }

    @Override
    public boolean write(final long localAddress, final int length, final int rank, final long remoteAddress,
        final long remoteKey)
    {
        if (failed[rank])
        {
            return true; // dropped: the failure is reported by the next progress()
        }
        if (posted[rank] - completed[rank] >= SEND_QUEUE_DEPTH - 1) // one slot kept for requestCompletion
        {
            return false;
        }
        final long seq = posted[rank] + 1;
        final boolean signal = seq - lastSignaled[rank] >= SIGNAL_INTERVAL;
        final int rc = sendQueues[rank].write(wrId(rank, seq), localAddress, length, lkey, remoteAddress,
            (int)remoteKey, signal, length <= maxInline);
        return posted(rank, seq, signal, rc);
    }

    @Override
    public void requestCompletion(final int rank)
    {
        if (failed[rank] || posted[rank] == lastSignaled[rank])
        {
            return;
        }
        final long seq = posted[rank] + 1;
        final int rc = sendQueues[rank].write(wrId(rank, seq), 0, 0, lkey, 0, 0, true, false);
        posted(rank, seq, true, rc);
    }

    private boolean posted(final int rank, final long seq, final boolean signal, final int rc)
    {
        if (rc == ENOMEM) // the send queue is full after all: progress, then retry
        {
            return false;
        }
        if (rc != 0)
        {
            fail(rank); // a queue pair in error refuses work: the peer is reported by progress()
            return true;
        }
        outstanding += (int)(seq - posted[rank]);
        posted[rank] = seq;
        if (signal)
        {
            lastSignaled[rank] = seq;
        }
        return true;
    }

    /** Work-request ids carry the rank (top 16 bits) and the write's sequence number on that queue pair. */
    private static long wrId(final int rank, final long seq)
    {
        return ((long)rank << 48) | seq;
    }

    @Override
    public int outstanding()
    {
        return outstanding;
    }

    @Override
    public long posted(final int rank)
    {
        return posted[rank];
    }

    @Override
    public long completed(final int rank)
    {
        return completed[rank]; // a failed queue pair counts every write it was given as completed
    }

    /** Nothing more will complete on the queue pair to {@code rank}: stop counting its writes as outstanding. */
    private void fail(final int rank)
    {
        if (!failed[rank])
        {
            failed[rank] = true;
            outstanding -= (int)(posted[rank] - completed[rank]);
            completed[rank] = posted[rank];
        }
    }

    /** RC writes without immediate data: the target is rung over the control channel. */
    @Override
    public boolean wakesTargets()
    {
        return false;
    }

    @Override
    public boolean progress(final IntConsumer failedRank)
    {
        int n;
        while ((n = completions.poll(wrIds, statuses)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                final int rank = (int)(wrIds[i] >>> 48);
                final long seq = wrIds[i] & 0xFFFF_FFFF_FFFFL;
                if (rank >= rows || failed[rank])
                {
                    continue; // after an error the rest of the queue is flushed: nothing to count
                }
                if (statuses[i] != WC_SUCCESS)
                {
                    fail(rank); // retry count exceeded (the peer is gone), or an access error
                    continue;
                }
                if (seq > completed[rank])
                {
                    outstanding -= (int)(seq - completed[rank]); // in order: every write up to seq has landed
                    completed[rank] = seq;
                }
            }
        }
        if (n < 0)
        {
            throw new TransportException("ibv_poll_cq on RDMA device " + device + " failed: " + n);
        }
        for (int r = 0; r < rows; r++)
        {
            if (failed[r] && !reported[r])
            {
                reported[r] = true;
                failedRank.accept(r);
            }
        }
        return false;
    }

    @Override
    public String describe()
    {
        return "verbs device " + device + " port " + options.port() + ", lid " + lid + ", gid " +
            HexFormat.of().formatHex(gid) + ", " + (rows - 1) + " RC queue pairs, inline up to " + maxInline +
            " bytes, one write in " + SIGNAL_INTERVAL + " signalled";
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            for (int r = 0; r < rows; r++)
            {
                if (sendQueues[r] != null)
                {
                    sendQueues[r].close();
                }
                if (!qps[r].equals(MemorySegment.NULL))
                {
                    final int ignored = (int)verbs.destroyQp.invokeExact(qps[r]);
                    qps[r] = MemorySegment.NULL;
                }
            }
            if (completions != null)
            {
                completions.close();
            }
            if (!cq.equals(MemorySegment.NULL))
            {
                final int ignored = (int)verbs.destroyCq.invokeExact(cq);
            }
            for (int r = 0; r < rows; r++)
            {
                if (!mrs[r].equals(MemorySegment.NULL))
                {
                    final int ignored = (int)verbs.deregMr.invokeExact(mrs[r]);
                    mrs[r] = MemorySegment.NULL;
                }
            }
            if (!pd.equals(MemorySegment.NULL))
            {
                final int ignored = (int)verbs.deallocPd.invokeExact(pd);
            }
            if (!context.equals(MemorySegment.NULL))
            {
                final int ignored = (int)verbs.closeDevice.invokeExact(context);
            }
        }
        catch (final Throwable t)
        {
            throw new TransportException("verbs tear-down failed: " + t, t);
        }
        finally
        {
            cq = pd = context = MemorySegment.NULL;
            completions = null;
            arena.close();
        }
    }
}

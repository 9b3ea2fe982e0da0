package io.weft.sst.rdma;

import io.weft.config.Doorbell;
import io.weft.config.GroupConfig;
import io.weft.config.RdmaBackend;
import io.weft.sst.SstLayout;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;
import io.weft.sst.tcp.TcpTransport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The rdma transport's control channel: a small tcp table on the member's sst-port. It carries the set-up (each
 * member's backend, endpoint address, table base and per-peer row keys, then a barrier), the liveness of the members
 * (losing the connection is a member failure; its udp beats are heartbeats beside the rdma writes) and, where writes
 * carry no remote CQ data (verbs), the rings that wake a target once a flush's writes are visible there.
 */
final class RdmaControl implements AutoCloseable
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final SstLayout CONTROL = SstLayout.builder().counter("nameLength").counter("base")
        .counter("ring").counter("connected").bytes("keys", 8 * GroupConfig.MAX_MEMBERS).bytes("name", 1024).build();
    private static final long NAME_LENGTH = CONTROL.column("nameLength").offset();
    /** Per rank: the key under which that member writes its row into the publisher's table. */
    private static final long KEYS = CONTROL.column("keys").offset();
    private static final long BASE = CONTROL.column("base").offset();
    private static final long RING = CONTROL.column("ring").offset();
    private static final long NAME = CONTROL.column("name").offset();
    private static final int NAME_CAPACITY = CONTROL.column("name").length();
    private static final long CONNECTED = CONTROL.column("connected").offset();

    private final TransportContext context;
    private final int rows;
    private final int myRank;
    private final boolean[] frozen;
    private final TcpTransport control;
    private final MemorySegment controlTable;
    private final int[] ringTargets;
    private final int[][] ringArrays;
    private long rings;

    /** Connects to the others; a member lost on this channel is marked in {@code frozen} and reported as failed. */
    RdmaControl(final TransportContext context, final boolean[] frozen)
    {
        this.context = context;
        this.rows = context.rows();
        this.myRank = context.myRank();
        this.frozen = frozen;
        this.ringTargets = new int[rows];
        this.ringArrays = new int[rows + 1][];
        for (int n = 0; n <= rows; n++)
        {
            ringArrays[n] = new int[n]; // one per count: a ring allocates nothing
        }
        this.control = TcpTransport.open(new TransportContext(context.config(), CONTROL, (rank, reason) ->
        {
            frozen[rank] = true;
            context.failures().onMemberFailure(rank, reason);
        }, context.threadFailed(), context.tolerateMissing(), context.gone()));
        this.controlTable = control.table();
    }

    /**
     * Publishes this member's endpoint, row keys and table base; connects the endpoint to every peer that publishes
     * its own, filling {@code peerKey} and {@code peerBase}; returns once every live peer has connected too.
     */
    void exchange(final RdmaEndpoint endpoint, final long tableBase, final long[] peerKey, final long[] peerBase)
    {
        final byte[] address = endpoint.address();
        final byte[] name = new byte[address.length + 1];
        final RdmaBackend mine = context.config().transport().rdma().backend();
        name[0] = (byte)mine.ordinal(); // a mixed group is refused
        System.arraycopy(address, 0, name, 1, address.length);
        if (name.length > NAME_CAPACITY)
        {
            throw new TransportException("the rdma address of this member is " + name.length + " bytes, more than " +
                "the control table holds (" + NAME_CAPACITY + ")");
        }
        final long row = (long)myRank * CONTROL.rowSize();
        MemorySegment.copy(name, 0, controlTable, ValueLayout.JAVA_BYTE, row + NAME, name.length);
        for (int r = 0; r < rows; r++)
        {
            LONG.setRelease(controlTable, row + KEYS + 8L * r, endpoint.key(r));
        }
        LONG.setRelease(controlTable, row + BASE, tableBase);
        final int[] others = others();
        // the guard in a push of its own, after the push of what it guards: within one push a peer may see bytes in
        // any order, and could read the length before the name had landed and hand fi_av_insert part of a name (a
        // member stopped with "fi_av_insert ... failed" once in chaos over rdma)
        control.post((int)BASE, CONTROL.rowSize() - (int)BASE, others);
        LONG.setRelease(controlTable, row + NAME_LENGTH, (long)name.length);
        control.post((int)NAME_LENGTH, 8, others);
        control.flush();
        // two connect timeouts: a live peer may have spent one in its control channel's open, waiting for a member
        // that died before connecting to it but after connecting to this member (which so saw it fail at once)
        final long deadline = System.nanoTime() + 2 * context.config().transport().connectTimeout().toNanos();
        for (final int r : others)
        {
            final long length = awaitPublished(r, NAME_LENGTH, deadline, "publish its rdma endpoint");
            if (length < 0)
            {
                continue; // failed meanwhile
            }
            if (length > NAME_CAPACITY)
            {
                throw new TransportException("the member at rank " + r + " published an rdma address of " + length +
                    " bytes; the control table holds " + NAME_CAPACITY);
            }
            final long base = (long)r * CONTROL.rowSize();
            peerKey[r] = (long)LONG.getAcquire(controlTable, base + KEYS + 8L * myRank);
            peerBase[r] = (long)LONG.getAcquire(controlTable, base + BASE);
            final byte[] peer = controlTable.asSlice(base + NAME, length).toArray(ValueLayout.JAVA_BYTE);
            if (peer[0] != mine.ordinal())
            {
                throw new TransportException("the member at rank " + r + " uses another rdma backend than this " +
                    "member's " + mine.configName() + ": every member needs the same weft.transport.rdma.backend");
            }
            endpoint.connect(r, Arrays.copyOfRange(peer, 1, peer.length));
        }
        // a barrier before the first write: a peer still setting up has no queue pair ready to receive it (an RC
        // write to a queue pair not yet in RTR is dropped and retried by the NIC, and fails the peer after ~0.5 s)
        LONG.setRelease(controlTable, row + CONNECTED, 1L);
        control.post((int)CONNECTED, 8, others);
        control.flush();
        for (final int r : others)
        {
            awaitPublished(r, CONNECTED, deadline, "connect its rdma endpoint to the others");
        }
    }

    /**
     * Waits until member {@code r} publishes a positive value at {@code offset} of its control row; -1 if it fails.
     * Past the deadline, a table opened for a view change (which tolerates missing members, as tcp and shm do) reports
     * the member failed, so that the next view change removes it; any other open fails.
     */
    private long awaitPublished(final int r, final long offset, final long deadline, final String what)
    {
        final long at = (long)r * CONTROL.rowSize() + offset;
        while (!frozen[r])
        {
            final long value = (long)LONG.getAcquire(controlTable, at);
            if (value > 0)
            {
                return value;
            }
            if (System.nanoTime() > deadline)
            {
                final String why = "timed out after twice " + context.config().transport().connectTimeout() +
                    " waiting for member at rank " + r + " to " + what + " over the control channel";
                if (!context.tolerateMissing())
                {
                    throw new TransportException(why);
                }
                frozen[r] = true;
                context.failures().onMemberFailure(r, why);
                return -1;
            }
            LockSupport.parkNanos(1_000_000);
        }
        return -1;
    }

    private int[] others()
    {
        final int[] o = new int[rows - 1];
        for (int r = 0, i = 0; r < rows; r++)
        {
            if (r != myRank)
            {
                o[i++] = r;
            }
        }
        return o;
    }

    /**
     * Clears {@code targets} and rings those of them that are live (one control push), which rings their doorbells.
     * Under the transport's lock: the scratch arrays are shared.
     */
    void ring(final boolean[] targets)
    {
        int n = 0;
        for (int t = 0; t < rows; t++)
        {
            if (targets[t])
            {
                targets[t] = false;
                if (!frozen[t])
                {
                    ringTargets[n++] = t;
                }
            }
        }
        if (n > 0)
        {
            LONG.setRelease(controlTable, (long)myRank * CONTROL.rowSize() + RING, ++rings);
            final int[] ranks = ringArrays[n];
            System.arraycopy(ringTargets, 0, ranks, 0, n);
            control.post((int)RING, 8, ranks);
            control.flush();
        }
    }

    /** The control channel's doorbell: a peer's ring reaches this member as an update of its control table. */
    Doorbell doorbell()
    {
        return control.doorbell();
    }

    void freeze(final int rank)
    {
        control.freeze(rank);
    }

    /** A heartbeat beside the rdma writes: the control table's udp beat to each target. */
    void beat(final int[] targets)
    {
        control.beat(targets);
    }

    /** When a beat or a ring from {@code rank} last arrived. */
    long lastHeardNanos(final int rank)
    {
        return control.lastHeardNanos(rank);
    }

    @Override
    public void close()
    {
        control.close();
    }
}

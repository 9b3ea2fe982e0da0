package io.weft.sst.rdma;

import io.weft.sst.TransportException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.IntConsumer;

import static io.weft.sst.rdma.FabricAbi.*;

/**
 * One reliable-datagram endpoint with RMA, its completion queue, address vector and the registered table: what a
 * member needs to write its row into the others' copies. Set up with hints for RDM endpoints, FI_RMA, write-after-
 * write ordering (so a guard written after its payload is never seen first) and delivery-complete completions (so a
 * completed write is visible at the target). Both memory-registration styles work: mr_mode 0 (offsets, our key) and
 * VIRT_ADDR | PROV_KEY | LOCAL | ALLOCATED (hardware). Where the provider carries remote CQ data (cq_data_size > 0:
 * tcp;ofi_rxm, shm, verbs;ofi_rxm) every write is an fi_writedata, which leaves an entry in the target's completion
 * queue once the bytes are visible there, so the target wakes itself ({@link #wakesTargets()}). Not thread-safe:
 * {@link RdmaTransport} serialises calls.
 */
final class FabricEndpoint implements RdmaEndpoint
{
    /** Operation contexts (32 bytes each, FI_CONTEXT mode) in flight at once at most. */
    static final int CONTEXTS = 4096;
    private static final int CONTEXT_SIZE = 32;
    private static final int CQ_BATCH = 64;
    /** Own completions (one per context) and peers' remote CQ data: every write in flight to here, bounded likewise. */
    private static final long CQ_ENTRIES = 4L * CONTEXTS;

    private final Fabric lib;
    private final Arena arena = Arena.ofShared();
    final String provider;
    final boolean virtAddr;
    final boolean manualProgress;
    /** Whether writes carry remote CQ data: the target learns of each from its own completion queue. */
    final boolean remoteData;
    private MemorySegment info = MemorySegment.NULL;
    private MemorySegment fabric = MemorySegment.NULL;
    private MemorySegment domain = MemorySegment.NULL;
    private MemorySegment cq = MemorySegment.NULL;
    private MemorySegment av = MemorySegment.NULL;
    private MemorySegment ep = MemorySegment.NULL;
    /** One registration per row, so that a frozen member's can be closed; NULL once revoked. */
    private final MemorySegment[] mrs;
    private final long[] keys;
    private MemorySegment desc = MemorySegment.NULL; // of this member's own row, the source of every write
    private final MemorySegment contexts;
    private final WriteContexts inFlight;
    private final long[] peers = new long[io.weft.config.GroupConfig.MAX_MEMBERS];
    private final MemorySegment cqEntries;
    private final MemorySegment errEntry;
    private MethodHandle write;
    private MethodHandle writeData;
    private MethodHandle cqRead;
    private MethodHandle cqReadErr;

    /**
     * @param table        the whole table, {@code rows} rows of {@code rowSize} bytes; row {@code myRank} is this
     *                     member's, the source of its writes.
     * @param requestedKey where the provider lets the application choose keys: the first of {@code rows} keys.
     */
    FabricEndpoint(final String provider, final String node, final MemorySegment table, final int rows,
        final long rowSize, final int myRank, final long requestedKey)
    {
        this.mrs = new MemorySegment[rows];
        this.keys = new long[rows];
        java.util.Arrays.fill(mrs, MemorySegment.NULL);
        this.lib = Fabric.load();
        this.provider = provider;
        this.contexts = arena.allocate((long)CONTEXTS * CONTEXT_SIZE, 64);
        this.inFlight = new WriteContexts(CONTEXTS, rows, CONTEXTS / Math.max(1, rows - 1));
        this.cqEntries = arena.allocate(CQ_BATCH * FI_CQ_DATA_ENTRY_SIZE, 8);
        this.errEntry = arena.allocate(FI_CQ_ERR_ENTRY_SIZE, 8);
        try
        {
            // providers initialise (and libpsm2 installs signal handlers) here: keep the JVM's handlers
            this.info = JvmSignals.preserve(() -> getinfo(provider, node));
            final MemorySegment domainAttr = Fabric.ptr(info, FI_INFO_DOMAIN_ATTR);
            final int mrMode = Fabric.i32(domainAttr, FI_DOMAIN_ATTR_MR_MODE);
            this.virtAddr = (mrMode & FI_MR_VIRT_ADDR) != 0;
            this.manualProgress = Fabric.i32(domainAttr, FI_DOMAIN_ATTR_DATA_PROGRESS) == FI_PROGRESS_MANUAL;
            this.remoteData = Fabric.u64(domainAttr, FI_DOMAIN_ATTR_CQ_DATA_SIZE) > 0;
            final boolean providerKey = (mrMode & FI_MR_PROV_KEY) != 0;
            JvmSignals.preserve(() ->
            {
                open(table, rowSize, myRank, requestedKey, providerKey);
                return null;
            });
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    private MemorySegment getinfo(final String provider, final String node)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment hints = (MemorySegment)lib.dupinfo.invokeExact(MemorySegment.NULL);
            try
            {
                Fabric.setU64(hints, FI_INFO_CAPS, FI_RMA | FI_WRITE | FI_REMOTE_WRITE);
                Fabric.setU64(hints, FI_INFO_MODE, FI_CONTEXT);
                Fabric.setI32(Fabric.ptr(hints, FI_INFO_EP_ATTR), FI_EP_ATTR_TYPE, (int)FI_EP_RDM);
                final MemorySegment domainAttr = Fabric.ptr(hints, FI_INFO_DOMAIN_ATTR);
                Fabric.setI32(domainAttr, FI_DOMAIN_ATTR_MR_MODE,
                    (int)(FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY));
                Fabric.setI32(domainAttr, FI_DOMAIN_ATTR_THREADING, (int)FI_THREAD_SAFE);
                final MemorySegment txAttr = Fabric.ptr(hints, FI_INFO_TX_ATTR);
                Fabric.setU64(txAttr, FI_TX_ATTR_MSG_ORDER, FI_ORDER_WAW);
                Fabric.setU64(txAttr, FI_TX_ATTR_OP_FLAGS, FI_DELIVERY_COMPLETE);
                // fi_freeinfo frees prov_name: it must come from malloc
                final MemorySegment name = (MemorySegment)lib.strdup.invokeExact(call.allocateFrom(provider));
                Fabric.setPtr(Fabric.ptr(hints, FI_INFO_FABRIC_ATTR), FI_FABRIC_ATTR_PROV_NAME, name);
                final MemorySegment result = call.allocate(ValueLayout.ADDRESS);
                final MemorySegment nodeString = node == null ? MemorySegment.NULL : call.allocateFrom(node);
                final int rc = (int)lib.getinfo.invokeExact((int)FI_VERSION_1_17, nodeString, MemorySegment.NULL,
                    node == null ? 0L : FI_SOURCE, hints, result);
                if (rc != 0)
                {
                    throw new TransportException("libfabric provider '" + provider + "' is not available here for " +
                        "reliable-datagram RMA with write-after-write ordering" + (node == null ? "" : " on " + node) +
                        " (fi_getinfo: " + lib.error(rc) + "). Pick another weft.transport.rdma.provider " +
                        "(tcp;ofi_rxm or shm without RDMA hardware, verbs;ofi_rxm on InfiniBand/RoCE; `fi_info -l` " +
                        "lists them) or another transport: weft.transport.kind = tcp or shm");
                }
                return result.get(ValueLayout.ADDRESS, 0);
            }
            finally
            {
                lib.freeinfo.invokeExact(hints);
            }
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable t)
        {
            throw new TransportException("fi_getinfo failed: " + t, t);
        }
    }

    /** The providers of this host that offer reliable-datagram RMA endpoints (what the rdma transport needs). */
    static java.util.List<String> rmaProviders()
    {
        final Fabric lib = Fabric.load();
        return JvmSignals.preserve(() ->
        {
            try (Arena call = Arena.ofConfined())
            {
                final MemorySegment hints = (MemorySegment)lib.dupinfo.invokeExact(MemorySegment.NULL);
                final java.util.Set<String> names = new java.util.LinkedHashSet<>();
                try
                {
                    Fabric.setU64(hints, FI_INFO_CAPS, FI_RMA | FI_WRITE | FI_REMOTE_WRITE);
                    Fabric.setU64(hints, FI_INFO_MODE, FI_CONTEXT);
                    Fabric.setI32(Fabric.ptr(hints, FI_INFO_EP_ATTR), FI_EP_ATTR_TYPE, (int)FI_EP_RDM);
                    final MemorySegment result = call.allocate(ValueLayout.ADDRESS);
                    final int rc = (int)lib.getinfo.invokeExact((int)FI_VERSION_1_17, MemorySegment.NULL,
                        MemorySegment.NULL, 0L, hints, result);
                    if (rc != 0)
                    {
                        return java.util.List.<String>of();
                    }
                    final MemorySegment first = result.get(ValueLayout.ADDRESS, 0);
                    for (MemorySegment i = first; !i.equals(MemorySegment.NULL); i = Fabric.ptr(i, FI_INFO_NEXT))
                    {
                        names.add(Fabric.ptr(Fabric.ptr(i, FI_INFO_FABRIC_ATTR), FI_FABRIC_ATTR_PROV_NAME)
                            .reinterpret(256).getString(0));
                    }
                    lib.freeinfo.invokeExact(first);
                }
                finally
                {
                    lib.freeinfo.invokeExact(hints);
                }
                return java.util.List.copyOf(names);
            }
            catch (final Throwable t)
            {
                throw new TransportException("fi_getinfo failed: " + t, t);
            }
        });
    }

    private void open(final MemorySegment table, final long rowSize, final int myRank, final long requestedKey,
        final boolean providerKey)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment out = call.allocate(ValueLayout.ADDRESS);
            check("fi_fabric", (int)lib.fabric.invokeExact(Fabric.ptr(info, FI_INFO_FABRIC_ATTR), out,
                MemorySegment.NULL));
            fabric = out.get(ValueLayout.ADDRESS, 0);
            check("fi_domain", (int)Fabric.op(fabric, FID_FABRIC_OPS, FI_OPS_FABRIC_DOMAIN, Fabric.OPEN4)
                .invokeExact(fabric, info, out, MemorySegment.NULL));
            domain = out.get(ValueLayout.ADDRESS, 0);
            final MemorySegment cqAttr = call.allocate(FI_CQ_ATTR_SIZE, 8);
            Fabric.setU64(cqAttr, FI_CQ_ATTR_ENTRIES, CQ_ENTRIES);
            Fabric.setI32(cqAttr, FI_CQ_ATTR_FORMAT, (int)FI_CQ_FORMAT_DATA); // flags tell peers' writes from ours
            check("fi_cq_open", (int)Fabric.op(domain, FID_DOMAIN_OPS, FI_OPS_DOMAIN_CQ_OPEN, Fabric.OPEN4)
                .invokeExact(domain, cqAttr, out, MemorySegment.NULL));
            cq = out.get(ValueLayout.ADDRESS, 0);
            final MemorySegment avAttr = call.allocate(FI_AV_ATTR_SIZE, 8);
            Fabric.setI32(avAttr, FI_AV_ATTR_TYPE, (int)FI_AV_TABLE);
            check("fi_av_open", (int)Fabric.op(domain, FID_DOMAIN_OPS, FI_OPS_DOMAIN_AV_OPEN, Fabric.OPEN4)
                .invokeExact(domain, avAttr, out, MemorySegment.NULL));
            av = out.get(ValueLayout.ADDRESS, 0);
            check("fi_endpoint", (int)Fabric.op(domain, FID_DOMAIN_OPS, FI_OPS_DOMAIN_ENDPOINT, Fabric.OPEN4)
                .invokeExact(domain, info, out, MemorySegment.NULL));
            ep = out.get(ValueLayout.ADDRESS, 0);
            final MethodHandle bind = Fabric.op(ep, FID_OPS, FI_OPS_BIND, Fabric.BIND);
            check("fi_ep_bind(cq)", (int)bind.invokeExact(ep, cq, FI_TRANSMIT | FI_RECV));
            check("fi_ep_bind(av)", (int)bind.invokeExact(ep, av, 0L));
            check("fi_enable", (int)Fabric.op(ep, FID_OPS, FI_OPS_CONTROL, Fabric.CONTROL)
                .invokeExact(ep, (int)FI_ENABLE, MemorySegment.NULL));
            final MethodHandle register = Fabric.op(domain, FID_DOMAIN_MR, FI_OPS_MR_REG, Fabric.MR_REG);
            for (int r = 0; r < mrs.length; r++)
            {
                final MemorySegment row = table.asSlice(r * rowSize, rowSize);
                check("fi_mr_reg of row " + r, (int)register.invokeExact(domain, row, rowSize,
                    r == myRank ? FI_WRITE : FI_REMOTE_WRITE, 0L, providerKey ? 0L : requestedKey + r, 0L, out,
                    MemorySegment.NULL));
                mrs[r] = out.get(ValueLayout.ADDRESS, 0);
                keys[r] = Fabric.u64(mrs[r], FID_MR_KEY);
            }
            desc = Fabric.ptr(mrs[myRank], FID_MR_MEM_DESC);
            write = Fabric.op(ep, FID_EP_RMA, FI_OPS_RMA_WRITE, Fabric.WRITE);
            writeData = Fabric.op(ep, FID_EP_RMA, FI_OPS_RMA_WRITEDATA, Fabric.WRITEDATA);
            cqRead = Fabric.op(cq, FID_CQ_OPS, FI_OPS_CQ_READ, Fabric.CQ_READ);
            cqReadErr = Fabric.op(cq, FID_CQ_OPS, FI_OPS_CQ_READERR, Fabric.CQ_READERR);
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable t)
        {
            throw new TransportException("libfabric set-up failed: " + t, t);
        }
    }

    private void check(final String call, final int rc)
    {
        if (rc != 0)
        {
            throw new TransportException(call + " failed with provider " + provider + ": " + lib.error(rc));
        }
    }

    /** This endpoint's name, to be inserted into the peers' address vectors. */
    @Override
    public byte[] address()
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment buf = call.allocate(512);
            final MemorySegment len = call.allocate(ValueLayout.JAVA_LONG);
            len.set(ValueLayout.JAVA_LONG, 0, 512);
            check("fi_getname", (int)Fabric.op(ep, FID_EP_CM, FI_OPS_CM_GETNAME, Fabric.GETNAME).invokeExact(ep, buf,
                len));
            return buf.asSlice(0, len.get(ValueLayout.JAVA_LONG, 0)).toArray(ValueLayout.JAVA_BYTE);
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable t)
        {
            throw new TransportException("fi_getname failed: " + t, t);
        }
    }

    @Override
    public long key(final int rank)
    {
        return keys[rank];
    }

    @Override
    public void revoke(final int rank)
    {
        Fabric.close(mrs[rank]); // the provider checks the key of every incoming write: a closed one is refused
        mrs[rank] = MemorySegment.NULL;
    }

    @Override
    public boolean virtualAddresses()
    {
        return virtAddr;
    }

    /** Inserts the peer's endpoint name into the address vector. */
    @Override
    public void connect(final int rank, final byte[] peerName)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment addr = call.allocate(ValueLayout.JAVA_LONG);
            final int n = (int)Fabric.op(av, FID_AV_OPS, FI_OPS_AV_INSERT, Fabric.AV_INSERT).invokeExact(av,
                call.allocateFrom(ValueLayout.JAVA_BYTE, peerName), 1L, addr, 0L, MemorySegment.NULL);
            if (n != 1)
            {
                throw new TransportException("fi_av_insert of the endpoint of the member at rank " + rank +
                    " failed: " + lib.error(n));
            }
            peers[rank] = addr.get(ValueLayout.JAVA_LONG, 0);
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable t)
        {
            throw new TransportException("fi_av_insert failed: " + t, t);
        }
    }

    /**
     * One fi_write, or fi_writedata where the provider carries remote CQ data; {@code remoteAddress} is an offset, or
     * a virtual address under FI_MR_VIRT_ADDR. No room means -FI_EAGAIN from the provider, every operation context in
     * use, or the target holding its share of them. Every write reports its completion (FI_DELIVERY_COMPLETE: visible
     * at the target).
     */
    @Override
    public boolean write(final long localAddress, final int length, final int targetRank, final long remoteAddress,
        final long remoteKey)
    {
        final int c = inFlight.peek(targetRank);
        if (c < 0)
        {
            return false;
        }
        final long context = contexts.address() + (long)c * CONTEXT_SIZE;
        final long rc;
        try
        {
            rc = remoteData
                ? (long)writeData.invokeExact(ep, localAddress, (long)length, desc, 0L, peers[targetRank],
                    remoteAddress,
                    remoteKey, context)
                : (long)write.invokeExact(ep, localAddress, (long)length, desc, peers[targetRank], remoteAddress,
                    remoteKey, context);
        }
        catch (final Throwable t)
        {
            throw new TransportException("fi_write failed: " + t, t);
        }
        if (rc == -FI_EAGAIN)
        {
            return false;
        }
        if (rc != 0)
        {
            throw new TransportException("fi_write to member at rank " + targetRank + " failed: " + lib.error((int)rc));
        }
        inFlight.posted(targetRank);
        return true;
    }

    @Override
    public void requestCompletion(final int rank)
    {
        // every write already reports its completion
    }

    @Override
    public int outstanding()
    {
        return inFlight.outstanding();
    }

    @Override
    public long posted(final int rank)
    {
        return inFlight.postedTo(rank);
    }

    @Override
    public long completed(final int rank)
    {
        return inFlight.completedTo(rank);
    }

    /** Accounts one completion by its context; returns the target it was for, or -1. */
    private int completed(final long context)
    {
        final long index = (context - contexts.address()) / CONTEXT_SIZE;
        if (index < 0 || index >= CONTEXTS)
        {
            return -1;
        }
        return inFlight.completed((int)index);
    }

    @Override
    public boolean wakesTargets()
    {
        return remoteData;
    }

    /**
     * Drives progress (for manual-progress providers this is also what lets peers' writes land here) and reaps
     * completions: this member's writes by their contexts, peers' writes by their remote CQ data. Error completions
     * name the target that failed.
     */
    @Override
    public boolean progress(final IntConsumer failedTarget)
    {
        boolean landed = false;
        try
        {
            while (true)
            {
                final long n = (long)cqRead.invokeExact(cq, cqEntries, (long)CQ_BATCH);
                if (n > 0)
                {
                    for (long e = 0; e < n * FI_CQ_DATA_ENTRY_SIZE; e += FI_CQ_DATA_ENTRY_SIZE)
                    {
                        if ((cqEntries.get(ValueLayout.JAVA_LONG, e + FI_CQ_DATA_ENTRY_FLAGS) & FI_REMOTE_CQ_DATA) != 0)
                        {
                            landed = true; // a peer's write, visible here
                        }
                        else
                        {
                            completed(cqEntries.get(ValueLayout.JAVA_LONG, e + FI_CQ_DATA_ENTRY_OP_CONTEXT));
                        }
                    }
                    continue;
                }
                if (n == -FI_EAVAIL)
                {
                    final long r = (long)cqReadErr.invokeExact(cq, errEntry, 0L);
                    if (r > 0)
                    {
                        final int target = completed(errEntry.get(ValueLayout.JAVA_LONG, FI_CQ_ERR_ENTRY_OP_CONTEXT));
                        if (target >= 0)
                        {
                            failedTarget.accept(target);
                        }
                    }
                    continue;
                }
                return landed; // -FI_EAGAIN: nothing more now
            }
        }
        catch (final Throwable t)
        {
            throw new TransportException("fi_cq_read failed: " + t, t);
        }
    }

    @Override
    public String describe()
    {
        return "libfabric provider " + provider + ", " + (virtAddr ? "virtual addresses" : "offsets") + ", " +
            (manualProgress ? "manual" : "auto") + " progress, " + (remoteData ? "targets woken by remote CQ data" :
            "targets rung over the control channel");
    }

    @Override
    public void close()
    {
        Fabric.close(ep);
        for (int r = 0; r < mrs.length; r++)
        {
            Fabric.close(mrs[r]);
            mrs[r] = MemorySegment.NULL;
        }
        Fabric.close(av);
        Fabric.close(cq);
        Fabric.close(domain);
        Fabric.close(fabric);
        ep = av = cq = domain = fabric = MemorySegment.NULL;
        if (!info.equals(MemorySegment.NULL))
        {
            try
            {
                lib.freeinfo.invokeExact(info);
            }
            catch (final Throwable ignored)
            {
                // closing
            }
            info = MemorySegment.NULL;
        }
        arena.close();
    }
}

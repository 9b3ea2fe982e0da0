package io.weft.sst.rdma;

import io.weft.sst.TransportException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

import static io.weft.sst.rdma.VerbsAbi.*;

/**
 * java.lang.foreign bindings to libibverbs for bare-metal RDMA NICs: device discovery, and the hot path. The hot
 * calls {@code ibv_post_send} and {@code ibv_poll_cq} are static inline in the headers, so they are made the way the
 * headers make them, through the function pointers in {@code qp->context->ops} / {@code cq->context->ops}
 * ({@link VerbsAbi} holds the offsets, checked against the headers). The queue-pair transport that uses them on
 * hardware is not built yet; discovery and the dispatch are, and are tested (the dispatch against a C test double).
 */
public final class Verbs
{
    static final String LIBRARY = "libibverbs.so.1";
    private static final int ENOSYS = 38;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;

    private Verbs(final SymbolLookup lib)
    {
        getDeviceList = LINKER.downcallHandle(find(lib, "ibv_get_device_list"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS), Linker.Option.captureCallState("errno"));
        freeDeviceList = LINKER.downcallHandle(find(lib, "ibv_free_device_list"),
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        getDeviceName = LINKER.downcallHandle(find(lib, "ibv_get_device_name"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    }

    /** Loads libibverbs; a clear {@link TransportException} when it is not installed. */
    public static Verbs load()
    {
        try
        {
            return new Verbs(JvmSignals.preserve(() -> SymbolLookup.libraryLookup(LIBRARY, Arena.global())));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new TransportException("the verbs backend needs libibverbs, which is not installed: looked for " +
                LIBRARY + " (Debian/Ubuntu: apt-get install libibverbs1)");
        }
    }

    /** Whether libibverbs can be loaded here. */
    public static boolean installed()
    {
        try
        {
            load();
            return true;
        }
        catch (final TransportException ex)
        {
            return false;
        }
    }

    private static MemorySegment find(final SymbolLookup lib, final String name)
    {
        return lib.find(name).orElseThrow(() -> new TransportException(LIBRARY + " lacks " + name));
    }

    /**
     * The names of the RDMA devices of this host; empty when there are none. A kernel without verbs support makes
     * {@code ibv_get_device_list} return NULL with errno ENOSYS: that is "no devices", not an error.
     */
    public List<String> devices()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CALL_STATE);
            final MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            final MemorySegment list = (MemorySegment)getDeviceList.invokeExact(state, count);
            if (list.equals(MemorySegment.NULL))
            {
                final int errno = (int)ERRNO.get(state, 0L);
                if (errno == ENOSYS || errno == 0)
                {
                    return List.of();
                }
                throw new TransportException("ibv_get_device_list failed with errno " + errno);
            }
            try
            {
                final int n = count.get(ValueLayout.JAVA_INT, 0);
                final MemorySegment devices = list.reinterpret((long)n * 8);
                final List<String> names = new ArrayList<>();
                for (int i = 0; i < n; i++)
                {
                    final MemorySegment name = (MemorySegment)getDeviceName.invokeExact(devices.getAtIndex(ValueLayout.ADDRESS, i));
                    names.add(name.reinterpret(64).getString(0));
                }
                return names;
            }
            finally
            {
                freeDeviceList.invokeExact(list);
            }
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable t)
        {
            throw new TransportException("RDMA device discovery failed: " + t, t);
        }
    }

    /** The first device, or a clear error saying there is none and what to use instead. */
    public String requireDevice()
    {
        final List<String> devices = devices();
        if (devices.isEmpty())
        {
            throw new TransportException("no RDMA devices: ibv_get_device_list found none on this host (no " +
                "InfiniBand/RoCE NIC, or a kernel without verbs support). Use weft.transport.rdma.provider = " +
                "tcp;ofi_rxm (or shm on one host), or weft.transport.kind = tcp");
        }
        return devices.getFirst();
    }

    /**
     * The verbs hot path for one queue pair and completion queue: RDMA WRITE work requests built in preallocated
     * memory (no allocation per write) and posted through {@code qp->context->ops.post_send}; completions read through
     * {@code cq->context->ops.poll_cq}. Not thread-safe.
     */
    public static final class QueuePair
    {
        private static final FunctionDescriptor POST_SEND = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS);
        private static final FunctionDescriptor POLL_CQ = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
        private static final int MAX_WC = 64;

        private final MemorySegment qp;
        private final MemorySegment cq;
        private final MethodHandle postSend;
        private final MethodHandle pollCq;
        private final Arena arena = Arena.ofConfined();
        private final MemorySegment wr = arena.allocate(SEND_WR_SIZE, 8);
        private final MemorySegment sge = arena.allocate(SGE_SIZE, 8);
        private final MemorySegment badWr = arena.allocate(ValueLayout.ADDRESS);
        private final MemorySegment wc = arena.allocate(WC_SIZE * MAX_WC, 8);

        public QueuePair(final MemorySegment qp, final MemorySegment cq)
        {
            this.qp = qp;
            this.cq = cq;
            this.postSend = LINKER.downcallHandle(opsFunction(qp, QP_CONTEXT, CONTEXT_OPS_POST_SEND), POST_SEND,
                Linker.Option.critical(false));
            this.pollCq = LINKER.downcallHandle(opsFunction(cq, CQ_CONTEXT, CONTEXT_OPS_POLL_CQ), POLL_CQ,
                Linker.Option.critical(false));
        }

        private static MemorySegment opsFunction(final MemorySegment object, final long contextField, final long slot)
        {
            final MemorySegment context = object.reinterpret(contextField + 8).get(ValueLayout.ADDRESS, contextField);
            final MemorySegment fn = context.reinterpret(slot + 8).get(ValueLayout.ADDRESS, slot);
            if (fn.equals(MemorySegment.NULL))
            {
                throw new TransportException("the verbs device context has no function at ops offset " + slot);
            }
            return fn;
        }

        /**
         * Posts one RDMA WRITE of {@code length} bytes from {@code localAddress} (registered with {@code lkey}) to
         * {@code remoteAddress} / {@code rkey}; inline when small enough for the device, signalled only when asked
         * (selective signalling). Returns 0, or the errno post_send gave.
         */
        public int write(final long wrId, final long localAddress, final int length, final int lkey,
            final long remoteAddress, final int rkey, final boolean signaled, final boolean inline)
        {
            sge.set(ValueLayout.JAVA_LONG, SGE_ADDR, localAddress);
            sge.set(ValueLayout.JAVA_INT, SGE_LENGTH, length);
            sge.set(ValueLayout.JAVA_INT, SGE_LKEY, lkey);
            wr.fill((byte)0);
            wr.set(ValueLayout.JAVA_LONG, SEND_WR_ID, wrId);
            wr.set(ValueLayout.ADDRESS, SEND_WR_SG_LIST, sge);
            wr.set(ValueLayout.JAVA_INT, SEND_WR_NUM_SGE, 1);
            wr.set(ValueLayout.JAVA_INT, SEND_WR_OPCODE, (int)WR_RDMA_WRITE);
            wr.set(ValueLayout.JAVA_INT, SEND_WR_SEND_FLAGS, (int)((signaled ? SEND_SIGNALED : 0) | (inline ? SEND_INLINE : 0)));
            wr.set(ValueLayout.JAVA_LONG, SEND_WR_REMOTE_ADDR, remoteAddress);
            wr.set(ValueLayout.JAVA_INT, SEND_WR_RKEY, rkey);
            try
            {
                return (int)postSend.invokeExact(qp, wr, badWr);
            }
            catch (final Throwable t)
            {
                throw new TransportException("ibv_post_send failed: " + t, t);
            }
        }

        /**
         * Polls up to {@code wrIds.length} completions; fills their work-request ids and statuses (0 = success).
         * Returns how many, or a negative value on a completion-queue error.
         */
        public int poll(final long[] wrIds, final int[] statuses)
        {
            final int max = Math.min(MAX_WC, wrIds.length);
            final int n;
            try
            {
                n = (int)pollCq.invokeExact(cq, max, wc);
            }
            catch (final Throwable t)
            {
                throw new TransportException("ibv_poll_cq failed: " + t, t);
            }
            for (int i = 0; i < n; i++)
            {
                wrIds[i] = wc.get(ValueLayout.JAVA_LONG, i * WC_SIZE + WC_WR_ID);
                statuses[i] = wc.get(ValueLayout.JAVA_INT, i * WC_SIZE + WC_STATUS);
            }
            return n;
        }
    }
}

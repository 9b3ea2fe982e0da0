package io.weft.sst.rdma;

import io.weft.sst.TransportException;

import java.lang.foreign.AddressLayout;
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
 * java.lang.foreign bindings to libibverbs for bare-metal RDMA NICs. The set-up calls are exported symbols and bound by
 * name; the hot calls {@code ibv_post_send} and {@code ibv_poll_cq} are static inline in the headers, so they are made
 * the way the headers make them, through the function pointers in {@code qp->context->ops} /
 * {@code cq->context->ops} ({@link VerbsAbi} holds the offsets, checked against the headers). {@link VerbsEndpoint}
 * puts them together into one reliable-connected queue pair per peer.
 */
public final class Verbs
{
    static final String LIBRARY = io.weft.config.VerbsOptions.DEFAULTS.library();
    private static final int ENOSYS = 38;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final AddressLayout PTR = ValueLayout.ADDRESS;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final Linker.Option ERRNO_STATE = Linker.Option.captureCallState("errno");

    final String library;
    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;
    final MethodHandle openDevice;
    final MethodHandle closeDevice;
    final MethodHandle queryPort;
    final MethodHandle queryGid;
    final MethodHandle allocPd;
    final MethodHandle deallocPd;
    final MethodHandle regMr;
    final MethodHandle deregMr;
    final MethodHandle createCq;
    final MethodHandle destroyCq;
    final MethodHandle createQp;
    final MethodHandle destroyQp;
    final MethodHandle modifyQp;

    private Verbs(final String library, final SymbolLookup lib)
    {
        this.library = library;
        getDeviceList = LINKER.downcallHandle(find(lib, "ibv_get_device_list"), FunctionDescriptor.of(PTR, PTR),
            ERRNO_STATE);
        freeDeviceList = LINKER.downcallHandle(find(lib, "ibv_free_device_list"), FunctionDescriptor.ofVoid(PTR));
        getDeviceName = LINKER.downcallHandle(find(lib, "ibv_get_device_name"), FunctionDescriptor.of(PTR, PTR));
        openDevice = LINKER.downcallHandle(find(lib, "ibv_open_device"), FunctionDescriptor.of(PTR, PTR), ERRNO_STATE);
        closeDevice = LINKER.downcallHandle(find(lib, "ibv_close_device"), FunctionDescriptor.of(INT, PTR));
        // the exported ibv_query_port fills the leading (compat) part of ibv_port_attr: all the fields read here
        queryPort = LINKER.downcallHandle(find(lib, "ibv_query_port"),
            FunctionDescriptor.of(INT, PTR, ValueLayout.JAVA_BYTE, PTR));
        queryGid = LINKER.downcallHandle(find(lib, "ibv_query_gid"),
            FunctionDescriptor.of(INT, PTR, ValueLayout.JAVA_BYTE, INT, PTR));
        allocPd = LINKER.downcallHandle(find(lib, "ibv_alloc_pd"), FunctionDescriptor.of(PTR, PTR), ERRNO_STATE);
        deallocPd = LINKER.downcallHandle(find(lib, "ibv_dealloc_pd"), FunctionDescriptor.of(INT, PTR));
        regMr = LINKER.downcallHandle(find(lib, "ibv_reg_mr"),
            FunctionDescriptor.of(PTR, PTR, PTR, ValueLayout.JAVA_LONG, INT), ERRNO_STATE);
        deregMr = LINKER.downcallHandle(find(lib, "ibv_dereg_mr"), FunctionDescriptor.of(INT, PTR));
        createCq = LINKER.downcallHandle(find(lib, "ibv_create_cq"),
            FunctionDescriptor.of(PTR, PTR, INT, PTR, PTR, INT), ERRNO_STATE);
        destroyCq = LINKER.downcallHandle(find(lib, "ibv_destroy_cq"), FunctionDescriptor.of(INT, PTR));
        createQp = LINKER.downcallHandle(find(lib, "ibv_create_qp"), FunctionDescriptor.of(PTR, PTR, PTR), ERRNO_STATE);
        destroyQp = LINKER.downcallHandle(find(lib, "ibv_destroy_qp"), FunctionDescriptor.of(INT, PTR));
        modifyQp = LINKER.downcallHandle(find(lib, "ibv_modify_qp"), FunctionDescriptor.of(INT, PTR, PTR, INT));
    }

    /** Loads the default libibverbs; a clear {@link TransportException} when it is not installed. */
    public static Verbs load()
    {
        return load(LIBRARY);
    }

    /** Loads {@code library} (a name on the loader path or an absolute path). */
    public static Verbs load(final String library)
    {
        try
        {
            return new Verbs(library, JvmSignals.preserve(() -> library.contains("/") ?
                SymbolLookup.libraryLookup(java.nio.file.Path.of(library), Arena.global()) :
                SymbolLookup.libraryLookup(library, Arena.global())));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new TransportException("the verbs backend needs libibverbs, which could not be loaded: looked for " +
                library + " (weft.transport.rdma.verbs.library; Debian/Ubuntu: apt-get install libibverbs1), or use " +
                "weft.transport.rdma.backend = libfabric");
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

    private MemorySegment find(final SymbolLookup lib, final String name)
    {
        return lib.find(name).orElseThrow(() -> new TransportException(library + " lacks " + name));
    }

    /**
     * The names of the RDMA devices of this host; empty when there are none. A kernel without verbs support makes
     * {@code ibv_get_device_list} return NULL with errno ENOSYS: that is "no devices", not an error.
     */
    public List<String> devices()
    {
        final List<String> names = new ArrayList<>();
        withDevices((name, device) ->
        {
            names.add(name);
            return false;
        });
        return names;
    }

    /** An open device: its name and {@code ibv_context}. */
    record Device(String name, MemorySegment context)
    {
    }

    /**
     * Opens the device named {@code name} (the first when empty); a clear error when there is no such device, naming
     * those there are.
     */
    Device open(final String name)
    {
        final Device[] opened = {null};
        final List<String> seen = new ArrayList<>();
        withDevices((deviceName, device) ->
        {
            seen.add(deviceName);
            if (!name.isEmpty() && !name.equals(deviceName))
            {
                return false;
            }
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = arena.allocate(CALL_STATE);
                final MemorySegment ctx = (MemorySegment)openDevice.invokeExact(state, device);
                if (ctx.equals(MemorySegment.NULL))
                {
                    throw new TransportException("ibv_open_device(" + deviceName + ") failed: " + errno(state));
                }
                opened[0] = new Device(deviceName, ctx);
                return true;
            }
            catch (final TransportException ex)
            {
                throw ex;
            }
            catch (final Throwable t)
            {
                throw new TransportException("ibv_open_device failed: " + t, t);
            }
        });
        if (opened[0] == null)
        {
            if (seen.isEmpty())
            {
                throw noDevices();
            }
            throw new TransportException("no RDMA device named " + name + " (weft.transport.rdma.verbs.device): this " +
                "host has " + seen);
        }
        return opened[0];
    }

    private interface DeviceVisitor
    {
        /** Returns true to stop. */
        boolean visit(String name, MemorySegment device) throws Throwable;
    }

    private void withDevices(final DeviceVisitor visitor)
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
                    return;
                }
                throw new TransportException("ibv_get_device_list failed with errno " + errno);
            }
            try
            {
                final int n = count.get(ValueLayout.JAVA_INT, 0);
                final MemorySegment devices = list.reinterpret((long)n * DEVICE_LIST_ENTRY);
                for (int i = 0; i < n; i++)
                {
                    final MemorySegment device = devices.getAtIndex(ValueLayout.ADDRESS, i);
                    final MemorySegment name = (MemorySegment)getDeviceName.invokeExact(device);
                    if (visitor.visit(name.reinterpret(64).getString(0), device))
                    {
                        return;
                    }
                }
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
            throw noDevices();
        }
        return devices.getFirst();
    }

    private static TransportException noDevices()
    {
        return new TransportException("no RDMA devices: ibv_get_device_list found none on this host (no " +
            "InfiniBand/RoCE NIC, or a kernel without verbs support). Use weft.transport.rdma.backend = libfabric " +
            "with provider tcp;ofi_rxm (or shm on one host), or weft.transport.kind = tcp");
    }

    /** The errno a call captured in {@code state}, with its name where it is a common one. */
    static String errno(final MemorySegment state)
    {
        final int errno = (int)ERRNO.get(state, 0L);
        return "errno " + errno + switch (errno)
        {
            case 1 -> " (EPERM)";
            case 12 -> " (ENOMEM: raise the locked-memory limit, ulimit -l / LimitMEMLOCK)";
            case 13 -> " (EACCES)";
            case 19 -> " (ENODEV)";
            case 22 -> " (EINVAL)";
            default -> "";
        };
    }

    static MemorySegment callState(final Arena arena)
    {
        return arena.allocate(CALL_STATE);
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
     * The send side of one queue pair: RDMA WRITE work requests built in preallocated memory (nothing allocated per
     * write) and posted through {@code qp->context->ops.post_send}. Not thread-safe: one poster at a time.
     */
    public static final class SendQueue implements AutoCloseable
    {
        private static final FunctionDescriptor POST_SEND = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS);

        private final MemorySegment qp;
        private final MethodHandle postSend;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment wr = arena.allocate(SEND_WR_SIZE, 8);
        private final MemorySegment sge = arena.allocate(SGE_SIZE, 8);
        private final MemorySegment badWr = arena.allocate(ValueLayout.ADDRESS);

        /** The send side of queue pair {@code qp}, with its work request and gather entry built once. */
        public SendQueue(final MemorySegment qp)
        {
            this.qp = qp;
            this.postSend = LINKER.downcallHandle(opsFunction(qp, QP_CONTEXT, CONTEXT_OPS_POST_SEND), POST_SEND,
                Linker.Option.critical(false));
        }

        /**
         * Posts one RDMA WRITE of {@code length} bytes from {@code localAddress} (registered with {@code lkey}) to
         * {@code remoteAddress} / {@code rkey}; inline when asked (small enough for the queue pair), signalled only
         * when asked (selective signalling). A zero-length write carries no scatter-gather entry. Returns 0, or the
         * errno post_send gave.
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
            wr.set(ValueLayout.JAVA_INT, SEND_WR_NUM_SGE, length == 0 ? 0 : 1);
            wr.set(ValueLayout.JAVA_INT, SEND_WR_OPCODE, (int)WR_RDMA_WRITE);
            wr.set(ValueLayout.JAVA_INT, SEND_WR_SEND_FLAGS,
                (int)((signaled ? SEND_SIGNALED : 0) | (inline ? SEND_INLINE : 0)));
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

        @Override
        public void close()
        {
            arena.close();
        }
    }

    /** A completion queue read through {@code cq->context->ops.poll_cq} into preallocated memory. Not thread-safe. */
    public static final class CompletionQueue implements AutoCloseable
    {
        private static final FunctionDescriptor POLL_CQ = FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
        private static final int MAX_WC = 64;

        private final MemorySegment cq;
        private final MethodHandle pollCq;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment wc = arena.allocate(WC_SIZE * MAX_WC, 8);

        /** Polls completion queue {@code cq}, up to 64 completions a call. */
        public CompletionQueue(final MemorySegment cq)
        {
            this.cq = cq;
            this.pollCq = LINKER.downcallHandle(opsFunction(cq, CQ_CONTEXT, CONTEXT_OPS_POLL_CQ), POLL_CQ,
                Linker.Option.critical(false));
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

        @Override
        public void close()
        {
            arena.close();
        }
    }
}

package io.weft.sst.rdma;

import io.weft.sst.TransportException;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static io.weft.sst.rdma.FabricAbi.*;

/**
 * java.lang.foreign bindings to libfabric: the few exported functions by symbol, everything else through the ops
 * tables of the objects ({@link FabricAbi} holds the offsets). No JNI, no generated code, no C shim.
 */
final class Fabric
{
    static final String LIBRARY = "libfabric.so.1";
    private static final Linker LINKER = Linker.nativeLinker();
    private static final AddressLayout PTR = ValueLayout.ADDRESS;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    private static volatile Fabric instance;

    final MethodHandle getinfo;
    final MethodHandle dupinfo;
    final MethodHandle freeinfo;
    final MethodHandle fabric;
    final MethodHandle strerror;
    final MethodHandle strdup;

    private Fabric(final SymbolLookup lib)
    {
        getinfo = LINKER.downcallHandle(find(lib, "fi_getinfo"),
            FunctionDescriptor.of(INT, INT, PTR, PTR, U64, PTR, PTR));
        dupinfo = LINKER.downcallHandle(find(lib, "fi_dupinfo"), FunctionDescriptor.of(PTR, PTR));
        freeinfo = LINKER.downcallHandle(find(lib, "fi_freeinfo"), FunctionDescriptor.ofVoid(PTR));
        fabric = LINKER.downcallHandle(find(lib, "fi_fabric"), FunctionDescriptor.of(INT, PTR, PTR, PTR));
        strerror = LINKER.downcallHandle(find(lib, "fi_strerror"), FunctionDescriptor.of(PTR, INT));
        strdup = LINKER.downcallHandle(LINKER.defaultLookup().find("strdup").orElseThrow(),
            FunctionDescriptor.of(PTR, PTR));
    }

    /** The loaded library; a clear {@link TransportException} when libfabric is not installed. */
    static Fabric load()
    {
        Fabric f = instance;
        if (f == null)
        {
            synchronized (Fabric.class)
            {
                f = instance;
                if (f == null)
                {
                    final SymbolLookup lib;
                    try
                    {
                        lib = JvmSignals.preserve(() -> SymbolLookup.libraryLookup(LIBRARY, Arena.global()));
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new TransportException("the rdma transport needs libfabric, which is not installed: " +
                            "looked for " + LIBRARY + " on the library path (Debian/Ubuntu: apt-get install " +
                            "libfabric1). Or choose another transport: weft.transport.kind = tcp or shm");
                    }
                    f = new Fabric(lib);
                    instance = f;
                }
            }
        }
        return f;
    }

    private static MemorySegment find(final SymbolLookup lib, final String name)
    {
        return lib.find(name).orElseThrow(() -> new TransportException(LIBRARY + " lacks " + name +
            "; libfabric 1.x is required"));
    }

    String error(final int rc)
    {
        try
        {
            final MemorySegment s = (MemorySegment)strerror.invokeExact(Math.abs(rc));
            return s.reinterpret(256).getString(0) + " (" + rc + ")";
        }
        catch (final Throwable t)
        {
            return "error " + rc;
        }
    }

    // ---- calls through ops tables -------------------------------------------------------------------------------

    /** The function at slot {@code slot} of the ops table that {@code object} points to at {@code opsField}. */
    static MethodHandle op(final MemorySegment object, final long opsField, final long slot,
        final FunctionDescriptor descriptor)
    {
        final MemorySegment obj = object.reinterpret(opsField + 8);
        final MemorySegment ops = obj.get(PTR, opsField).reinterpret(slot + 8);
        final MemorySegment fn = ops.get(PTR, slot);
        if (fn.equals(MemorySegment.NULL))
        {
            throw new TransportException("libfabric provider does not implement the operation at ops slot " + slot);
        }
        return LINKER.downcallHandle(fn, descriptor, CRITICAL);
    }

    static final FunctionDescriptor OPEN4 = FunctionDescriptor.of(INT, PTR, PTR, PTR, PTR);
    static final FunctionDescriptor CLOSE = FunctionDescriptor.of(INT, PTR);
    static final FunctionDescriptor BIND = FunctionDescriptor.of(INT, PTR, PTR, U64);
    static final FunctionDescriptor CONTROL = FunctionDescriptor.of(INT, PTR, INT, PTR);
    static final FunctionDescriptor MR_REG = FunctionDescriptor.of(INT, PTR, PTR, U64, U64, U64, U64, U64, PTR, PTR);
    static final FunctionDescriptor GETNAME = FunctionDescriptor.of(INT, PTR, PTR, PTR);
    static final FunctionDescriptor AV_INSERT = FunctionDescriptor.of(INT, PTR, PTR, U64, PTR, U64, PTR);
    /**
     * fi_write; buf and context as 64-bit addresses (same registers as pointers on LP64) so a write allocates nothing.
     */
    static final FunctionDescriptor WRITE = FunctionDescriptor.of(U64, PTR, U64, U64, PTR, U64, U64, U64, U64);
    static final FunctionDescriptor WRITEDATA = FunctionDescriptor.of(U64, PTR, U64, U64, PTR, U64, U64, U64, U64, U64);
    static final FunctionDescriptor CQ_READ = FunctionDescriptor.of(U64, PTR, PTR, U64);
    static final FunctionDescriptor CQ_READERR = FunctionDescriptor.of(U64, PTR, PTR, U64);

    static int close(final MemorySegment fid)
    {
        if (fid == null || fid.equals(MemorySegment.NULL))
        {
            return 0;
        }
        try
        {
            return (int)op(fid, FID_OPS, FI_OPS_CLOSE, CLOSE).invokeExact(fid);
        }
        catch (final Throwable t)
        {
            return -1;
        }
    }

    static MemorySegment ptr(final MemorySegment struct, final long offset)
    {
        return struct.reinterpret(offset + 8).get(PTR, offset);
    }

    static long u64(final MemorySegment struct, final long offset)
    {
        return struct.reinterpret(offset + 8).get(U64, offset);
    }

    static void setU64(final MemorySegment struct, final long offset, final long value)
    {
        struct.reinterpret(offset + 8).set(U64, offset, value);
    }

    static int i32(final MemorySegment struct, final long offset)
    {
        return struct.reinterpret(offset + 4).get(INT, offset);
    }

    static void setI32(final MemorySegment struct, final long offset, final int value)
    {
        struct.reinterpret(offset + 4).set(INT, offset, value);
    }

    static void setPtr(final MemorySegment struct, final long offset, final MemorySegment value)
    {
        struct.reinterpret(offset + 8).set(PTR, offset, value);
    }
}

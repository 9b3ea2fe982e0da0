package io.weft.sst.shm;

import io.weft.sst.RowCopy;
import io.weft.sst.TransportException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The zero-copy table: one contiguous region of {@code rows * rowSize} bytes in which row r is a second mapping of
 * row r of member r's own table file. A member's stores to its row are then the pushes (a reader sees them as soon
 * as the store is visible, in the order release stores and fences give), so a push is a doorbell and nothing is
 * copied. Built with Linux {@code mremap(old, 0, size, MREMAP_MAYMOVE | MREMAP_FIXED, new)}, which maps the same
 * pages of a shared mapping a second time at a chosen address inside a reserved range.
 *
 * <p>Needs rows that are whole pages at page-aligned addresses (rows are multiples of 4 KiB and the file's header is
 * one page); {@link #supported} says whether this host can. The same remapping freezes a row ({@link #snapshot}).
 */
final class SharedRows
{
    private static final int PROT_NONE = 0;
    private static final int PROT_READ = 1;
    private static final int PROT_WRITE = 2;
    private static final int MAP_SHARED = 0x01;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final int MREMAP_MAYMOVE = 1;
    private static final int MREMAP_FIXED = 2;
    private static final long MAP_FAILED = -1L;

    private static final MethodHandle MMAP;
    private static final MethodHandle MREMAP;
    private static final MethodHandle MUNMAP;
    private static final VarHandle ERRNO;
    private static final MemoryLayout CALL_STATE;
    private static final long PAGE;

    static
    {
        MethodHandle mmap = null;
        MethodHandle mremap = null;
        MethodHandle munmap = null;
        long page = -1;
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        CALL_STATE = Linker.Option.captureStateLayout();
        ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        if (System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux"))
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final var libc = linker.defaultLookup();
                mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), errno);
                // mremap is variadic: the new address follows the flags
                mremap = linker.downcallHandle(libc.find("mremap").orElseThrow(), FunctionDescriptor.of(
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(4), errno);
                munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(), FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
                final MethodHandle getpagesize = linker.downcallHandle(libc.find("getpagesize").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT));
                page = (int)getpagesize.invokeExact();
            }
            catch (final Throwable ex)
            {
                mmap = null;
            }
        }
        MMAP = mmap;
        MREMAP = mremap;
        MUNMAP = munmap;
        PAGE = page;
    }

    private SharedRows()
    {
    }

    /** Whether rows of {@code rowSize} bytes can be mapped from their owners' files here (else: copy). */
    static boolean supported(final int rowSize)
    {
        return MMAP != null && PAGE > 0 && rowSize % PAGE == 0 && ShmTableFile.HEADER_SIZE % PAGE == 0;
    }

    /**
     * Maps {@code sources[r]} (page-aligned slices of MAP_SHARED mappings, {@code rowSize} bytes each) one after
     * another into a new region that lives until {@code arena} closes.
     */
    static MemorySegment map(final MemorySegment[] sources, final int rowSize, final Arena arena)
    {
        final long size = (long)sources.length * rowSize;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = call.allocate(CALL_STATE);
            // reserve the whole range first, so that no other mapping can land between the rows
            final long base = (long)MMAP.invokeExact(state, 0L, size, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0L);
            if (base == MAP_FAILED)
            {
                throw new TransportException("cannot reserve " + size + " bytes for the zero-copy table: errno " +
                    (int)ERRNO.get(state, 0L));
            }
            for (int r = 0; r < sources.length; r++)
            {
                final long target = base + (long)r * rowSize;
                final long at = (long)MREMAP.invokeExact(state, sources[r].address(), 0L, (long)rowSize,
                    MREMAP_MAYMOVE | MREMAP_FIXED, target);
                if (at != target)
                {
                    final int error = (int)ERRNO.get(state, 0L);
                    unmap(base, size);
                    throw new TransportException("cannot map row " + r + " of the table into the zero-copy region: " +
                        "errno " + error + " (set weft.transport.shm.zero-copy = false to copy instead)");
                }
            }
            return MemorySegment.ofAddress(base).reinterpret(size, arena, s -> unmap(s.address(), size));
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new TransportException("cannot build the zero-copy table: " + ex, ex);
        }
    }

    /**
     * Replaces {@code length} bytes of {@code region} at {@code offset} (whole pages) with a private copy of what they
     * hold now, atomically for readers (they see the old pages or the copy): a frozen row that its owner, or a peer
     * pushing into my file, can no longer change.
     */
    static void snapshot(final MemorySegment region, final long offset, final long length)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = call.allocate(CALL_STATE);
            final long copy = (long)MMAP.invokeExact(state, 0L, length, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0L);
            if (copy == MAP_FAILED)
            {
                throw new TransportException("cannot allocate a frozen row's snapshot: errno " +
                    (int)ERRNO.get(state, 0L));
            }
            try
            {
                RowCopy.copy(region, offset, MemorySegment.ofAddress(copy).reinterpret(length), 0, length);
                final long target = region.address() + offset;
                final long at = (long)MREMAP.invokeExact(state, copy, 0L, length, MREMAP_MAYMOVE | MREMAP_FIXED,
                    target);
                if (at != target)
                {
                    throw new TransportException("cannot map a frozen row's snapshot into the table: errno " +
                        (int)ERRNO.get(state, 0L));
                }
            }
            finally
            {
                unmap(copy, length); // the table's second mapping keeps the pages
            }
        }
        catch (final TransportException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new TransportException("cannot snapshot a frozen row: " + ex, ex);
        }
    }

    private static void unmap(final long address, final long size)
    {
        try
        {
            final int ignored = (int)MUNMAP.invokeExact(address, size);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("munmap failed", ex);
        }
    }
}

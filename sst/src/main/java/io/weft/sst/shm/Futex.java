package io.weft.sst.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Linux futex wait/wake on a 32-bit word of a shared mapping, through {@code syscall(2)} by FFM. Non-private futexes
 * on a MAP_SHARED file mapping work across processes: this is the doorbell one member rings in another's table file.
 * Where futexes are unavailable (not Linux, unknown architecture) {@link #AVAILABLE} is false and callers fall back to
 * bounded parking.
 */
final class Futex
{
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final MethodHandle SYSCALL;
    private static final long SYS_FUTEX;
    static final boolean AVAILABLE;

    static
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "");
        long nr = -1;
        if (os.contains("linux"))
        {
            nr = switch (arch)
            {
                case "amd64", "x86_64" -> 202;
                case "aarch64" -> 98;
                default -> -1;
            };
        }
        MethodHandle handle = null;
        if (nr >= 0)
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final MemorySegment symbol = linker.defaultLookup().find("syscall")
                    .or(() -> SymbolLookup.loaderLookup().find("syscall")).orElseThrow();
                // every variadic argument passed as a 64-bit long: syscall(2) reads them with va_arg(long)
                handle = linker.downcallHandle(symbol, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1));
            }
            catch (final RuntimeException ex)
            {
                handle = null;
            }
        }
        SYSCALL = handle;
        SYS_FUTEX = nr;
        AVAILABLE = handle != null;
    }

    private Futex()
    {
    }

    /**
     * Sleeps while the word at {@code address} equals {@code expected}, at most {@code timeout} (a reusable
     * 16-byte struct timespec owned by the calling thread). Returns early on a wake, a changed word or a signal.
     */
    static void await(final long address, final int expected, final MemorySegment timeout, final long nanos)
    {
        timeout.set(ValueLayout.JAVA_LONG, 0, nanos / 1_000_000_000L);
        timeout.set(ValueLayout.JAVA_LONG, 8, nanos % 1_000_000_000L);
        call(address, FUTEX_WAIT, expected, timeout.address());
    }

    /** Wakes every sleeper on the word at {@code address}. */
    static void wakeAll(final long address)
    {
        call(address, FUTEX_WAKE, Integer.MAX_VALUE, 0);
    }

    static MemorySegment newTimespec(final Arena arena)
    {
        return arena.allocate(16, 8);
    }

    private static void call(final long address, final int op, final int value, final long timeout)
    {
        try
        {
            final long ignored = (long)SYSCALL.invokeExact(SYS_FUTEX, address, (long)op, (long)value, timeout, 0L, 0L);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("futex syscall failed", ex);
        }
    }
}

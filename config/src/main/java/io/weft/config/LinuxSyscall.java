package io.weft.config;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * {@code syscall(2)} through FFM, for the few Linux calls the JDK does not offer (futex, membarrier). Where the
 * system is not Linux on x86-64 or aarch64, {@link #AVAILABLE} is false and callers fall back to what the JDK has.
 */
public final class LinuxSyscall
{
    /** Whether {@link #call} works here. */
    public static final boolean AVAILABLE;
    private static final MethodHandle SYSCALL;
    private static final boolean X86;
    private static final long CLOSE;

    static
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "");
        final boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        MethodHandle handle = null;
        if (os.contains("linux") && (x86 || arch.equals("aarch64")))
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final MemorySegment symbol = linker.defaultLookup().find("syscall")
                    .or(() -> SymbolLookup.loaderLookup().find("syscall")).orElseThrow();
                // every variadic argument passed as a 64-bit long: syscall(2) reads them with va_arg(long)
                final ValueLayout.OfLong l = ValueLayout.JAVA_LONG;
                handle = linker.downcallHandle(symbol, FunctionDescriptor.of(l, l, l, l, l, l, l, l),
                    Linker.Option.firstVariadicArg(1));
            }
            catch (final RuntimeException ex)
            {
                handle = null;
            }
        }
        SYSCALL = handle;
        X86 = x86;
        CLOSE = x86 ? 3 : 57;
        AVAILABLE = handle != null;
    }

    private LinuxSyscall()
    {
    }

    /** The call's number on this machine's architecture. */
    public static long number(final long x86, final long aarch64)
    {
        return X86 ? x86 : aarch64;
    }

    /**
     * {@link #call}, for callers that fall back to what the JDK has: -1 also where the call cannot be made at all (not
     * {@link #AVAILABLE}, or FFM refused: no native access).
     */
    public static long tryCall(final long nr, final long a1, final long a2, final long a3, final long a4,
        final long a5)
    {
        if (!AVAILABLE)
        {
            return -1;
        }
        try
        {
            return call(nr, a1, a2, a3, a4, a5);
        }
        catch (final RuntimeException ex)
        {
            return -1;
        }
    }

    /** Closes file descriptor {@code fd} if it is one (&gt;= 0); a failure is ignored, as there is nothing to redo. */
    public static void close(final long fd)
    {
        if (fd >= 0)
        {
            tryCall(CLOSE, fd, 0, 0, 0, 0);
        }
    }

    /** Calls system call {@code nr} with five arguments; returns its result (-1 on failure; errno is not read). */
    public static long call(final long nr, final long a1, final long a2, final long a3, final long a4, final long a5)
    {
        try
        {
            return (long)SYSCALL.invokeExact(nr, a1, a2, a3, a4, a5, 0L);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("system call " + nr + " failed", ex);
        }
    }
}

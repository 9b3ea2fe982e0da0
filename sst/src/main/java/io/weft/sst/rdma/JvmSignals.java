package io.weft.sst.rdma;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.Supplier;

/**
 * Keeps the JVM's signal handlers in place around native set-up. libfabric links libpsm2 (its psm2 provider), which
 * installs its own SIGSEGV/SIGILL/... handlers that print a backtrace and kill the process; the JVM raises some of
 * these signals on purpose (implicit null checks, safepoints), so the process would die at a random moment. Every
 * signal's action is saved before the call and put back after it.
 */
final class JvmSignals
{
    private static final int MAX_SIGNAL = 31;
    private static final long SIGACTION_SIZE = 256; // glibc x86_64 struct sigaction is 152 bytes; room to spare
    private static final MethodHandle SIGACTION = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("sigaction").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));

    private JvmSignals()
    {
    }

    static synchronized <T> T preserve(final Supplier<T> call)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment saved = arena.allocate(SIGACTION_SIZE * (MAX_SIGNAL + 1), 16);
            final boolean[] have = new boolean[MAX_SIGNAL + 1];
            for (int sig = 1; sig <= MAX_SIGNAL; sig++)
            {
                have[sig] = sigaction(sig, MemorySegment.NULL, saved.asSlice(sig * SIGACTION_SIZE,
                    SIGACTION_SIZE)) == 0;
            }
            try
            {
                return call.get();
            }
            finally
            {
                for (int sig = 1; sig <= MAX_SIGNAL; sig++)
                {
                    if (have[sig] && sig != 9 && sig != 19)
                    {
                        sigaction(sig, saved.asSlice(sig * SIGACTION_SIZE, SIGACTION_SIZE), MemorySegment.NULL);
                    }
                }
            }
        }
    }

    private static int sigaction(final int sig, final MemorySegment act, final MemorySegment old)
    {
        try
        {
            return (int)SIGACTION.invokeExact(sig, act, old);
        }
        catch (final Throwable t)
        {
            return -1;
        }
    }
}

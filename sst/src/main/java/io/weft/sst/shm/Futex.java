package io.weft.sst.shm;

import io.weft.config.LinuxSyscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
    private static final long SYS_FUTEX = LinuxSyscall.number(202, 98);
    static final boolean AVAILABLE = LinuxSyscall.AVAILABLE;

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
        LinuxSyscall.call(SYS_FUTEX, address, op, value, timeout, 0L);
    }
}

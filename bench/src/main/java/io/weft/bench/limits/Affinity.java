package io.weft.bench.limits;

import io.weft.config.LinuxSyscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The cores this process may run on, and pinning the calling thread to one ({@code sched_getaffinity(2)},
 * {@code sched_setaffinity(2)}): a round-trip probe whose two ends are pinned to different cores pays for a wake-up
 * across cores, as three members on two cores must.
 */
final class Affinity
{
    private static final int MASK_BYTES = 128; // 1,024 CPUs

    private Affinity()
    {
    }

    /** The CPUs the calling thread may run on, lowest first; empty where the calls are not available. */
    static int[] cpus()
    {
        if (!LinuxSyscall.AVAILABLE)
        {
            return new int[0];
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            final long got = LinuxSyscall.call(LinuxSyscall.number(204, 123), 0, MASK_BYTES, mask.address(), 0, 0);
            if (got <= 0)
            {
                return new int[0];
            }
            final List<Integer> cpus = new ArrayList<>();
            for (int cpu = 0; cpu < got * 8; cpu++)
            {
                if ((mask.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0)
                {
                    cpus.add(cpu);
                }
            }
            return cpus.stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** Pins the calling thread to {@code cpu}, or throws naming the cpu. */
    static void pin(final int cpu)
    {
        if (cpu < 0 || cpu >= MASK_BYTES * 8)
        {
            throw new IllegalArgumentException("cpu " + cpu + " is outside 0.." + (MASK_BYTES * 8 - 1));
        }
        if (!LinuxSyscall.AVAILABLE)
        {
            throw new IllegalStateException("cannot pin to cpu " + cpu + ": sched_setaffinity is not available here");
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            mask.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte)(1 << (cpu % 8)));
            if (LinuxSyscall.call(LinuxSyscall.number(203, 122), 0, MASK_BYTES, mask.address(), 0, 0) != 0)
            {
                throw new IllegalStateException("cannot pin to cpu " + cpu + ": sched_setaffinity failed");
            }
        }
    }
}

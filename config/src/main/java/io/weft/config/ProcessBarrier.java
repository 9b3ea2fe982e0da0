package io.weft.config;

import java.lang.invoke.VarHandle;

/**
 * A memory barrier on every running thread of this process at once: {@code membarrier(2)} with
 * {@code MEMBARRIER_CMD_PRIVATE_EXPEDITED}. A thread that rarely has to see the stores of threads that often write
 * (a doorbell's sleeper, once before it sleeps) issues it, so that the frequent writers need no fence of their own:
 * an asymmetric Dekker pattern. {@link #AVAILABLE} is false where the kernel lacks it (before Linux 4.14) or
 * registration failed; callers then keep their fences.
 */
public final class ProcessBarrier
{
    /** Whether {@link #run()} orders the stores of this process's other threads; if false, it is a no-op. */
    public static final boolean AVAILABLE;
    /**
     * The JVM system property that turns the barrier off for the whole process (rings then fence): read once, when this
     * class loads, so it is not a configuration key ({@link ConfigLoader} leaves it out of the overrides it reads
     * from system properties).
     */
    public static final String DISABLED_PROPERTY = "weft.membarrier.disabled";
    private static final long NR = LinuxSyscall.number(324, 283);
    private static final int CMD_QUERY = 0;
    private static final int CMD_PRIVATE_EXPEDITED = 8;
    private static final int CMD_REGISTER_PRIVATE_EXPEDITED = 16;

    static
    {
        boolean ok = false;
        if (LinuxSyscall.AVAILABLE && !Boolean.getBoolean(DISABLED_PROPERTY))
        {
            final long commands = LinuxSyscall.call(NR, CMD_QUERY, 0, 0, 0, 0);
            ok = commands > 0 && (commands & CMD_PRIVATE_EXPEDITED) != 0 &&
                LinuxSyscall.call(NR, CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0, 0, 0) == 0;
        }
        AVAILABLE = ok;
    }

    private ProcessBarrier()
    {
    }

    /** How long a sleeper whose barrier failed may sleep: a ring it could not see then waits at most this long. */
    public static final long UNORDERED_SLEEP_NANOS = 1_000_000L;

    /**
     * When this returns true, every store another thread of this process made before it is visible to the caller, and
     * every load another thread makes after it sees the caller's stores made before it. False only if the system
     * call failed after a successful registration (not expected): a sleeper then bounds its sleep by
     * {@link #UNORDERED_SLEEP_NANOS} rather than stop. Where the barrier is not {@link #AVAILABLE}, true: rings from
     * the process then carry their own fences.
     */
    public static boolean run()
    {
        return !AVAILABLE || LinuxSyscall.call(NR, CMD_PRIVATE_EXPEDITED, 0, 0, 0, 0) == 0;
    }

    /**
     * For the frequent side, between its stores and its load of the sleeper's flag: the compiler must not move the
     * load above the stores (the CPU is ordered by the sleeper's barrier). A release fence emits no instruction on
     * x86, and in HotSpot's compiler every fence is a barrier to all memory accesses on either side.
     */
    public static void keepOrder()
    {
        VarHandle.releaseFence();
    }

    /** The longest sleep after an announcement whose barrier gave {@code ordered}. */
    public static long sleepBound(final boolean ordered, final long maxNanos)
    {
        return ordered ? maxNanos : Math.min(maxNanos, UNORDERED_SLEEP_NANOS);
    }
}

package io.weft.config;

/** Whether this host's cores are scarce: the one test behind every {@code auto} choice that depends on it. */
public final class Cores
{
    /**
     * Below this many cores a member's hot threads outnumber them: every hand-off is a context switch, and a thread
     * that runs on to the end of its time slice keeps the thread waiting for its work off the core.
     */
    public static final int SCARCE_BELOW = 4;

    private Cores()
    {
    }

    /** Whether the host has fewer than {@link #SCARCE_BELOW} cores. */
    public static boolean scarce()
    {
        return Runtime.getRuntime().availableProcessors() < SCARCE_BELOW;
    }
}

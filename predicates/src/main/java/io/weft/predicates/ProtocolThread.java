package io.weft.predicates;

/**
 * Marks the threads that run the protocol (the predicate thread, which runs delivery callbacks, and the membership
 * thread, which runs view and trim callbacks). A call that would wait is refused on them (a send, a leave, a
 * finish): the slot, the deliveries or the view it would wait for can only be brought by the thread that is waiting.
 */
public final class ProtocolThread
{
    private static final ThreadLocal<String> ROLE = new ThreadLocal<>();

    private ProtocolThread()
    {
    }

    /** Marks the calling thread as the protocol thread {@code role} (a name for error messages). */
    public static void mark(final String role)
    {
        ROLE.set(role);
    }

    /**
     * Refuses, at once, a send or claim ({@code operation}) in {@code subgroup} that would wait up to
     * {@code timeoutNanos} when called on a protocol thread. Allocates nothing unless it refuses.
     *
     * @throws IllegalStateException naming the operation, the thread and what to do instead.
     */
    public static void refuseWait(final String subgroup, final String operation, final long timeoutNanos)
    {
        if (timeoutNanos > 0 && ROLE.get() != null)
        {
            refuse("subgroup " + subgroup + ": a " + operation + " that waits (timeout " +
                java.time.Duration.ofNanos(timeoutNanos) + ")", "the slot or view it would wait for can only come " +
                "from this thread; send without a timeout (it returns BACK_PRESSURED or WEDGED at once) or hand the " +
                "send to an application thread");
        }
    }

    /**
     * Refuses, at once on a protocol thread, {@code what}: a call that waits for what only that thread brings (a
     * send, a leave, a finish).
     *
     * @throws IllegalStateException "{@code what} is refused on the (thread's role): {@code why}".
     */
    public static void refuse(final String what, final String why)
    {
        final String role = ROLE.get();
        if (role != null)
        {
            throw new IllegalStateException(what + " is refused on the " + role + ": " + why);
        }
    }

    /** The role of the calling thread, or null for an application thread. */
    public static String role()
    {
        return ROLE.get();
    }
}

package io.weft.config;

/**
 * How a parked predicate thread is woken. The sleeper announces itself, re-checks for work, then sleeps only if
 * nobody rang since the announcement; a ringer bumps the sequence and wakes the sleeper only when one is announced,
 * so a busy member pays one volatile read per ring and no system call.
 *
 * <p>Implementations: {@link ParkingDoorbell} inside one process; the shm transport supplies one backed by a futex in
 * the shared table file, so that a push from another process wakes this member.
 */
public interface Doorbell
{
    /**
     * Announces that the calling thread is about to sleep. The caller must look for work once more after this call
     * and before {@link #sleep(int, long)}: a ring in between is then never lost.
     *
     * @return the ticket to pass to {@link #sleep(int, long)}.
     */
    int prepareToSleep();

    /** Sleeps until rung after {@code ticket} was issued, or at most {@code maxNanos}. May return early. */
    void sleep(int ticket, long maxNanos);

    /** Withdraws the announcement made by {@link #prepareToSleep()}. */
    void awake();

    /** Wakes the sleeper if one is announced. Safe from any thread, cheap when nobody sleeps. */
    void ring();

    /**
     * {@link #ring()} from a thread of the sleeper's own process, which needs no fence of its own where the sleeper
     * announces itself with a {@link ProcessBarrier}: either the sleeper's re-check sees this thread's earlier
     * stores, or this thread sees the announcement. Made for the committing application thread, once per message.
     */
    default void ringInProcess()
    {
        ring();
    }
}

package io.weft.membership;

/**
 * What the view-change decisions read: the membership columns of every row as this member's table holds them, and
 * this member's suspicions. {@link Epoch} reads a live table; tests build one from arrays.
 */
interface MembershipTable
{
    int rows();

    int me();

    int idAt(int rank);

    /** This member suspects {@code rank} (its own row, or the transport reported the rank failed). */
    boolean suspects(int rank);

    /** Row {@code row} holds a suspicion of {@code rank}. */
    boolean suspectedIn(int row, int rank);

    /** Announced a graceful leave. */
    boolean leaving(int rank);

    /** Announced a leave or finished its run: it counts on neither side of the majority rule. */
    boolean abstains(int rank);

    /** Announced a leave, finished its run or completed the view change: its going is not a failure. */
    boolean departing(int rank);

    boolean wedged(int rank);

    boolean done(int rank);

    int numChanges(int rank);

    int numAcked(int rank);

    int numCommitted(int rank);

    /** Entry {@code i} of row {@code rank}'s change list. */
    long change(int rank, int i);

    /** Row {@code rank} published the trim of its subgroup {@code subgroup}. */
    boolean trimReady(int rank, String subgroup);

    /** Entry {@code sender} of row {@code rank}'s trim of {@code subgroup}. */
    long trim(int rank, String subgroup, int sender);

    /** Row {@code rank}'s received count of {@code sender} in {@code subgroup} (final once it wedged). */
    long received(int rank, String subgroup, int sender);

    /** This member trusts {@code rank}: itself, or a member it does not suspect. */
    default boolean trusts(final int rank)
    {
        return rank == me() || !suspects(rank);
    }
}

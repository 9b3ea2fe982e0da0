package io.weft.sst;

/** Told when the transport loses a member: its process exited, its connection broke, or it broke the protocol. */
@FunctionalInterface
public interface FailureListener
{
    /**
     * Called at most once per failed member, from a transport thread: keep it short and never block.
     *
     * @param rank   rank of the failed member in this table.
     * @param reason what the transport observed, for logs and operators.
     */
    void onMemberFailure(int rank, String reason);
}

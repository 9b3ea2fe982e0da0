package io.weft.membership;

/**
 * Told at every member, once per subgroup removed at run time ({@link Group#removeSubgroup}), on the membership
 * thread at the end of the last view that holds it, after its last delivery there (and before the next view opens):
 * the place to release what the subgroup's deliveries used. Called in the order the removals were agreed, the same
 * at every member; a member that joins later is never told of a subgroup removed before it joined.
 */
@FunctionalInterface
public interface SubgroupRemovedListener
{
    /**
     * Releases what the removed subgroup's deliveries used at this member.
     *
     * @param name the removed subgroup's name; a later request may add a subgroup of that name again.
     */
    void onSubgroupRemoved(String name);
}

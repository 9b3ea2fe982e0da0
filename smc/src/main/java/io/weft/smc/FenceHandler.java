package io.weft.smc;

/**
 * Called once for every read fence of this member that passes, in the order they were asked, on the thread that
 * delivers (the predicate thread, or the membership thread for a view's trim): every message this member had received
 * or sent before it asked has been delivered here, and none it sent afterwards. What it throws is counted and logged
 * as a {@link DeliveryHandler}'s is.
 */
@FunctionalInterface
public interface FenceHandler
{
    /** The fence asked with {@code ticket} has passed. */
    void onFence(long ticket);
}

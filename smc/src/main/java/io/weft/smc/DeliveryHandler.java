package io.weft.smc;

/**
 * Called on the predicate thread for every delivered message, in delivery order. Keep it short: delivery of every
 * subgroup waits for it (Spindle 3.5). Copy what you keep; the {@link Message} is reused.
 */
@FunctionalInterface
public interface DeliveryHandler
{
    /** One delivered message; valid only until this call returns. */
    void onMessage(Message message);
}

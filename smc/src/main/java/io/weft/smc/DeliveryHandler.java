package io.weft.smc;

/**
 * Called on the predicate thread for every delivered message, in delivery order. Keep it short: delivery of every
 * subgroup waits for it (Spindle 3.5). Copy what you keep; the {@link Message} is reused. What it throws is counted
 * ({@code weft.smc.callback.failures}) and logged at most once per 10 s ({@link CallbackFailures}); the message
 * counts as delivered and delivery goes on.
 */
@FunctionalInterface
public interface DeliveryHandler
{
    /** One delivered message; valid only until this call returns. */
    void onMessage(Message message);
}

package io.weft.smc;

/**
 * Called on the predicate thread once per delivery pass with every message that pass delivered, in order (Spindle
 * 3.5: a batch upcall lets the application amortise its own work). What it throws is counted and logged as a
 * {@link DeliveryHandler}'s is.
 */
@FunctionalInterface
public interface BatchHandler
{
    /** The messages one delivery pass delivered, in order; the batch and its messages are reused after return. */
    void onBatch(MessageBatch batch);
}

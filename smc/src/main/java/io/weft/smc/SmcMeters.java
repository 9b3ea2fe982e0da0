package io.weft.smc;

import org.slf4j.LoggerFactory;

/**
 * The multicast's measurements for one subgroup in one view: batch sizes at send, receive and delivery, nulls,
 * deliveries and own-message latency. Recorded once per trigger that did work (never on an empty pass, never per
 * message) into plain single-writer fields; {@link SmcTotals} adds them to the closed views' and shows the sums
 * through function meters, so the hot path has no meter update and no clock read of its own.
 */
final class SmcMeters
{
    final BatchStats sendBatches = new BatchStats();
    final BatchStats receiveBatches = new BatchStats();
    final BatchStats deliveryBatches = new BatchStats();
    /** Delivery and fence callbacks that threw, logged as {@link Delivery}'s. */
    final CallbackFailures callbackFailures = new CallbackFailures(LoggerFactory.getLogger(Delivery.class));
    // single writer (the predicate thread); volatile so that application threads and the registry read a recent value
    private volatile long nullsSent;
    private volatile long deliveredMessages;
    private volatile long latencyCount;
    private volatile long latencyNanos;
    // written by committing threads under the publisher's lock
    private volatile long committerPublishes;

    void sent(final long messages)
    {
        sendBatches.record(messages);
    }

    void received(final long messages)
    {
        receiveBatches.record(messages);
    }

    void delivered(final long messages)
    {
        deliveryBatches.record(messages);
        deliveredMessages = deliveredMessages + messages;
    }

    /** One message delivered on receipt (unordered mode). */
    void deliveredOne()
    {
        deliveredMessages = deliveredMessages + 1;
    }

    void nulls(final long count)
    {
        nullsSent = nullsSent + count;
    }

    /** {@code count} own messages delivered in one pass, {@code nanos} their summed commit-to-delivery time. */
    void latency(final long count, final long nanos)
    {
        latencyCount = latencyCount + count;
        latencyNanos = latencyNanos + nanos;
    }

    /** A committing thread published (its sender's pipeline was empty and the predicate thread asleep). */
    void publishedByCommitter()
    {
        committerPublishes = committerPublishes + 1;
    }

    long committerPublishes()
    {
        return committerPublishes;
    }

    long nullsSent()
    {
        return nullsSent;
    }

    long deliveredMessages()
    {
        return deliveredMessages;
    }

    long latencyCount()
    {
        return latencyCount;
    }

    long latencyNanos()
    {
        return latencyNanos;
    }
}

package io.weft.smc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;


/**
 * The multicast's measurements for one subgroup: batch sizes at send, receive and delivery, nulls, deliveries and
 * own-message latency. Recorded once per trigger that did work (never on an empty pass, never per message) into
 * plain single-writer fields; the registry reads them through function meters, so the hot path has no meter
 * update and no clock read of its own.
 */
final class SmcMeters
{
    final BatchStats sendBatches = new BatchStats();
    final BatchStats receiveBatches = new BatchStats();
    final BatchStats deliveryBatches = new BatchStats();
    // single writer (the predicate thread); volatile so that application threads and the registry read a recent value
    private volatile long nullsSent;
    private volatile long deliveredMessages;
    private volatile long latencyCount;
    private volatile long latencyNanos;

    SmcMeters(final String subgroup, final MeterRegistry registry)
    {
        final Tags tags = Tags.of("subgroup", subgroup);
        batchMeters(registry, tags, "send", sendBatches, "messages published per send push");
        batchMeters(registry, tags, "receive", receiveBatches, "messages consumed per sender per receive pass");
        batchMeters(registry, tags, "delivery", deliveryBatches, "messages delivered per delivery pass");
        FunctionCounter.builder("weft.smc.nulls", this, m -> m.nullsSent).tags(tags).description("null messages sent")
            .register(registry);
        FunctionCounter.builder("weft.smc.delivered", this, m -> m.deliveredMessages).tags(tags)
            .description("messages delivered").register(registry);
        FunctionTimer.builder("weft.smc.latency", this, m -> m.latencyCount, m -> m.latencyNanos,
                java.util.concurrent.TimeUnit.NANOSECONDS).tags(tags)
            .description("commit to delivery of this member's own messages").register(registry);
    }

    /** weft.smc.batch.KIND.batches and .messages (their ratio is the mean batch) and .max. */
    private static void batchMeters(final MeterRegistry registry, final Tags tags, final String kind,
        final BatchStats stats, final String description)
    {
        final String name = "weft.smc.batch." + kind;
        FunctionCounter.builder(name + ".batches", stats, BatchStats::count).tags(tags).description(description)
            .register(registry);
        FunctionCounter.builder(name + ".messages", stats, BatchStats::total).tags(tags).description(description)
            .register(registry);
        Gauge.builder(name + ".max", stats, BatchStats::max).tags(tags).description(description).register(registry);
    }

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

    long nullsSent()
    {
        return nullsSent;
    }

    long deliveredMessages()
    {
        return deliveredMessages;
    }
}

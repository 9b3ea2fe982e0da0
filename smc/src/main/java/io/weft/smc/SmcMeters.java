package io.weft.smc;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;

/**
 * The multicast's measurements for one subgroup: batch sizes at send, receive and delivery, nulls, deliveries and
 * own-message latency. Recorded only by triggers that did work (never on an empty pass); counters are read by the
 * registry from plain fields rather than incremented as meters on the hot path.
 */
final class SmcMeters
{
    final BatchStats sendBatches = new BatchStats();
    final BatchStats receiveBatches = new BatchStats();
    final BatchStats deliveryBatches = new BatchStats();
    private final DistributionSummary sendSummary;
    private final DistributionSummary receiveSummary;
    private final DistributionSummary deliverySummary;
    private final Timer latency;
    // single writer (the predicate thread); volatile so that application threads and the registry read a recent value
    private volatile long nullsSent;
    private volatile long deliveredMessages;

    SmcMeters(final String subgroup, final MeterRegistry registry)
    {
        final Tags tags = Tags.of("subgroup", subgroup);
        sendSummary = DistributionSummary.builder("weft.smc.batch.send").tags(tags)
            .description("messages published per send push").register(registry);
        receiveSummary = DistributionSummary.builder("weft.smc.batch.receive").tags(tags)
            .description("messages consumed per sender per receive pass").register(registry);
        deliverySummary = DistributionSummary.builder("weft.smc.batch.delivery").tags(tags)
            .description("messages delivered per delivery pass").register(registry);
        FunctionCounter.builder("weft.smc.nulls", this, m -> m.nullsSent).tags(tags).description("null messages sent")
            .register(registry);
        FunctionCounter.builder("weft.smc.delivered", this, m -> m.deliveredMessages).tags(tags)
            .description("messages delivered").register(registry);
        latency = Timer.builder("weft.smc.latency").tags(tags)
            .description("commit to delivery of this member's own messages").register(registry);
    }

    void sent(final long messages)
    {
        sendBatches.record(messages);
        sendSummary.record(messages);
    }

    void received(final long messages)
    {
        receiveBatches.record(messages);
        receiveSummary.record(messages);
    }

    void delivered(final long messages)
    {
        deliveryBatches.record(messages);
        deliverySummary.record(messages);
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

    void latency(final long nanos)
    {
        latency.record(nanos, TimeUnit.NANOSECONDS);
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

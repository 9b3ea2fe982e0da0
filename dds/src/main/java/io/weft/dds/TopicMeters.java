package io.weft.dds;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.weft.config.QosLevel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A topic's meters in the group's registry, tagged with the member, the topic and its QoS level. */
final class TopicMeters
{
    private static final String PREFIX = "weft.dds.";

    private TopicMeters()
    {
    }

    /** Registers the topic's meters, and returns them: they leave the registry with the topic (or participant). */
    static List<Meter> register(final MeterRegistry registry, final int member, final String name,
        final TopicState state, final AtomicLong written)
    {
        final Tags tags = Tags.of("member", String.valueOf(member), "topic", name, "qos",
            state.config.qos().configName());
        final List<Meter> meters = new ArrayList<>(5);
        meters.add(FunctionCounter.builder(PREFIX + "samples.written", written, AtomicLong::get).tags(tags)
            .description("samples this member wrote to the topic").register(registry));
        meters.add(FunctionCounter.builder(PREFIX + "samples.delivered", state, TopicState::delivered).tags(tags)
            .description("samples of the topic delivered at this member").register(registry));
        meters.add(FunctionCounter.builder(PREFIX + "listener.failures", state, TopicState::listenerFailures).tags(tags)
            .description("reader listeners that threw at this member (logged at most once per 10 s)")
            .register(registry));
        meters.add(FunctionCounter.builder(PREFIX + "decode.failures", state, TopicState::decodeFailures).tags(tags)
            .description("samples a reader of this member could not decode and skipped (logged at most once per 10 s)")
            .register(registry));
        if (state.config.qos() == QosLevel.LOGGED_STORAGE)
        {
            meters.add(Gauge.builder(PREFIX + "durability.lag", state, TopicState::durabilityLag)
                .tags(tags).description("samples delivered here that are not yet in every member's log")
                .register(registry));
        }
        return List.copyOf(meters);
    }
}

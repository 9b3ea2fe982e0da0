package io.weft.dds;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.weft.config.QosLevel;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A topic's meters in the group's registry, tagged with the member, the topic and its QoS level. */
final class TopicMeters
{
    private static final String PREFIX = "weft.dds.";

    private TopicMeters()
    {
    }

    static void register(final MeterRegistry registry, final int member, final String name, final TopicState state,
        final AtomicLong written)
    {
        final Tags tags = Tags.of("member", String.valueOf(member), "topic", name, "qos",
            state.config.qos().configName());
        FunctionCounter.builder(PREFIX + "samples.written", written, AtomicLong::get).tags(tags)
            .description("samples this member wrote to the topic").register(registry);
        FunctionCounter.builder(PREFIX + "samples.delivered", state, TopicState::delivered).tags(tags)
            .description("samples of the topic delivered at this member").register(registry);
        if (state.config.qos() == QosLevel.LOGGED_STORAGE)
        {
            Gauge.builder(PREFIX + "durability.lag", state, s -> s.delivered() - Math.max(0, s.persistedFrontier()))
                .tags(tags).description("samples delivered here that are not yet in every member's log")
                .register(registry);
        }
    }

    /** A deleted topic's meters leave the registry: a topic created again under the name starts from zero. */
    static void remove(final MeterRegistry registry, final int member, final String name)
    {
        final List<Meter> mine = registry.getMeters().stream().filter(m -> m.getId().getName().startsWith(PREFIX) &&
            name.equals(m.getId().getTag("topic")) && String.valueOf(member).equals(m.getId().getTag("member")))
            .toList();
        mine.forEach(registry::remove);
    }
}

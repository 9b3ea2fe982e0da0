package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;

import java.util.Objects;

/**
 * A topic of the domain, typed by its codec: its name, 8-bit number and QoS come from the configuration
 * ({@code weft.dds.topics}). Obtained from {@link DomainParticipant#topic}.
 */
public final class Topic<T>
{
    private final TopicConfig config;
    private final Codec<T> codec;

    Topic(final TopicConfig config, final Codec<T> codec)
    {
        this.config = config;
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    /** {@return the topic's configured name} */
    public String name()
    {
        return config.name();
    }

    /** {@return the topic number (0..255)} */
    public int id()
    {
        return config.id();
    }

    /** {@return the topic's QoS level, from the configuration} */
    public QosLevel qos()
    {
        return config.qos();
    }

    /** {@return the largest encoded sample, in bytes} */
    public int maxSample()
    {
        return config.maxSample();
    }

    /** {@return how samples of this topic are written into and read from their slots} */
    public Codec<T> codec()
    {
        return codec;
    }

    TopicConfig config()
    {
        return config;
    }

    @Override
    public String toString()
    {
        return "topic " + config.name() + " (" + config.id() + ", " + config.qos().configName() + ")";
    }
}

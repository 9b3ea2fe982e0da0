package io.weft.config;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The DDS layer's part of the configuration: the topics of the domain and where logged topics keep their logs.
 *
 * @param logDirectory  where logged-storage topics keep their logs: {@code <dir>/<group>/member-<id>/<topic>}.
 * @param logDropBehind whether a log's pages leave the page cache once on disk, 192 MiB behind the appender.
 * @param topics        the topics of the domain, the same in every member's file.
 */
public record DdsConfig(Path logDirectory, boolean logDropBehind, List<TopicConfig> topics)
{
    public static final DdsConfig NONE = new DdsConfig(Path.of("weft-logs"), List.of());

    /** Logs in {@code logDirectory}, their pages dropped behind the appender (the default). */
    public DdsConfig(final Path logDirectory, final List<TopicConfig> topics)
    {
        this(logDirectory, true, topics);
    }

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public DdsConfig
    {
        WeftConfigException.check(logDirectory != null, "weft.dds.log-directory", null, "must be a directory path");
        topics = List.copyOf(topics == null ? List.of() : topics);
        final Set<String> names = new HashSet<>();
        final Set<Integer> ids = new HashSet<>();
        for (final TopicConfig t : topics)
        {
            WeftConfigException.check(names.add(t.name()), "weft.dds.topics[].name", t.name(), "must be unique");
            WeftConfigException.check(ids.add(t.id()), "weft.dds.topics[" + t.name() + "].id", t.id(),
                "must be unique (another topic has the same number)");
        }
    }

    /** The topic named {@code name}, or an error that lists the declared ones. */
    public TopicConfig topic(final String name)
    {
        return ConfigNames.named(topics, TopicConfig::name, name, "topic", "weft.dds.topics");
    }
}

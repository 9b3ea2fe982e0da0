package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.config.SampleKey;
import io.weft.config.SubgroupConfig;
import io.weft.config.TopicConfig;
import io.weft.config.WeftConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A topic created at run time travels as the properties of the subgroup that carries it
 * ({@link io.weft.membership.Group#addSubgroup}): one line of {@code key=value} pairs after a marker, so every
 * member rebuilds the same {@link TopicConfig}. Each creation carries an incarnation, a random number that tells
 * a topic's log from the log of an earlier, deleted topic of the same name.
 */
final class RuntimeTopics
{
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeTopics.class);
    private static final String MARKER = "weft.dds.topic/1";
    /** In a runtime topic's log directory: the incarnation the log belongs to. */
    private static final String INCARNATION_FILE = "weft-topic-incarnation";

    /** A topic created at run time, and which creation of its name it is. */
    record RuntimeTopic(TopicConfig config, String incarnation)
    {
    }

    private RuntimeTopics()
    {
    }

    static String encode(final TopicConfig t)
    {
        final SampleKey key = t.key();
        return MARKER + " id=" + t.id() + " qos=" + t.qos().configName() + " publishers=" + ids(t.publishers()) +
            " subscribers=" + ids(t.subscribers()) + " window=" + t.window() + " max-sample=" + t.maxSample() +
            " history=" + t.history() + " key=" + (key == null ? "none" : key.offset() + ":" + key.length() + ":" +
            key.maxKeys()) + " incarnation=" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    /** The topic a runtime subgroup carries, or null when it is no topic (another application's subgroup). */
    static RuntimeTopic decode(final SubgroupConfig sg, final String properties)
    {
        if (!sg.name().startsWith(TopicConfig.SUBGROUP_PREFIX) || !properties.startsWith(MARKER + " "))
        {
            return null;
        }
        final Map<String, String> v = new HashMap<>();
        for (final String pair : properties.substring(MARKER.length() + 1).split(" "))
        {
            final int eq = pair.indexOf('=');
            if (eq > 0)
            {
                v.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        final String key = v.getOrDefault("key", "none");
        final int[] k = key.equals("none") ? null : Arrays.stream(key.split(":")).mapToInt(Integer::parseInt).toArray();
        return new RuntimeTopic(new TopicConfig(name(sg.name()), Integer.parseInt(v.get("id")),
            QosLevel.parse("qos", v.get("qos")), list(v.get("publishers")), list(v.get("subscribers")),
            Integer.parseInt(v.get("window")), Integer.parseInt(v.get("max-sample")),
            Integer.parseInt(v.get("history")),
            k == null ? null : new SampleKey(k[0], k[1], k[2])), v.getOrDefault("incarnation", "0"));
    }

    /** The topic a subgroup carries by its name, or null. */
    static String name(final String subgroup)
    {
        return subgroup.startsWith(TopicConfig.SUBGROUP_PREFIX) ?
            subgroup.substring(TopicConfig.SUBGROUP_PREFIX.length()) : null;
    }

    /**
     * Opens the log of runtime topic {@code t} at this member: a log there from an earlier topic of the same name
     * (deleted while this member was away) is moved to the graveyard first, so that the new topic starts empty.
     */
    static SampleLog openLog(final WeftConfig config, final TopicConfig t, final String incarnation)
    {
        final Path dir = DomainParticipant.logDirectory(config, t.name());
        final Path marker = dir.resolve(INCARNATION_FILE);
        try
        {
            if (Files.exists(marker))
            {
                final String owner = Files.readString(marker).trim();
                if (!owner.equals(incarnation))
                {
                    bury(dir, graveyard(config), owner);
                }
            }
            Files.createDirectories(dir);
            Files.writeString(marker, incarnation);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot prepare the log of a topic in " + dir, ex);
        }
        return SampleLog.open(dir, config.dds().logDropBehind());
    }

    /** Moves a deleted topic's log to this member's graveyard, where it stays for the operator ({@code weft log}). */
    static void buryLog(final WeftConfig config, final String topic, final String incarnation)
    {
        final Path dir = DomainParticipant.logDirectory(config, topic);
        try
        {
            LOG.info("topic {} deleted; its log is kept in {}", topic, bury(dir, graveyard(config), incarnation));
        }
        catch (final IOException ex)
        {
            LOG.error("topic {} deleted, but its log could not be moved away from {}: {}", topic, dir, ex.toString());
        }
    }

    private static Path bury(final Path dir, final Path graveyard, final String incarnation) throws IOException
    {
        Files.createDirectories(graveyard);
        final Path grave = graveyard.resolve(dir.getFileName() + "-" + incarnation);
        Files.move(dir, grave);
        return grave;
    }

    /** Where this member keeps the logs of deleted topics: beside its logs, not among them. */
    private static Path graveyard(final WeftConfig config)
    {
        return DomainParticipant.logRoot(config).resolveSibling("member-" + config.memberId() + ".deleted");
    }

    private static String ids(final List<Integer> ids)
    {
        return ids.isEmpty() ? "all" : String.join(",", ids.stream().map(String::valueOf).toList());
    }

    private static List<Integer> list(final String ids)
    {
        return ids == null || ids.equals("all") ? List.of() : Arrays.stream(ids.split(",")).map(Integer::valueOf)
            .toList();
    }
}

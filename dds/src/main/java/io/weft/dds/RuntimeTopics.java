package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.config.SampleKey;
import io.weft.config.SubgroupConfig;
import io.weft.config.TopicConfig;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A topic created at run time travels as the properties of the subgroup that carries it
 * ({@link io.weft.membership.Group#addSubgroup}): one line of {@code key=value} pairs after a marker, so every
 * member rebuilds the same {@link TopicConfig}.
 */
final class RuntimeTopics
{
    private static final String MARKER = "weft.dds.topic/1";

    private RuntimeTopics()
    {
    }

    static String encode(final TopicConfig t)
    {
        final SampleKey key = t.key();
        return MARKER + " id=" + t.id() + " qos=" + t.qos().configName() + " publishers=" + ids(t.publishers()) +
            " subscribers=" + ids(t.subscribers()) + " window=" + t.window() + " max-sample=" + t.maxSample() +
            " history=" + t.history() + " key=" + (key == null ? "none" : key.offset() + ":" + key.length() + ":" +
            key.maxKeys());
    }

    /** The topic a runtime subgroup carries, or null when it is no topic (another application's subgroup). */
    static TopicConfig decode(final SubgroupConfig sg, final String properties)
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
        return new TopicConfig(sg.name().substring(TopicConfig.SUBGROUP_PREFIX.length()), Integer.parseInt(v.get("id")),
            QosLevel.parse("qos", v.get("qos")), list(v.get("publishers")), list(v.get("subscribers")),
            Integer.parseInt(v.get("window")), Integer.parseInt(v.get("max-sample")), Integer.parseInt(v.get("history")),
            k == null ? null : new SampleKey(k[0], k[1], k[2]));
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

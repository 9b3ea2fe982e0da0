package io.weft.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One DDS topic of the domain. A topic is carried by one subgroup, {@code dds.<name>}: its publishers are the
 * subgroup's senders. Its members are the publishers and subscribers, except for the storage levels, which every
 * member of the group stores (so that whichever member admits a joiner can hand it the history or the log).
 *
 * @param name        unique: 1-56 of [A-Za-z0-9_.-].
 * @param id          the 8-bit topic number of avionics DDS (0..255), unique.
 * @param qos         what the topic promises.
 * @param publishers  member ids that may write ("all": every member).
 * @param subscribers member ids that read ("all": every member).
 * @param window      samples in flight per publisher before it is back-pressured.
 * @param maxSample   largest encoded sample in bytes.
 * @param history     samples kept per member for volatile storage (KEEP_LAST n per topic, or per key), at least 1.
 * @param key         volatile storage only: where a sample's key is, for KEEP_LAST per key; null: per topic.
 */
public record TopicConfig(String name, int id, QosLevel qos, List<Integer> publishers, List<Integer> subscribers,
    int window, int maxSample, int history, SampleKey key)
{
    /** The prefix of the subgroups that carry topics; user-declared subgroups may not use it. */
    public static final String SUBGROUP_PREFIX = "dds.";
    public static final int MAX_HISTORY = 1_000_000;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,55}");

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public TopicConfig
    {
        final String at = "weft.dds.topics[" + name + "]";
        WeftConfigException.check(name != null && NAME.matcher(name).matches(), "weft.dds.topics[].name", name,
            "must be 1-56 characters of letters, digits, '_', '.', '-'");
        WeftConfigException.check(id >= 0 && id <= 255, at + ".id", id, "must be a topic number in 0..255");
        WeftConfigException.check(qos != null, at + ".qos", null,
            "must be one of " + ConfigNames.allowed(QosLevel.values()));
        publishers = List.copyOf(publishers == null ? List.of() : publishers);
        subscribers = List.copyOf(subscribers == null ? List.of() : subscribers);
        WeftConfigException.check(history >= 1 && history <= MAX_HISTORY, at + ".history", history,
            "must be in 1.." + MAX_HISTORY);
        subgroup(name, qos, publishers, subscribers, window, maxSample); // checks window and max-sample
        if (key != null)
        {
            WeftConfigException.check(qos == QosLevel.VOLATILE_STORAGE, at + ".key", "offset " + key.offset(),
                "only volatile-storage topics keep a history per key (this one is " + qos.configName() + ")");
            WeftConfigException.check(key.end() <= maxSample, at + ".key", key.offset() + "+" + key.length(),
                "must lie within max-sample (" + maxSample + " bytes)");
        }
    }

    /** A topic whose volatile history, if any, is kept per topic. */
    public TopicConfig(final String name, final int id, final QosLevel qos, final List<Integer> publishers,
        final List<Integer> subscribers, final int window, final int maxSample, final int history)
    {
        this(name, id, qos, publishers, subscribers, window, maxSample, history, null);
    }

    /** The subgroup that carries this topic. */
    public SubgroupConfig subgroup()
    {
        return subgroup(name, qos, publishers, subscribers, window, maxSample);
    }

    private static SubgroupConfig subgroup(final String name, final QosLevel qos, final List<Integer> publishers,
        final List<Integer> subscribers, final int window, final int maxSample)
    {
        final List<Integer> members;
        if (qos.stored() || subscribers.isEmpty() || publishers.isEmpty())
        {
            members = List.of(); // every member of the group
        }
        else
        {
            members = new ArrayList<>(publishers);
            subscribers.stream().filter(s -> !members.contains(s)).forEach(members::add);
        }
        return new SubgroupConfig(SUBGROUP_PREFIX + name, members, publishers, window, maxSample,
            qos == QosLevel.UNORDERED ? DeliveryMode.UNORDERED : DeliveryMode.ORDERED);
    }

    /** The name of the subgroup that carries the topic ({@code dds.<topic>}). */
    public String subgroupName()
    {
        return SUBGROUP_PREFIX + name;
    }

    /** Subscriber ids resolved against the group ("all" is every member). */
    public List<Integer> subscriberIds(final GroupConfig group)
    {
        return subscribers.isEmpty() ? group.members().stream().map(MemberAddress::id).toList() : subscribers;
    }

    /** Publisher ids resolved against the group ("all" is every member). */
    public List<Integer> publisherIds(final GroupConfig group)
    {
        return publishers.isEmpty() ? group.members().stream().map(MemberAddress::id).toList() : publishers;
    }

    /** Checks every publisher and subscriber id against the group's members. */
    public void validateAgainst(final GroupConfig group)
    {
        for (final int id : subscribers)
        {
            WeftConfigException.check(group.rankOf(id) >= 0, "weft.dds.topics[" + name + "].subscribers", subscribers,
                "every id must be in weft.group.members; " + id + " is not");
        }
        subgroup().validateAgainst(group);
    }
}

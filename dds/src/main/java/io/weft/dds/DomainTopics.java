package io.weft.dds;

import io.weft.config.TopicConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The topics of the domain known at this member: those configured ({@code weft.dds.topics}), those created at run
 * time and the incarnation of each, those refused (a number taken) and those deleted. Changed on the membership
 * thread in the group's agreed order, so the same at every member; read by application threads.
 */
final class DomainTopics
{
    private final List<TopicConfig> configured;
    private final Map<String, TopicConfig> created = new ConcurrentHashMap<>();
    private final Map<String, String> incarnations = new ConcurrentHashMap<>();
    private final Set<String> deleted = ConcurrentHashMap.newKeySet(); // deleted, not created again
    private final Map<String, String> refused = new ConcurrentHashMap<>(); // topic -> why

    DomainTopics(final List<TopicConfig> configured)
    {
        this.configured = List.copyOf(configured);
    }

    /** The topic named {@code name}, configured or created at run time, or null. */
    TopicConfig find(final String name)
    {
        for (final TopicConfig k : known())
        {
            if (k.name().equals(name))
            {
                return k;
            }
        }
        return null;
    }

    /** The error for a name no topic has, listing those that exist. */
    IllegalArgumentException unknown(final String name)
    {
        return new IllegalArgumentException("no topic named '" + name + "' in weft.dds.topics " +
            configured.stream().map(TopicConfig::name).toList() + " or created at run time " +
            List.copyOf(created.keySet()));
    }

    /** Why {@code t}'s number is another topic's (configured, or created at run time before it), or null. */
    String numberTaken(final TopicConfig t)
    {
        for (final TopicConfig k : known())
        {
            if (k.id() == t.id() && !k.name().equals(t.name()))
            {
                return "topic number " + t.id() + " is topic " + k.name() + "'s";
            }
        }
        return null;
    }

    boolean configured(final String name)
    {
        return configured.stream().anyMatch(t -> t.name().equals(name));
    }

    boolean created(final String name)
    {
        return created.containsKey(name);
    }

    boolean deleted(final String name)
    {
        return deleted.contains(name);
    }

    /** Why the topic created at run time under {@code name} was refused, or null. */
    String refusal(final String name)
    {
        return refused.get(name);
    }

    /**
     * A topic created at run time, in the agreed order: taken, or refused when its number is another's (two topics
     * asked for with one number at once: every member refuses the later one).
     *
     * @return null if taken, else why it was refused.
     */
    String add(final TopicConfig t, final String incarnation)
    {
        final String clash = numberTaken(t);
        if (clash != null)
        {
            refused.put(t.name(), clash);
            return clash;
        }
        created.put(t.name(), t);
        incarnations.put(t.name(), incarnation);
        deleted.remove(t.name());
        return null;
    }

    /**
     * The subgroup of topic {@code name} was removed: a topic created at run time is deleted.
     *
     * @return its incarnation; null if no such topic was created here, or it was refused (it carried nothing).
     */
    String remove(final String name)
    {
        if (refused.remove(name) != null || created.remove(name) == null)
        {
            return null;
        }
        deleted.add(name);
        return incarnations.remove(name);
    }

    private List<TopicConfig> known()
    {
        final List<TopicConfig> known = new ArrayList<>(configured);
        known.addAll(created.values());
        return known;
    }
}

package io.weft.dds;

import io.micrometer.core.instrument.Meter;
import io.weft.config.QosLevel;
import io.weft.config.SubgroupConfig;
import io.weft.config.TopicConfig;
import io.weft.config.WeftConfig;
import io.weft.smc.BatchHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The topics of one {@link DomainParticipant}: those of the domain known here, the states of those this member takes
 * part in (configured, then created at run time), their counts of samples written and their meters. Topics created
 * or deleted at run time come and go here, on the membership thread.
 */
final class ParticipantTopics
{
    private static final Logger LOG = LoggerFactory.getLogger(ParticipantTopics.class);

    final DomainTopics known; // the topics of the domain known here
    // the topics this member takes part in: configured, then created at run time (added on the membership thread)
    final Map<String, TopicState> states;
    final Map<String, AtomicLong> written = new ConcurrentHashMap<>();
    final Map<String, List<Meter>> metered = new ConcurrentHashMap<>(); // each topic's, as registered
    private final WeftConfig config;

    ParticipantTopics(final WeftConfig config, final Map<String, TopicState> states)
    {
        this.config = config;
        this.states = states;
        this.known = new DomainTopics(config.dds().topics());
        states.keySet().forEach(name -> written.put(name, new AtomicLong()));
    }

    /** {@return the states of the topics this member takes part in, a copy} */
    List<TopicState> list()
    {
        synchronized (states)
        {
            return List.copyOf(states.values());
        }
    }

    /** {@return the names of the topics this member takes part in, a copy} */
    List<String> names()
    {
        synchronized (states)
        {
            return List.copyOf(states.keySet());
        }
    }

    /**
     * A subgroup was added at run time (membership thread, at every member, before its first delivery): when it
     * carries a topic this member takes part in, the topic's state (history, log) is made here.
     */
    BatchHandler added(final SubgroupConfig sg, final String properties)
    {
        final RuntimeTopics.RuntimeTopic rt;
        try
        {
            rt = RuntimeTopics.decode(sg, properties);
        }
        catch (final RuntimeException ex)
        {
            LOG.error("subgroup {} was added with a topic description this member cannot read ({}): it takes no " +
                "part in it", sg.name(), ex.getMessage());
            return null;
        }
        if (rt == null)
        {
            return null; // not a topic
        }
        final TopicConfig t = rt.config();
        final String clash = known.add(t, rt.incarnation());
        if (clash != null)
        {
            LOG.error("topic {} created at run time is refused: {}", t.name(), clash);
            return null;
        }
        if (!sg.memberIds(config.group()).contains(config.memberId()))
        {
            return null;
        }
        final SampleLog log = t.qos() == QosLevel.LOGGED_STORAGE ? RuntimeTopics.openLog(config, t, rt.incarnation()) :
            null;
        final TopicState state = new TopicState(t, config.memberId(), log);
        written.put(t.name(), new AtomicLong());
        states.put(t.name(), state);
        LOG.info("topic {} ({}) created at run time; member {} takes part", t.name(), t.qos().configName(),
            config.memberId());
        return state::onBatch;
    }

    /**
     * A subgroup was removed at run time (membership thread, at every member, after its last delivery): when it
     * carried a topic, the topic's readers end, its meters go, and its log is closed and moved to the member's
     * graveyard of deleted logs.
     */
    void removed(final String subgroup, final Consumer<List<Meter>> unregister)
    {
        final String name = RuntimeTopics.name(subgroup);
        final String incarnation = name == null ? null : known.remove(name);
        if (incarnation == null)
        {
            return; // not a topic, or one refused (its subgroup carried nothing)
        }
        final TopicState state;
        synchronized (states)
        {
            state = states.remove(name);
        }
        unregister.accept(metered.remove(name)); // a topic created again under the name starts from zero
        if (state == null)
        {
            return;
        }
        state.delete();
        written.remove(name);
        if (state.config.qos() == QosLevel.LOGGED_STORAGE)
        {
            RuntimeTopics.buryLog(config, name, incarnation);
        }
    }

    /** {@return the state of {@code topic} at this member} Refused, saying why, if it takes no part in it here. */
    TopicState state(final Topic<?> topic)
    {
        final TopicState s = states.get(topic.name());
        if (s == null && known.deleted(topic.name()))
        {
            throw new IllegalStateException("topic " + topic.name() + " was deleted");
        }
        if (s == null)
        {
            throw new IllegalStateException("member " + config.memberId() + " takes no part in " + topic);
        }
        return s;
    }
}

package io.weft.dds;

import io.micrometer.core.instrument.MeterRegistry;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/** Options of a participant before it opens or joins. */
public final class ParticipantBuilder
{
    private final WeftConfig config;
    private MeterRegistry registry;
    private Consumer<GroupBuilder> group = g -> { };

    ParticipantBuilder(final WeftConfig config)
    {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Sets the registry for the group's and the topics' meters.
     *
     * @param registry where the meters go (without one, the group makes a simple registry of its own).
     * @return this builder.
     */
    public ParticipantBuilder meterRegistry(final MeterRegistry registry)
    {
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /**
     * Further options of the group underneath (view listener, other subgroups' handlers).
     *
     * @param options applied to the group's builder when the participant is created.
     * @return this builder.
     */
    public ParticipantBuilder group(final Consumer<GroupBuilder> options)
    {
        this.group = Objects.requireNonNull(options, "options");
        return this;
    }

    /**
     * Creates the participant and opens the group as a member of view 0. When the group starts again from logs of
     * different sizes, each member whose log of a topic holds fewer entries fetches what it lacks from a member that
     * holds the most of that topic; all return once every log holds as many entries and ends with the same entry
     * ({@link DomainParticipant#enable}). Without {@code weft.membership.secret}, or when logs of one size end
     * differently, every member refuses instead.
     *
     * @return the participant, a member of the group's first view.
     * @throws IllegalStateException the members' logs cannot agree (the message names each member's sizes or last
     *                               entries and what to do; nothing is written), or the group could not be opened.
     */
    public DomainParticipant open()
    {
        return enabled(false);
    }

    /**
     * Creates the participant and joins the running group.
     *
     * @return the participant, a member of the view that admitted it.
     */
    public DomainParticipant join()
    {
        return enabled(true);
    }

    private DomainParticipant enabled(final boolean join)
    {
        final DomainParticipant p = create();
        try
        {
            return p.enable(join);
        }
        catch (final RuntimeException ex)
        {
            p.close();
            throw ex;
        }
    }

    /**
     * Creates the participant without opening the group: create readers, then {@link DomainParticipant#enable} it.
     *
     * @return the participant, not yet in the group.
     */
    public DomainParticipant create()
    {
        final Map<String, TopicState> states = Collections.synchronizedMap(new LinkedHashMap<>());
        final GroupBuilder builder = Group.builder(config);
        try
        {
            for (final TopicConfig t : config.dds().topics())
            {
                if (!t.subgroup().memberIds(config.group()).contains(config.memberId()))
                {
                    continue;
                }
                final SampleLog log = t.qos() == QosLevel.LOGGED_STORAGE ?
                    SampleLog.open(DomainParticipant.logDirectory(config, t.name()), config.dds().logDropBehind()) :
                    null;
                final TopicState state = new TopicState(t, config.memberId(), log);
                states.put(t.name(), state);
                builder.onBatch(t.subgroupName(), state::onBatch);
            }
            builder.stateTransfer(new DomainState(states, config));
            if (registry != null)
            {
                builder.meterRegistry(registry);
            }
            final DomainParticipant p = new DomainParticipant(config, builder, states);
            builder.onView(v -> p.viewChanged());
            builder.onSubgroupAdded(p::topicAdded);
            builder.onSubgroupRemoved(p::topicRemoved);
            group.accept(builder);
            return p;
        }
        catch (final RuntimeException ex)
        {
            states.values().forEach(TopicState::close);
            throw ex;
        }
    }
}


package io.weft.dds;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.weft.config.QosLevel;
import io.weft.config.SubgroupConfig;
import io.weft.config.TopicConfig;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;
import io.weft.smc.BatchHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One process's place in a DDS domain (OMG DCPS vocabulary): it wraps a {@link Group} whose subgroups carry the
 * topics declared in {@code weft.dds.topics}, and makes the topics' writers and readers.
 *
 * <pre>{@code
 * WeftConfig config = ConfigLoader.load(Path.of("domain.conf"));
 * try (DomainParticipant participant = DomainParticipant.open(config)) {
 *     Topic<String> alerts = participant.topic("alerts", Codecs.utf8());
 *     DataReader<String> reader = participant.createReader(alerts, (text, info) ->
 *         System.out.println(info.publisherId() + ": " + text));
 *     participant.createWriter(alerts).write("hello");
 * }
 * }</pre>
 *
 * Samples that arrive before a reader is created are not kept for it, except on storage topics (the reader first
 * receives the history or the log). To read a topic from the very first sample, create the participant without
 * enabling it ({@link Builder#create}), create its readers, then {@link #enable} it.
 */
public final class DomainParticipant implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(DomainParticipant.class);

    private final WeftConfig config;
    private final GroupBuilder builder;
    // the topics this member takes part in: configured, then created at run time (added on the membership thread)
    private final Map<String, TopicState> states;
    private final Map<String, AtomicLong> written = new ConcurrentHashMap<>();
    private final Map<String, TopicConfig> created = new ConcurrentHashMap<>(); // every topic created at run time
    private final Map<String, String> refused = new ConcurrentHashMap<>(); // topic -> why, decided in agreed order
    private final Set<String> metered = ConcurrentHashMap.newKeySet();
    private volatile Group group;

    private DomainParticipant(final WeftConfig config, final GroupBuilder builder, final Map<String, TopicState> states)
    {
        this.config = config;
        this.builder = builder;
        this.states = states;
        states.keySet().forEach(name -> written.put(name, new AtomicLong()));
    }

    /**
     * Opens the group (as a member of view 0) or joins it, after which writers may write. Readers created before
     * receive every sample from the first on.
     *
     * @throws IllegalStateException enabled already.
     */
    public synchronized DomainParticipant enable(final boolean join)
    {
        if (group != null)
        {
            throw new IllegalStateException("the participant of member " + config.memberId() + " is enabled already");
        }
        final Group g = join ? builder.join() : builder.open();
        group = g;
        attachAll(); // also the topics a joiner was told of with its view
        return this;
    }

    /** Attaches the topics not attached yet to their subgroups and registers their meters (once each). */
    private void attachAll()
    {
        final Group g = group;
        if (g == null)
        {
            return; // enable() attaches them
        }
        synchronized (states)
        {
            states.forEach((name, state) ->
            {
                if (!state.attached())
                {
                    state.attach(g.subgroup(state.config.subgroupName()));
                }
                if (metered.add(name))
                {
                    register(g.meterRegistry(), name, state);
                }
            });
        }
    }

    private void register(final MeterRegistry registry, final String name, final TopicState state)
    {
        final Tags tags = Tags.of("topic", name, "qos", state.config.qos().configName());
        FunctionCounter.builder("weft.dds.samples.written", written.get(name), AtomicLong::get).tags(tags)
            .description("samples this member wrote to the topic").register(registry);
        FunctionCounter.builder("weft.dds.samples.delivered", state, TopicState::delivered).tags(tags)
            .description("samples of the topic delivered at this member").register(registry);
        if (state.config.qos() == QosLevel.LOGGED_STORAGE)
        {
            Gauge.builder("weft.dds.durability.lag", state, s -> s.delivered() - Math.max(0, s.persistedFrontier()))
                .tags(tags).description("samples delivered here that are not yet in every member's log")
                .register(registry);
        }
    }

    /** A view was installed (membership thread, before its first delivery). */
    private void viewChanged()
    {
        attachAll(); // topics created at run time, now in the view
        synchronized (states)
        {
            states.values().forEach(TopicState::viewChanged);
        }
    }

    /**
     * A subgroup was added at run time (membership thread, at every member, before its first delivery): when it
     * carries a topic this member takes part in, the topic's state (history, log) is made here.
     */
    private BatchHandler topicAdded(final SubgroupConfig sg, final String properties)
    {
        final TopicConfig t;
        try
        {
            t = RuntimeTopics.decode(sg, properties);
        }
        catch (final RuntimeException ex)
        {
            LOG.error("subgroup {} was added with a topic description this member cannot read ({}): it takes no " +
                "part in it", sg.name(), ex.getMessage());
            return null;
        }
        if (t == null)
        {
            return null; // not a topic
        }
        final String clash = numberTaken(t);
        if (clash != null)
        {
            // two topics asked for with one number at once: every member refuses the later one in the agreed order
            refused.put(t.name(), clash);
            LOG.error("topic {} created at run time is refused: {}", t.name(), clash);
            return null;
        }
        created.put(t.name(), t);
        if (!sg.memberIds(config.group()).contains(config.memberId()))
        {
            return null;
        }
        final SampleLog log = t.qos() == QosLevel.LOGGED_STORAGE ? SampleLog.open(logDirectory(config, t.name())) : null;
        final TopicState state = new TopicState(t, config.memberId(), log);
        written.put(t.name(), new AtomicLong());
        states.put(t.name(), state);
        LOG.info("topic {} ({}) created at run time; member {} takes part", t.name(), t.qos().configName(),
            config.memberId());
        return state::onBatch;
    }

    /** A participant that is a member of view 0 (see {@link Group#open}). */
    public static DomainParticipant open(final WeftConfig config)
    {
        return builder(config).open();
    }

    /** A participant that joins a running domain, receiving the stored topics' state first (see {@link Group#join}). */
    public static DomainParticipant join(final WeftConfig config)
    {
        return builder(config).join();
    }

    /** A builder for this process's participant in the domain (and group) {@code config} describes. */
    public static Builder builder(final WeftConfig config)
    {
        return new Builder(config);
    }

    /** The topic named {@code name}, declared in the configuration or created at run time, typed by {@code codec}. */
    public <T> Topic<T> topic(final String name, final Codec<T> codec)
    {
        final TopicConfig t = known(name);
        if (t == null)
        {
            throw new IllegalArgumentException("no topic named '" + name + "' in weft.dds.topics " +
                config.dds().topics().stream().map(TopicConfig::name).toList() + " or created at run time " +
                List.copyOf(created.keySet()));
        }
        return new Topic<>(t, codec);
    }

    /**
     * Creates a topic while the domain runs, at every member at once: the group adds the topic's subgroup in a view
     * change ({@link Group#addSubgroup}; {@code weft.membership.runtime-subgroups = true} at every member), every
     * member that takes part makes its state (the history, the log) before the first sample, and members that join
     * later are told of it with their view. Returns once the topic is usable here. Creating a topic that exists
     * with the same description returns it; a different description is refused.
     *
     * @throws IllegalStateException runtime topics are off, the participant is not enabled, the name is taken by a
     *                               different topic, or the topic number is another topic's.
     * @throws java.util.concurrent.TimeoutException not created within {@code timeout}.
     */
    public <T> Topic<T> createTopic(final TopicConfig topic, final Codec<T> codec, final java.time.Duration timeout)
        throws java.util.concurrent.TimeoutException, InterruptedException
    {
        final Group g = group();
        topic.validateAgainst(config.group());
        final TopicConfig k = known(topic.name());
        if (k != null)
        {
            if (!k.equals(topic))
            {
                throw new IllegalStateException("topic " + topic.name() + " exists with another description: " + k);
            }
            return new Topic<>(k, codec);
        }
        final String clash = numberTaken(topic);
        if (clash != null)
        {
            throw new IllegalStateException(clash + "; choose another for " + topic.name());
        }
        g.addSubgroup(topic.subgroup(), RuntimeTopics.encode(topic), timeout);
        final String why = refused.get(topic.name());
        if (why != null)
        {
            throw new IllegalStateException("topic " + topic.name() + " is refused: " + why);
        }
        return topic(topic.name(), codec);
    }

    /** The topics of the domain known here: configured, then created at run time. */
    private List<TopicConfig> known()
    {
        final List<TopicConfig> known = new java.util.ArrayList<>(config.dds().topics());
        known.addAll(created.values());
        return known;
    }

    private TopicConfig known(final String name)
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

    /** Why {@code t}'s number is another topic's (configured, or created at run time before it), or null. */
    private String numberTaken(final TopicConfig t)
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

    /**
     * A writer of {@code topic}.
     *
     * @throws IllegalStateException this member is not one of the topic's publishers.
     */
    public <T> DataWriter<T> createWriter(final Topic<T> topic)
    {
        final TopicConfig t = topic.config();
        if (!t.publisherIds(config.group()).contains(config.memberId()))
        {
            throw new IllegalStateException("member " + config.memberId() + " is not a publisher of " + topic +
                ": its publishers are " + t.publisherIds(config.group()) + " (weft.dds.topics)");
        }
        return new DataWriter<>(topic, state(topic), () -> group().subgroup(t.subgroupName()), written.get(t.name()));
    }

    /** A reader of {@code topic} with a queue of 4096 samples for {@link DataReader#take}. */
    public <T> DataReader<T> createReader(final Topic<T> topic)
    {
        return createReader(topic, null, 4096);
    }

    /** A reader of {@code topic} whose listener is told of every sample on the delivery thread. */
    public <T> DataReader<T> createReader(final Topic<T> topic, final SampleListener<T> listener)
    {
        return createReader(topic, Objects.requireNonNull(listener, "listener"), 1);
    }

    /** A reader of {@code topic} with a queue of {@code capacity} samples (the oldest dropped when full). */
    public <T> DataReader<T> createReader(final Topic<T> topic, final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("a reader's queue holds at least 1 sample, not " + capacity);
        }
        return createReader(topic, null, capacity);
    }

    /**
     * A reader told of every sample of {@code topic} as bytes in place, on the delivery thread, allocating nothing
     * per sample (no decoding; the header is one object refilled per sample). Stored samples come first.
     */
    public RawReader createRawReader(final Topic<?> topic, final RawSampleListener listener)
    {
        Objects.requireNonNull(listener, "listener");
        final TopicState state = readable(topic);
        final RawReader reader = new RawReader(state, listener);
        state.addReader(reader);
        return reader;
    }

    /**
     * The durability frontier of a logged topic: how many of its samples (from the first) are in the log of every
     * member of the current view. It only grows, and never passes what any member has appended to its log.
     *
     * @throws IllegalStateException the topic is not logged, or the participant is not enabled, or its group stopped.
     */
    public long durabilityFrontier(final Topic<?> topic)
    {
        if (topic.qos() != QosLevel.LOGGED_STORAGE)
        {
            throw new IllegalStateException(topic + " is not logged: it has no durability frontier");
        }
        group(); // enabled, or a clear error
        return Math.max(0, state(topic).persistedFrontier());
    }

    /**
     * The samples of {@code topic} as a {@link java.util.concurrent.Flow.Publisher}: subscribers are signalled on the
     * common fork-join pool, each with a buffer of {@link java.util.concurrent.Flow#defaultBufferSize()} samples.
     */
    public <T> SamplePublisher<T> createPublisher(final Topic<T> topic)
    {
        return createPublisher(topic, java.util.concurrent.ForkJoinPool.commonPool(),
            java.util.concurrent.Flow.defaultBufferSize());
    }

    /** The samples of {@code topic} as a publisher whose subscribers are signalled on {@code executor}. */
    public <T> SamplePublisher<T> createPublisher(final Topic<T> topic, final java.util.concurrent.Executor executor,
        final int capacity)
    {
        readable(topic); // a clear error now rather than a failed subscription later
        return new SamplePublisher<>(this, topic, executor, capacity);
    }

    private <T> DataReader<T> createReader(final Topic<T> topic, final SampleListener<T> listener, final int capacity)
    {
        final TopicState state = readable(topic);
        final DataReader<T> reader = new DataReader<>(topic, state, listener, capacity);
        state.addReader(reader);
        return reader;
    }

    private TopicState readable(final Topic<?> topic)
    {
        final TopicConfig t = topic.config();
        if (!t.qos().stored() && !t.subscriberIds(config.group()).contains(config.memberId()))
        {
            throw new IllegalStateException("member " + config.memberId() + " is not a subscriber of " + topic +
                ": its subscribers are " + t.subscriberIds(config.group()) + " (weft.dds.topics)");
        }
        return state(topic);
    }

    private TopicState state(final Topic<?> topic)
    {
        final TopicState s = states.get(topic.name());
        if (s == null)
        {
            throw new IllegalStateException("member " + config.memberId() + " takes no part in " + topic);
        }
        return s;
    }

    /**
     * The group under the domain (views, metrics, other subgroups).
     *
     * @throws IllegalStateException not enabled yet.
     */
    public Group group()
    {
        final Group g = group;
        if (g == null)
        {
            throw new IllegalStateException("the participant of member " + config.memberId() + " is not enabled yet " +
                "(DomainParticipant.enable)");
        }
        return g;
    }

    /** Where this member keeps the log of {@code topic} (logged storage). */
    public static Path logDirectory(final WeftConfig config, final String topic)
    {
        return logRoot(config).resolve(topic);
    }

    private static Path logRoot(final WeftConfig config)
    {
        return config.dds().logDirectory().resolve(config.group().name()).resolve("member-" + config.memberId());
    }

    /**
     * The end of a run: once this member's own samples are delivered, waits up to {@code timeout} until every other
     * member of the view finished too (still delivering meanwhile), then closes. See {@link Group#finish}.
     *
     * @return false if the others did not all finish in time.
     */
    public boolean finish(final java.time.Duration timeout) throws InterruptedException
    {
        final boolean all = group().finish(timeout);
        close();
        return all;
    }

    @Override
    public void close()
    {
        final Group g = group;
        if (g != null)
        {
            g.close();
        }
        synchronized (states)
        {
            states.values().forEach(TopicState::close);
        }
    }

    /** Options of a participant before it opens or joins. */
    public static final class Builder
    {
        private final WeftConfig config;
        private MeterRegistry registry;
        private java.util.function.Consumer<GroupBuilder> group = g -> { };

        Builder(final WeftConfig config)
        {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** The registry for the group's and the topics' meters. */
        public Builder meterRegistry(final MeterRegistry registry)
        {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Further options of the group underneath (view listener, other subgroups' handlers). */
        public Builder group(final java.util.function.Consumer<GroupBuilder> options)
        {
            this.group = Objects.requireNonNull(options, "options");
            return this;
        }

        /** Creates the participant and opens the group as a member of view 0. */
        public DomainParticipant open()
        {
            return enabled(false);
        }

        /** Creates the participant and joins the running group. */
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

        /** Creates the participant without opening the group: create readers, then {@link #enable} it. */
        public DomainParticipant create()
        {
            final Map<String, TopicState> states = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
            final GroupBuilder builder = Group.builder(config);
            try
            {
                for (final TopicConfig t : config.dds().topics())
                {
                    if (!t.subgroup().memberIds(config.group()).contains(config.memberId()))
                    {
                        continue;
                    }
                    final SampleLog log = t.qos() == QosLevel.LOGGED_STORAGE
                        ? SampleLog.open(logDirectory(config, t.name())) : null;
                    final TopicState state = new TopicState(t, config.memberId(), log);
                    states.put(t.name(), state);
                    builder.onBatch(t.subgroupName(), state::onBatch);
                }
                builder.stateTransfer(new DomainState(states, logRoot(config)));
                if (registry != null)
                {
                    builder.meterRegistry(registry);
                }
                final DomainParticipant p = new DomainParticipant(config, builder, states);
                builder.onView(v -> p.viewChanged());
                builder.onSubgroupAdded(p::topicAdded);
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

    /** The topics this member takes part in (for tools): the configured ones, then those created at run time. */
    public List<String> topics()
    {
        synchronized (states)
        {
            return List.copyOf(states.keySet());
        }
    }
}

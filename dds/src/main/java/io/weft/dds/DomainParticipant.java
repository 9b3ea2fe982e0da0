package io.weft.dds;

import io.micrometer.core.instrument.Meter;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * enabling it ({@link ParticipantBuilder#create}), create its readers, then {@link #enable} it.
 */
public final class DomainParticipant implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(DomainParticipant.class);

    private final WeftConfig config;
    private final GroupBuilder builder;
    // the topics this member takes part in: configured, then created at run time (added on the membership thread)
    private final Map<String, TopicState> states;
    private final Map<String, AtomicLong> written = new ConcurrentHashMap<>();
    private final DomainTopics known; // the topics of the domain known here
    private final Map<String, List<Meter>> metered = new ConcurrentHashMap<>(); // each topic's, as registered
    private volatile Group group;
    private volatile String ended; // why this participant ended (closed, left, its group stopped); null while it runs

    DomainParticipant(final WeftConfig config, final GroupBuilder builder, final Map<String, TopicState> states)
    {
        this.config = config;
        this.builder = builder.onEnd(this::ended);
        this.states = states;
        this.known = new DomainTopics(config.dds().topics());
        states.keySet().forEach(name -> written.put(name, new AtomicLong()));
    }

    /**
     * Opens the group (as a member of view 0) or joins it, after which writers may write. Readers created before
     * receive every sample from the first on. A member of view 0 returns once the members' logs agree; one whose
     * logs are shorter than others' first fetches what they lack, and its readers receive those entries too
     * ({@link ParticipantBuilder#open}).
     *
     * @throws IllegalStateException enabled already, or view 0's logs cannot agree (the group is closed then; close
     *                               the participant); or, from the group, a
     *                               {@link io.weft.membership.GroupRefusedException} or a
     *                               {@link io.weft.membership.GroupJoinException} ({@link GroupBuilder#open()},
     *                               {@link GroupBuilder#join()}).
     */
    public synchronized DomainParticipant enable(final boolean join)
    {
        checkNotEnded();
        if (group != null)
        {
            throw new IllegalStateException("the participant of member " + config.memberId() + " is enabled already");
        }
        group = join ? builder.join() : builder.open();
        attachAll(!join); // also the topics a joiner was told of with its view
        if (!join)
        {
            ViewZeroLogs.agree(group, topicStates(), config);
        }
        return this;
    }

    private List<TopicState> topicStates()
    {
        synchronized (states)
        {
            return List.copyOf(states.values());
        }
    }

    /**
     * Attaches the topics not attached yet to their subgroups and registers their meters (once each);
     * {@code viewZero}: this member opened view 0 ({@link ViewZeroLogs}).
     */
    private void attachAll(final boolean viewZero)
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
                    state.attach(g.subgroup(state.config.subgroupName()), viewZero, this::stopAfterLogFailure);
                }
                metered.computeIfAbsent(name,
                    n -> TopicMeters.register(g.meterRegistry(), config.memberId(), n, state, written.get(n)));
            });
        }
    }

    /**
     * A topic's log failed (its log thread): this member leaves abruptly, as if it had crashed, so that the others
     * remove it and their durability frontiers go on without it, and no joiner receives a log with a gap from it.
     * Closing runs on a thread of its own: it waits for the threads that deliver to the topic.
     */
    private void stopAfterLogFailure(final String why)
    {
        final Group g = group;
        LOG.error("member {} stops: {}. The others go on without it. Make room or repair the disk, then start it " +
            "again as a joiner: it receives the entries its logs lack", config.memberId(), why);
        Thread.ofPlatform().name("weft-stop-" + config.memberId()).start(g::close);
    }

    /** A view was installed (membership thread, before its first delivery). */
    void viewChanged()
    {
        attachAll(false); // topics created at run time, now in the view
        synchronized (states)
        {
            states.values().forEach(TopicState::viewChanged);
        }
    }

    /**
     * A subgroup was added at run time (membership thread, at every member, before its first delivery): when it
     * carries a topic this member takes part in, the topic's state (history, log) is made here.
     */
    BatchHandler topicAdded(final SubgroupConfig sg, final String properties)
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
    void topicRemoved(final String subgroup)
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
        unregister(metered.remove(name)); // a topic created again under the name starts from zero
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

    /** A participant that is a member of view 0 (see {@link GroupBuilder#open}). */
    public static DomainParticipant open(final WeftConfig config)
    {
        return builder(config).open();
    }

    /**
     * A participant that joins a running domain, receiving the stored topics' state first (see
     * {@link GroupBuilder#join}).
     */
    public static DomainParticipant join(final WeftConfig config)
    {
        return builder(config).join();
    }

    /** A builder for this process's participant in the domain (and group) {@code config} describes. */
    public static ParticipantBuilder builder(final WeftConfig config)
    {
        return new ParticipantBuilder(config);
    }

    /** The topic named {@code name}, declared in the configuration or created at run time, typed by {@code codec}. */
    public <T> Topic<T> topic(final String name, final Codec<T> codec)
    {
        checkNotEnded();
        final TopicConfig t = known.find(name);
        if (t == null)
        {
            throw known.unknown(name);
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
        checkNotEnded();
        final Group g = group();
        topic.validateAgainst(config.group());
        final TopicConfig k = known.find(topic.name());
        if (k != null)
        {
            if (!k.equals(topic))
            {
                throw new IllegalStateException("topic " + topic.name() + " exists with another description: " + k);
            }
            return new Topic<>(k, codec);
        }
        final String clash = known.numberTaken(topic);
        if (clash != null)
        {
            throw new IllegalStateException(clash + "; choose another for " + topic.name());
        }
        g.addSubgroup(topic.subgroup(), RuntimeTopics.encode(topic), timeout);
        final String why = known.refusal(topic.name());
        if (why != null)
        {
            throw new IllegalStateException("topic " + topic.name() + " is refused: " + why);
        }
        return topic(topic.name(), codec);
    }

    /**
     * Deletes a topic created at run time, at every member at once: the group removes its subgroup in a view change
     * ({@link Group#removeSubgroup}); samples written before it are delivered everywhere, in order, and then every
     * member's readers of the topic end ({@link SampleListener#onTopicDeleted}, a queue reader's iteration ends after
     * the samples waiting, a {@link SamplePublisher}'s subscribers complete) and its writers fail. A logged topic's
     * log is kept, moved to {@code <log-directory>/<group>/member-<id>.deleted/<topic>-<incarnation>}. The name may
     * be used again by {@link #createTopic}. Returns once the topic is gone here.
     *
     * @throws IllegalStateException the topic is configured (weft.dds.topics), runtime topics are off, or the
     *                               participant is not enabled.
     * @throws IllegalArgumentException no such topic.
     * @throws java.util.concurrent.TimeoutException not deleted within {@code timeout}.
     */
    public void deleteTopic(final Topic<?> topic, final java.time.Duration timeout)
        throws java.util.concurrent.TimeoutException, InterruptedException
    {
        checkNotEnded();
        final Group g = group();
        if (known.configured(topic.name()))
        {
            throw new IllegalStateException("topic " + topic.name() + " is configured (weft.dds.topics); only " +
                "topics created at run time can be deleted");
        }
        if (!known.created(topic.name()))
        {
            throw new IllegalArgumentException("no topic " + topic.name() + " was created at run time" +
                (known.deleted(topic.name()) ? " (it was deleted already)" : ""));
        }
        g.removeSubgroup(topic.config().subgroupName(), timeout);
    }

    /**
     * A writer of {@code topic}.
     *
     * @throws IllegalStateException this member is not one of the topic's publishers.
     */
    public <T> DataWriter<T> createWriter(final Topic<T> topic)
    {
        checkNotEnded();
        final TopicConfig t = topic.config();
        if (!t.publisherIds(config.group()).contains(config.memberId()))
        {
            throw new IllegalStateException("member " + config.memberId() + " is not a publisher of " + topic +
                ": its publishers are " + t.publisherIds(config.group()) + " (weft.dds.topics)");
        }
        return new DataWriter<>(topic, state(topic), () -> group().subgroup(t.subgroupName()), written.get(t.name()),
            () -> group().invokerHere());
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
        final DataReader<T> reader = new DataReader<>(topic, state, listener, capacity, this::invokerHere);
        state.addReader(reader);
        return reader;
    }

    private TopicState readable(final Topic<?> topic)
    {
        checkNotEnded(); // a reader added after the end would wait for samples that cannot come
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

    /**
     * {@return the group under the domain} For its views, metrics and other subgroups.
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

    static Path logRoot(final WeftConfig config)
    {
        return config.dds().logDirectory().resolve(config.group().name()).resolve("member-" + config.memberId());
    }

    /**
     * The end of a run: once this member's own samples are delivered, waits up to {@code timeout} until every other
     * member of the view finished too (still delivering meanwhile), then closes. See {@link Group#finish}.
     *
     * @return false if the others did not all finish in time, or some of this member's samples were not delivered.
     */
    public boolean finish(final java.time.Duration timeout) throws InterruptedException
    {
        final boolean all = group().finish(timeout);
        close();
        return all;
    }

    /**
     * Leaves the group gracefully (see {@link Group#leave}): this member's samples written before are delivered, the
     * others go on without it and do not count it as failed, the same id may join again; then closes, its logs
     * drained. Writes of other threads are refused from the call on.
     *
     * @return false if the leave did not end within {@code timeout} (the member then left abruptly).
     */
    public boolean leave(final java.time.Duration timeout) throws InterruptedException
    {
        final boolean left = group().leave(timeout);
        close();
        return left;
    }

    /**
     * Leaves abruptly (see {@link Group#close}) and closes the topics' stores. The group's and the topics' meters leave
     * the registry, so that a participant created again with the registry counts in meters of its own.
     */
    @Override
    public void close()
    {
        final Group g = group;
        if (g != null)
        {
            g.close(); // tells ended() why, after the last delivery here
            metered.values().forEach(this::unregister);
            metered.clear();
        }
        ended("the participant of member " + config.memberId() + " was closed"); // not enabled, or told already
        synchronized (states)
        {
            states.values().forEach(TopicState::close);
        }
    }

    /**
     * The participant ended, the first reason wins: the group ended (closed, finished, left, stopped; after its last
     * delivery here), or it was closed before it was enabled. Its readers end and no entity is created after this.
     */
    private void ended(final String why)
    {
        final String first;
        synchronized (states)
        {
            if (ended == null)
            {
                ended = why;
            }
            first = ended;
        }
        topicStates().forEach(s -> s.participantEnded(first));
    }

    /** The invoker a wait on this thread must run ({@link Group#invokerHere}); none before the group is enabled. */
    private io.weft.predicates.PassInvoker invokerHere()
    {
        final Group g = group; // a reader may be waited on before enable: its samples come once the group runs
        return g == null ? null : g.invokerHere();
    }

    /** True once this member's group stopped (minority partition, removed as failed, an error), not closed or left. */
    boolean stopped()
    {
        final Group g = group;
        return g != null && g.minorityReason() != null;
    }

    private void checkNotEnded()
    {
        final String why = ended;
        if (why != null)
        {
            throw new IllegalStateException("the participant of member " + config.memberId() + " has ended: " + why);
        }
    }

    /** A topic's meters leave the registry; none (null) when it has none, as before the participant is enabled. */
    private void unregister(final List<Meter> meters)
    {
        if (meters != null)
        {
            meters.forEach(group().meterRegistry()::remove);
        }
    }

    /** {@return the topics this member takes part in} The configured ones, then those created at run time. */
    public List<String> topics()
    {
        synchronized (states)
        {
            return List.copyOf(states.keySet());
        }
    }
}

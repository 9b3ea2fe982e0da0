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
    private final ParticipantTopics topics;
    private volatile Group group;
    private volatile String ended; // why this participant ended (closed, left, its group stopped); null while it runs

    DomainParticipant(final WeftConfig config, final GroupBuilder builder, final Map<String, TopicState> states)
    {
        this.config = config;
        this.builder = builder.onEnd(this::ended);
        this.topics = new ParticipantTopics(config, states);
    }

    /**
     * Opens the group (as a member of view 0) or joins it, after which writers may write. Readers created before
     * receive every sample from the first on. A member of view 0 returns once the members' logs agree; one whose
     * logs are shorter than others' first fetches what they lack, and its readers receive those entries too
     * ({@link ParticipantBuilder#open}).
     *
     * @param join true: join the running group as a member outside view 0 ({@link GroupBuilder#join()}); false: open
     *             view 0 with the other members of {@code weft.membership.initial-view} ({@link GroupBuilder#open()}).
     * @return this participant, now in the group.
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
            ViewZeroLogs.agree(group, topics.list(), config);
        }
        return this;
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
        synchronized (topics.states)
        {
            topics.states.forEach((name, state) ->
            {
                if (!state.attached())
                {
                    state.attach(g.subgroup(state.config.subgroupName()), viewZero, this::stopAfterLogFailure);
                }
                topics.metered.computeIfAbsent(name,
                    n -> TopicMeters.register(g.meterRegistry(), config.memberId(), n, state, topics.written.get(n)));
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
        synchronized (topics.states)
        {
            topics.states.values().forEach(TopicState::viewChanged);
        }
    }

    /** A subgroup was added at run time: {@link ParticipantTopics#added}. */
    BatchHandler topicAdded(final SubgroupConfig sg, final String properties)
    {
        return topics.added(sg, properties);
    }

    /** A subgroup was removed at run time: {@link ParticipantTopics#removed}. */
    void topicRemoved(final String subgroup)
    {
        topics.removed(subgroup, this::unregister);
    }

    /**
     * {@return a participant that is a member of view 0, enabled (see {@link GroupBuilder#open})}
     *
     * @param config this member's configuration: its id, the group, the topics of {@code weft.dds.topics}.
     */
    public static DomainParticipant open(final WeftConfig config)
    {
        return builder(config).open();
    }

    /**
     * {@return a participant that joins a running domain, receiving the stored topics' state first (see
     * {@link GroupBuilder#join})}
     *
     * @param config this member's configuration: its id, the group, the topics of {@code weft.dds.topics}.
     */
    public static DomainParticipant join(final WeftConfig config)
    {
        return builder(config).join();
    }

    /**
     * {@return a builder for this process's participant in the domain (and group) {@code config} describes}
     *
     * @param config this member's configuration: its id, the group, the topics of {@code weft.dds.topics}.
     */
    public static ParticipantBuilder builder(final WeftConfig config)
    {
        return new ParticipantBuilder(config);
    }

    /**
     * {@return the topic named {@code name}, declared in the configuration or created at run time}
     *
     * @param name  the topic's name.
     * @param codec how its samples are encoded and decoded.
     * @param <T>   the type of its samples.
     * @throws IllegalArgumentException no topic of that name is known here.
     */
    public <T> Topic<T> topic(final String name, final Codec<T> codec)
    {
        checkNotEnded();
        final TopicConfig t = topics.known.find(name);
        if (t == null)
        {
            throw topics.known.unknown(name);
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
     * @param topic   the topic's description: name, number, QoS level, publishers and subscribers.
     * @param codec   how its samples are encoded and decoded.
     * @param timeout how long to wait for the view change that creates it.
     * @param <T>     the type of its samples.
     * @return the topic, usable here once the call returns.
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
        final TopicConfig k = topics.known.find(topic.name());
        if (k != null)
        {
            if (!k.equals(topic))
            {
                throw new IllegalStateException("topic " + topic.name() + " exists with another description: " + k);
            }
            return new Topic<>(k, codec);
        }
        final String clash = topics.known.numberTaken(topic);
        if (clash != null)
        {
            throw new IllegalStateException(clash + "; choose another for " + topic.name());
        }
        g.addSubgroup(topic.subgroup(), RuntimeTopics.encode(topic), timeout);
        final String why = topics.known.refusal(topic.name());
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
     * @param topic   the topic, created at run time.
     * @param timeout how long to wait for the view change that deletes it.
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
        if (topics.known.configured(topic.name()))
        {
            throw new IllegalStateException("topic " + topic.name() + " is configured (weft.dds.topics); only " +
                "topics created at run time can be deleted");
        }
        if (!topics.known.created(topic.name()))
        {
            throw new IllegalArgumentException("no topic " + topic.name() + " was created at run time" +
                (topics.known.deleted(topic.name()) ? " (it was deleted already)" : ""));
        }
        g.removeSubgroup(topic.config().subgroupName(), timeout);
    }

    /**
     * {@return a writer of {@code topic}}
     *
     * @param topic the topic to write.
     * @param <T>   the type of its samples.
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
        return new DataWriter<>(topic, topics.state(topic), () -> group().subgroup(t.subgroupName()),
            topics.written.get(t.name()), () -> group().invokerHere());
    }

    /**
     * {@return a reader of {@code topic} with a queue of 4096 samples for {@link DataReader#take}}
     *
     * @param topic the topic to read.
     * @param <T>   the type of its samples.
     */
    public <T> DataReader<T> createReader(final Topic<T> topic)
    {
        return createReader(topic, null, 4096);
    }

    /**
     * {@return a reader of {@code topic} whose listener is told of every sample on the delivery thread}
     *
     * @param topic    the topic to read.
     * @param listener told of each sample, and of the topic's deletion and the participant's end.
     * @param <T>      the type of its samples.
     */
    public <T> DataReader<T> createReader(final Topic<T> topic, final SampleListener<T> listener)
    {
        return createReader(topic, Objects.requireNonNull(listener, "listener"), 1);
    }

    /**
     * {@return a reader of {@code topic} with a queue of {@code capacity} samples (the oldest dropped when full)}
     *
     * @param topic    the topic to read.
     * @param capacity the samples its queue holds, at least 1.
     * @param <T>      the type of its samples.
     */
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
     *
     * @param topic    the topic to read.
     * @param listener told of each sample's header and bytes, valid only during the call.
     * @return the reader, to close when done.
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
     * @param topic a logged topic this member takes part in.
     * @return the count of samples every member of the view has in its log.
     * @throws IllegalStateException the topic is not logged, or the participant is not enabled, or its group stopped.
     */
    public long durabilityFrontier(final Topic<?> topic)
    {
        if (topic.qos() != QosLevel.LOGGED_STORAGE)
        {
            throw new IllegalStateException(topic + " is not logged: it has no durability frontier");
        }
        group(); // enabled, or a clear error
        return Math.max(0, topics.state(topic).persistedFrontier());
    }

    /**
     * The samples of {@code topic} as a {@link java.util.concurrent.Flow.Publisher}: subscribers are signalled on the
     * common fork-join pool, each with a buffer of {@link java.util.concurrent.Flow#defaultBufferSize()} samples.
     *
     * @param topic the topic to read.
     * @param <T>   the type of its samples.
     * @return the publisher; each subscriber is a reader of its own.
     */
    public <T> SamplePublisher<T> createPublisher(final Topic<T> topic)
    {
        return createPublisher(topic, java.util.concurrent.ForkJoinPool.commonPool(),
            java.util.concurrent.Flow.defaultBufferSize());
    }

    /**
     * {@return the samples of {@code topic} as a publisher whose subscribers are signalled on {@code executor}}
     *
     * @param topic    the topic to read.
     * @param executor runs the signals to subscribers.
     * @param capacity the samples buffered for each subscriber.
     * @param <T>      the type of its samples.
     */
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
        return topics.state(topic);
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

    /**
     * {@return where this member keeps the log of {@code topic} (logged storage)}
     *
     * @param config this member's configuration (its id, group and {@code weft.dds.log-directory}).
     * @param topic  the topic's name.
     */
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
     * @param timeout how long to wait for the other members to finish.
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
     * @param timeout how long to wait for the view without this member.
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
            topics.metered.values().forEach(this::unregister);
            topics.metered.clear();
        }
        ended("the participant of member " + config.memberId() + " was closed"); // not enabled, or told already
        synchronized (topics.states)
        {
            topics.states.values().forEach(TopicState::close);
        }
    }

    /**
     * The participant ended, the first reason wins: the group ended (closed, finished, left, stopped; after its last
     * delivery here), or it was closed before it was enabled. Its readers end and no entity is created after this.
     */
    private void ended(final String why)
    {
        final String first;
        synchronized (topics.states)
        {
            if (ended == null)
            {
                ended = why;
            }
            first = ended;
        }
        topics.list().forEach(s -> s.participantEnded(first));
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
        return topics.names();
    }
}

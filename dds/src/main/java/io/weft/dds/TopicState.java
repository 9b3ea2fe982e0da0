package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.membership.Subgroup;
import io.weft.smc.CallbackFailures;
import io.weft.smc.Message;
import io.weft.smc.MessageBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What one member does with one topic's deliveries: counts positions, keeps the history (volatile storage), copies
 * each sample to the topic's {@link LogWriter}, whose thread appends it and publishes the persisted count (logged
 * storage), and hands samples to the readers. Deliveries come
 * on the delivery thread (the membership thread for a view change's trim); readers are added by application
 * threads; both under this object's monitor, so a new reader sees the stored samples and then every later one,
 * none twice.
 */
final class TopicState
{
    private static final Logger LOG = LoggerFactory.getLogger(TopicState.class);
    /** Log entries a joiner's install appends at a time under the append lock, then hands to its readers. */
    private static final int INSTALL_BATCH = 256;

    final TopicConfig config;
    private final int me;
    private final History history;
    private final LogWriter writer;
    // copied on change (rare), read per sample: an array, so that the loop over it allocates no iterator
    private volatile ReaderSink[] readers = new ReaderSink[0];
    private final SampleHeader live = new SampleHeader(); // refilled per live sample, under this monitor
    private final CallbackFailures listenerFailures = new CallbackFailures(LOG);
    private final CallbackFailures decodeFailures = new CallbackFailures(LOG);
    private volatile Subgroup subgroup;
    private volatile Consumer<String> stopMember; // set with the subgroup, before the log thread starts
    private volatile String failure;
    private volatile boolean deleted;
    private String ended; // why the participant ended, guarded by this: no reader is added after it
    private long position;
    private volatile long delivered;
    private volatile long ownDelivered;
    private volatile long ownEnd;
    private final java.util.concurrent.atomic.AtomicLong frontier = new java.util.concurrent.atomic.AtomicLong(-1);

    TopicState(final TopicConfig config, final int me, final SampleLog log)
    {
        this.config = config;
        this.me = me;
        this.history = config.qos() == QosLevel.VOLATILE_STORAGE ? new History(config.history(), config.key()) : null;
        this.writer = log == null ? null : new LogWriter(log, config.name(), config.maxSample(), this::fail);
        this.position = log == null ? 0 : log.count();
    }

    boolean attached()
    {
        return subgroup != null;
    }

    /**
     * Attaches the topic to its subgroup. {@code viewZero}: this member opened view 0, and its log's size must match
     * the other members' before it publishes counts ({@link ViewZeroLogs}).
     */
    void attach(final Subgroup subgroup, final boolean viewZero, final Consumer<String> stopMember)
    {
        this.subgroup = subgroup;
        this.stopMember = stopMember;
        if (writer != null)
        {
            writer.start(subgroup, viewZero); // a restarted or joining member first counts what its log holds
        }
    }

    Subgroup subgroup()
    {
        return subgroup;
    }

    /** The log's size this member announced to view 0's other members, or -1: nothing to agree on. */
    long announcedLog()
    {
        return writer == null ? -1 : writer.sizeAtStart();
    }

    /** The log took what it lacked from another member of view 0: announce its new size. */
    void announceFetched()
    {
        writer.announceSize();
    }

    /** The members of view 0 with this topic hold logs of one size: announce the last entry's CRC to compare it. */
    void announceLastEntry()
    {
        writer.announceLast();
    }

    /** The members of view 0 hold the same log: counts are published from now on. */
    void logsAgreed()
    {
        writer.agreed();
    }

    /** A view was installed: a logged topic publishes its count in the new table. */
    void viewChanged()
    {
        if (writer != null)
        {
            writer.viewChanged();
        }
    }

    /** The log failed (log thread): nothing more is persisted here, and the member stops. */
    private void fail(final String why)
    {
        failure = why;
        LOG.error("topic {}: {}; this member's persisted count stops here", config.name(), why);
        stopMember.accept("its log of topic " + config.name() + " failed");
    }

    void onBatch(final MessageBatch batch)
    {
        synchronized (this)
        {
            if (writer != null)
            {
                writer.offer(batch); // appended and counted persisted by the topic's log thread
            }
            for (int i = 0; i < batch.size(); i++)
            {
                onMessage(batch.get(i));
            }
        }
    }

    private void onMessage(final Message m)
    {
        final long p = position++;
        if (history != null)
        {
            history.add(m.senderId(), p, m.timestampNanos(), m.segment(), m.offset(), m.length());
        }
        if (m.senderId() == me)
        {
            ownDelivered++;
            ownEnd = p + 1;
        }
        delivered = p + 1;
        final ReaderSink[] sinks = readers;
        if (sinks.length > 0)
        {
            final SampleHeader header = live.set(config.id(), m.senderId(), p, m.timestampNanos(), false);
            for (final ReaderSink r : sinks)
            {
                hand(r, m.segment(), m.offset(), m.length(), header);
            }
        }
    }

    /** Adds a reader after handing it what this member stores of the topic (history, or the whole log). */
    void addReader(final ReaderSink reader)
    {
        synchronized (this)
        {
            checkNotDeleted();
            if (ended != null)
            {
                throw new IllegalStateException("topic " + config.name() + ": the participant has ended: " + ended);
            }
            for (final LoggedSample s : stored())
            {
                reader.deliver(MemorySegment.ofArray(s.payload()), 0, s.payload().length,
                    new SampleHeader().set(config.id(), s.publisherId(), s.position(), s.sourceNanos(), true));
            }
            final ReaderSink[] more = java.util.Arrays.copyOf(readers, readers.length + 1);
            more[readers.length] = reader;
            readers = more;
        }
    }

    synchronized void removeReader(final ReaderSink reader)
    {
        readers = java.util.Arrays.stream(readers).filter(r -> r != reader).toArray(ReaderSink[]::new);
    }

    /** The stored samples, oldest first: the history, the log, or nothing. */
    List<LoggedSample> stored()
    {
        synchronized (this)
        {
            if (history != null)
            {
                return history.samples();
            }
            if (writer != null)
            {
                return writer.drained(l ->
                {
                    final List<LoggedSample> all = new java.util.ArrayList<>();
                    l.read(0, all::add);
                    return all;
                });
            }
            return List.of();
        }
    }

    /**
     * What this member's log holds, for a join request: its entry count and the CRC of its last entry; null for a
     * topic without a log.
     */
    long[] logHeld()
    {
        if (writer == null)
        {
            return null;
        }
        return writer.drained(SampleLog::held);
    }

    /**
     * This topic as a joiner gets it, cut at the view boundary on the membership thread: the next position, a copy
     * of the history, or how far the log reaches (its entries are read later, beside the appends that go on).
     *
     * @param held what the joiner's log holds ({@code count, crc} of its last entry), or null.
     */
    record Cut(TopicState topic, long position, List<LoggedSample> history, long logCount, long[] held)
    {
        /** The first log position to send: after the joiner's entries if its log is a prefix of this one, else 0. */
        long logFrom()
        {
            if (topic.writer == null || held == null || held[0] <= 0 || held[0] > logCount)
            {
                return 0;
            }
            final int[] crc = new int[1];
            topic.writer.read(held[0] - 1, held[0], e -> crc[0] = e.crc());
            return crc[0] == (int)held[1] ? held[0] : 0;
        }

        /** Reads the log's entries {@code from} on to the cut; throws if the log ends before it. */
        void readLog(final long from, final Consumer<LoggedSample> consumer)
        {
            if (topic.writer == null)
            {
                return; // not a logged topic: nothing stored
            }
            final long end = topic.writer.read(from, logCount, consumer);
            if (end != logCount)
            {
                throw new IllegalStateException("topic " + topic.config.name() + ": the log ends at " + end +
                    ", before the " + logCount + " entries of the cut");
            }
        }
    }

    Cut cut(final long[] held)
    {
        synchronized (this)
        {
            return new Cut(this, position, history != null ? history.samples() : null,
                writer != null ? writer.drained(SampleLog::count) : 0, held);
        }
    }

    /** Where a joiner's install reads the donor's samples, one at a time. */
    interface SampleSource
    {
        LoggedSample next() throws IOException;
    }

    /** Next position at this member; the snapshot a joiner installs carries it. */
    long position()
    {
        synchronized (this)
        {
            return position;
        }
    }

    /**
     * Installs a donor's state (a joiner, before its first delivery): its position and its {@code count} stored
     * samples from {@code source}, the history, or the log entries from {@code from} on (0: the whole log, of which
     * this member's own log must be a prefix). Readers that exist already get the samples they have not seen. The
     * log takes the entries as they arrive, so that a large log is never whole in memory.
     */
    void install(final long donorPosition, final long from, final long count, final SampleSource source)
        throws IOException
    {
        synchronized (this)
        {
            if (writer != null)
            {
                installLog(from, count, source);
                writer.viewChanged(); // publish the new count
            }
            else
            {
                final List<LoggedSample> samples = new ArrayList<>(); // a history: bounded by its QoS
                for (long i = 0; i < count; i++)
                {
                    samples.add(source.next());
                }
                if (history != null)
                {
                    history.replace(samples);
                }
                samples.forEach(this::handToReaders);
            }
            position = donorPosition;
            delivered = donorPosition;
        }
    }

    private void installLog(final long from, final long count, final SampleSource source) throws IOException
    {
        final long mine = writer.drained(SampleLog::count);
        if (from > 0 && mine != from)
        {
            throw new IllegalStateException("topic " + config.name() + ": the log holds " + mine + " entries, but " +
                "the state was made for " + from);
        }
        final int[] crcs = from > 0 ? new int[0] : localCrcs(mine, count);
        final List<LoggedSample> batch = new ArrayList<>(INSTALL_BATCH);
        long i = 0;
        while (i < count)
        {
            batch.clear();
            while (i < count && batch.size() < INSTALL_BATCH)
            {
                final LoggedSample s = source.next();
                if (i < crcs.length && crcs[(int)i] != s.crc())
                {
                    throw new IllegalStateException("topic " + config.name() + ": entry " + i + " of the log in " +
                        writer.directory() + " differs from the group's: it is not this group's log");
                }
                if (i >= crcs.length)
                {
                    batch.add(s);
                }
                i++;
            }
            writer.drained(l ->
            {
                batch.forEach(l::append);
                return null;
            });
            batch.forEach(this::handToReaders); // outside the append lock: a reader may take its time
        }
        LOG.info("topic {}: state transfer brought {} log entries from position {}; the log holds {}",
            config.name(), count, from, from + count);
    }

    /** The CRCs of this member's own log, which must be a prefix of the group's {@code count} entries. */
    private int[] localCrcs(final long mine, final long count)
    {
        if (mine > count)
        {
            throw new IllegalStateException("topic " + config.name() + ": the log in " + writer.directory() +
                " holds " + mine + " samples, the group's only " + count + ": it is not this group's log (move it " +
                "away to join)");
        }
        final int[] crcs = new int[Math.toIntExact(mine)];
        writer.read(0, mine, e -> crcs[(int)e.position()] = e.crc());
        return crcs;
    }

    private void handToReaders(final LoggedSample s)
    {
        final SampleHeader header = new SampleHeader().set(config.id(), s.publisherId(), s.position(),
            s.sourceNanos(), true);
        for (final ReaderSink r : readers)
        {
            hand(r, MemorySegment.ofArray(s.payload()), 0, s.payload().length, header);
        }
    }

    /**
     * Hands a sample to one reader, whose listener is the application's: what it throws is counted and logged
     * ({@link CallbackFailures}), and the topic's own record of the sample (position, history, the other readers)
     * goes on as at every other member. It used to end the delivered batch at this member.
     */
    private void hand(final ReaderSink r, final MemorySegment segment, final long offset, final int length,
        final SampleHeader header)
    {
        try
        {
            r.deliver(segment, offset, length, header);
        }
        catch (final RuntimeException ex)
        {
            listenerFailures.failed(ex, "topic {}: a reader's listener failed on sample {} from member {}",
                config.name(), header.info().position(), header.info().publisherId());
        }
    }

    /**
     * A reader could not decode a sample and skipped it: counted, and logged at most once per 10 s (a publisher with
     * another codec or version fails every sample so; each was an ERROR line).
     */
    void decodeFailed(final RuntimeException ex, final SampleInfo info)
    {
        decodeFailures.failed(ex, "topic {}: a reader cannot decode sample {} from member {}, skipped: {}",
            config.name(), info.position(), info.publisherId(), ex.getMessage());
    }

    /** Samples that a reader here could not decode. */
    long decodeFailures()
    {
        return decodeFailures.count();
    }

    /** Reader listeners that threw here, on samples or on the topic's deletion. */
    long listenerFailures()
    {
        return listenerFailures.count();
    }

    long delivered()
    {
        return delivered;
    }

    /**
     * The durability frontier, never lower than before: a new view's table starts its persisted columns afresh and
     * they fill as members push their carried counts, while the true frontier only grows (a joiner's log holds the
     * donor's, and fewer members have a higher minimum).
     */
    long persistedFrontier()
    {
        final Subgroup s = subgroup;
        return s == null ? -1 : frontier.accumulateAndGet(s.persistedFrontier(), Math::max);
    }

    /**
     * The durability gauge: samples delivered here not yet in every member's log; NaN (a gauge's "no value") once the
     * group ended, which a sampler may read while the participant closes, before the gauge leaves the registry.
     */
    double durabilityLag()
    {
        try
        {
            return delivered() - Math.max(0, persistedFrontier());
        }
        catch (final IllegalStateException ended) // the group is closed, left or stopped: its table is gone
        {
            return Double.NaN;
        }
    }

    /** Position after this member's latest own sample delivered here, and how many own samples were delivered. */
    long ownEnd()
    {
        return ownEnd;
    }

    long ownDelivered()
    {
        return ownDelivered;
    }

    String failure()
    {
        return failure;
    }

    void close()
    {
        if (writer != null)
        {
            writer.close(); // drains the ring into the log first
        }
    }

    /**
     * The topic was deleted (membership thread, after its last delivery here): its readers are told and let go, the
     * log is closed, and writes fail from now on.
     */
    void delete()
    {
        synchronized (this)
        {
            deleted = true;
        }
        letReadersGo(ReaderSink::topicDeleted, "the topic's deletion");
        close();
    }

    /**
     * The participant ended (after its last delivery here, or before any): its readers are told and let go, and no
     * reader is added after this.
     */
    void participantEnded(final String why)
    {
        synchronized (this)
        {
            if (ended != null)
            {
                return;
            }
            ended = why;
        }
        letReadersGo(r -> r.participantEnded(why), "the participant's end");
    }

    private void letReadersGo(final Consumer<ReaderSink> tell, final String what)
    {
        final ReaderSink[] sinks;
        synchronized (this)
        {
            sinks = readers;
            readers = new ReaderSink[0];
        }
        for (final ReaderSink r : sinks)
        {
            try
            {
                tell.accept(r);
            }
            catch (final RuntimeException ex)
            {
                listenerFailures.failed(ex, "topic {}: a reader's listener failed on " + what, config.name());
            }
        }
    }

    void checkNotDeleted()
    {
        if (deleted)
        {
            throw new IllegalStateException("topic " + config.name() + " was deleted");
        }
    }
}

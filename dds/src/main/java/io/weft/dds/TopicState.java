package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.membership.Subgroup;
import io.weft.smc.Message;
import io.weft.smc.MessageBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

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

    final TopicConfig config;
    private final int me;
    private final History history;
    private final LogWriter writer;
    // copied on change (rare), read per sample: an array, so that the loop over it allocates no iterator
    private volatile ReaderSink[] readers = new ReaderSink[0];
    private final SampleHeader live = new SampleHeader(); // refilled per live sample, under this monitor
    private volatile Subgroup subgroup;
    private volatile String failure;
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

    void attach(final Subgroup subgroup)
    {
        this.subgroup = subgroup;
        if (writer != null)
        {
            writer.start(subgroup); // a restarted or joining member first counts what its log holds
        }
    }

    /** A view was installed: a logged topic publishes its count in the new table. */
    void viewChanged()
    {
        if (writer != null)
        {
            writer.viewChanged();
        }
    }

    private void fail(final String why)
    {
        failure = why;
        LOG.error("topic {}: {}; this member's persisted count stops here", config.name(), why);
    }

    void onBatch(final MessageBatch batch)
    {
        synchronized (this)
        {
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
        if (writer != null)
        {
            writer.offer(m); // appended and counted persisted by the topic's log thread
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
                r.deliver(m.segment(), m.offset(), m.length(), header);
            }
        }
    }

    /** Adds a reader after handing it what this member stores of the topic (history, or the whole log). */
    void addReader(final ReaderSink reader)
    {
        synchronized (this)
        {
            for (final LoggedSample s : stored())
            {
                reader.deliver(java.lang.foreign.MemorySegment.ofArray(s.payload()), 0, s.payload().length,
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
     * The log entries a joiner lacks, if its log is a prefix of this one: from its {@code count} on, when this log's
     * entry {@code count - 1} has the CRC it holds; null otherwise (it gets the whole log, and its check decides).
     */
    List<LoggedSample> logAfter(final long count, final int lastCrc)
    {
        synchronized (this)
        {
            if (writer == null || count <= 0)
            {
                return null;
            }
            return writer.drained(l ->
            {
                if (count > l.count())
                {
                    return null;
                }
                final List<LoggedSample> from = new java.util.ArrayList<>();
                l.read(count - 1, from::add);
                return from.getFirst().crc() == lastCrc ? from.subList(1, from.size()) : null;
            });
        }
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
     * Installs a donor's state: its position and stored samples (a joiner, before its first delivery). Readers that
     * exist already get the stored samples they have not seen (all of the history; the log past what this member's
     * own log held).
     */
    void install(final long donorPosition, final List<LoggedSample> samples, final long from)
    {
        synchronized (this)
        {
            int fresh = 0;
            if (history != null)
            {
                history.replace(samples);
            }
            if (writer != null)
            {
                fresh = writer.drained(l -> from > 0 ? appendAfter(l, samples, from) : appendMissing(l, samples));
                writer.viewChanged(); // publish the new count
                LOG.info("topic {}: state transfer brought {} log entries from position {}; the log holds {}",
                    config.name(), samples.size(), from, from + samples.size());
            }
            position = donorPosition;
            delivered = donorPosition;
            for (final LoggedSample s : samples.subList(fresh, samples.size()))
            {
                final SampleHeader header = new SampleHeader().set(config.id(), s.publisherId(), s.position(),
                    s.sourceNanos(), true);
                for (final ReaderSink r : readers)
                {
                    r.deliver(java.lang.foreign.MemorySegment.ofArray(s.payload()), 0, s.payload().length, header);
                }
            }
        }
    }

    /** The donor sent the entries after the {@code from} this member's log held when it asked: appends them. */
    private int appendAfter(final SampleLog l, final List<LoggedSample> samples, final long from)
    {
        if (l.count() != from)
        {
            throw new IllegalStateException("topic " + config.name() + ": the log in " + l.directory() + " holds " +
                l.count() + " entries, but the state was made for " + from);
        }
        samples.forEach(l::append);
        return 0; // every entry received is new here
    }

    /** A joiner's log must be a prefix of the group's: appends what it lacks; returns how many it held. */
    private int appendMissing(final SampleLog l, final List<LoggedSample> samples)
    {
        final List<LoggedSample> local = new java.util.ArrayList<>();
        l.read(0, local::add);
        final int mine = local.size();
        if (mine > samples.size())
        {
            throw new IllegalStateException("topic " + config.name() + ": the log in " + l.directory() + " holds " +
                mine + " samples, the group's only " + samples.size() + ": it is not this group's log (move it " +
                "away to join)");
        }
        for (int i = 0; i < mine; i++)
        {
            if (local.get(i).crc() != samples.get(i).crc())
            {
                throw new IllegalStateException("topic " + config.name() + ": entry " + i + " of the log in " +
                    l.directory() + " differs from the group's: it is not this group's log");
            }
        }
        for (int i = mine; i < samples.size(); i++)
        {
            l.append(samples.get(i));
        }
        return mine;
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
}

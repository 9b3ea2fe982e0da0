package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.membership.Subgroup;
import io.weft.smc.Message;
import io.weft.smc.MessageBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What one member does with one topic's deliveries: counts positions, keeps the history (volatile storage), appends
 * to the log and publishes the persisted count (logged storage), and hands samples to the readers. Deliveries come
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
    private final SampleLog log;
    private final List<ReaderSink> readers = new CopyOnWriteArrayList<>();
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
        this.log = log;
        this.position = log == null ? 0 : log.count();
    }

    void attach(final Subgroup subgroup)
    {
        this.subgroup = subgroup;
        if (log != null)
        {
            subgroup.markPersisted(log.count()); // a restarted or joining member counts what its log holds
        }
    }

    void onBatch(final MessageBatch batch)
    {
        synchronized (this)
        {
            for (int i = 0; i < batch.size(); i++)
            {
                onMessage(batch.get(i));
            }
            final Subgroup s = subgroup;
            if (log != null && failure == null && s != null)
            {
                s.markPersisted(log.count());
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
        if (log != null && failure == null)
        {
            try
            {
                log.append(m.senderId(), m.timestampNanos(), m.segment(), m.offset(), m.length());
            }
            catch (final RuntimeException ex)
            {
                failure = "appending sample " + p + " to " + log.directory() + " failed: " + ex;
                LOG.error("topic {}: {}; this member's persisted count stops here", config.name(), failure, ex);
            }
        }
        if (m.senderId() == me)
        {
            ownDelivered++;
            ownEnd = p + 1;
        }
        delivered = p + 1;
        if (!readers.isEmpty())
        {
            final SampleInfo info = new SampleInfo(config.id(), m.senderId(), p, m.timestampNanos(), false);
            for (final ReaderSink r : readers)
            {
                r.deliver(m.segment(), m.offset(), m.length(), info);
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
                    new SampleInfo(config.id(), s.publisherId(), s.position(), s.sourceNanos(), true));
            }
            readers.add(reader);
        }
    }

    void removeReader(final ReaderSink reader)
    {
        readers.remove(reader);
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
            if (log != null)
            {
                final List<LoggedSample> all = new java.util.ArrayList<>();
                log.read(0, all::add);
                return all;
            }
            return List.of();
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
    void install(final long donorPosition, final List<LoggedSample> samples)
    {
        synchronized (this)
        {
            int fresh = 0;
            if (history != null)
            {
                history.replace(samples);
            }
            if (log != null)
            {
                final List<LoggedSample> local = new java.util.ArrayList<>();
                log.read(0, local::add);
                final long mine = local.size();
                if (mine > samples.size())
                {
                    throw new IllegalStateException("topic " + config.name() + ": the log in " + log.directory() +
                        " holds " + mine + " samples, the group's only " + samples.size() + ": it is not this " +
                        "group's log (move it away to join)");
                }
                for (int i = 0; i < mine; i++)
                {
                    if (local.get(i).crc() != samples.get(i).crc())
                    {
                        throw new IllegalStateException("topic " + config.name() + ": entry " + i + " of the log in " +
                            log.directory() + " differs from the group's: it is not this group's log");
                    }
                }
                for (int i = (int)mine; i < samples.size(); i++)
                {
                    log.append(samples.get(i));
                }
                fresh = (int)mine;
            }
            position = donorPosition;
            delivered = donorPosition;
            for (final LoggedSample s : samples.subList(fresh, samples.size()))
            {
                final SampleInfo info = new SampleInfo(config.id(), s.publisherId(), s.position(), s.sourceNanos(), true);
                for (final ReaderSink r : readers)
                {
                    r.deliver(java.lang.foreign.MemorySegment.ofArray(s.payload()), 0, s.payload().length, info);
                }
            }
        }
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
        if (log != null)
        {
            log.close();
        }
    }
}

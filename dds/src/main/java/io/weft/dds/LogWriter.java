package io.weft.dds;

import io.weft.membership.Subgroup;
import io.weft.smc.Message;
import io.weft.smc.MessageBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOError;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The persistence thread of one logged topic (Derecho persists on a thread of its own too). The delivery thread
 * copies each delivered sample into a bounded ring and goes on; this thread appends the samples to the
 * {@link SampleLog} in delivery order and, after each run of appends returned, publishes the log's count in the
 * topic's {@code persisted} column. It is that column's only writer, so the durability frontier never passes what
 * is in every member's log, and the protocol thread no longer waits on the page faults of the mapped log file.
 * A full ring makes the delivery thread wait: memory stays bounded and a slow disk slows the topic down. An append
 * that fails (a full disk faults a write to the mapped file with an {@link InternalError}) is reported once; from
 * then on the thread empties the ring without writing or publishing, so the delivery thread never waits on it.
 *
 * <p>Every other use of the log (the state handed to a joiner, a joiner's install, close) first waits until the
 * ring is drained, and holds the append lock.
 */
final class LogWriter
{
    private static final Logger LOG = LoggerFactory.getLogger(LogWriter.class);
    /** Ring memory aimed at per topic; at least 16 and at most 4096 samples whatever the sample size. */
    private static final int RING_BYTES = 8 << 20;

    private final SampleLog log;
    private final String topic;
    private final Consumer<String> onFailure;
    private final int capacity;
    private final byte[][] payloads;
    private final int[] lengths;
    private final int[] publishers;
    private final long[] nanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition space = lock.newCondition();
    private final ReentrantLock appendLock = new ReentrantLock();
    private final Thread thread;
    private long offered; // guarded by lock
    private long taken;   // guarded by lock: entries the thread has taken and appended
    private boolean republish; // guarded by lock: a new view needs this member's count
    private boolean closing;   // guarded by lock
    private volatile Subgroup subgroup;
    /** The log's size at a view-0 start, or -1: nothing announced (a joiner, or agreed). */
    private volatile long sizeAtStart = -1;
    /** The announcement published instead of the count ({@link ViewZeroLogs}'s marks), or -1: the count. */
    private volatile long mark = -1;
    private volatile boolean failed;

    LogWriter(final SampleLog log, final String topic, final int maxSample, final Consumer<String> onFailure)
    {
        this.log = log;
        this.topic = topic;
        this.onFailure = onFailure;
        this.capacity = Math.max(16, Math.min(4096, RING_BYTES / Math.max(1, maxSample)));
        this.payloads = new byte[capacity][];
        this.lengths = new int[capacity];
        this.publishers = new int[capacity];
        this.nanos = new long[capacity];
        this.thread = Thread.ofPlatform().daemon(true).name("weft-log-" + topic).unstarted(this::run);
    }

    /**
     * Starts persisting for {@code subgroup}: its first act is to publish what the log holds; with {@code announce}
     * (a member of view 0, the whole group started again) it publishes the log's size at start as an announcement,
     * which marks no count, until {@link #agreed} ({@link ViewZeroLogs}).
     */
    void start(final Subgroup subgroup, final boolean announce)
    {
        this.subgroup = subgroup;
        sizeAtStart = announce ? log.count() : -1;
        mark = announce ? LogAnnouncement.size(sizeAtStart) : -1;
        viewChanged();
        if (thread.getState() == Thread.State.NEW)
        {
            thread.start();
        }
    }

    /** The log's size at a view-0 start, or -1 (a joiner, or agreed). */
    long sizeAtStart()
    {
        return sizeAtStart;
    }

    /** The log took entries fetched from another member of view 0: announce its new size. */
    void announceSize()
    {
        mark = LogAnnouncement.size(drained(SampleLog::count));
        viewChanged();
    }

    /** Every member of view 0 holds as many entries: announce the CRC of the last entry instead, to compare it. */
    void announceLast()
    {
        mark = LogAnnouncement.lastEntry((int)drained(SampleLog::held)[1]); // after what a fetch appended
        viewChanged();
    }

    /** The members of view 0 hold the same log: publish counts from now on. */
    void agreed()
    {
        sizeAtStart = -1;
        mark = -1;
        viewChanged();
    }

    /** A new view opened: its table needs this member's count again (published from this thread only). */
    void viewChanged()
    {
        lock.lock();
        try
        {
            republish = true;
            work.signal();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Copies a delivered batch into the ring in order, waiting while the ring is full (delivery thread). One lock for
     * the batch: per sample, its release was a seventh of the delivery thread's time (async-profiler, shm, 1 KiB).
     * The log thread is signalled every time this thread lets go of the lock with samples in the ring (waiting for
     * space, and at the end): it may have emptied the ring and gone to sleep meanwhile, even if it was busy when the
     * batch began (a signal only then stranded the end of a burst in the ring until more samples came).
     */
    void offer(final MessageBatch batch)
    {
        if (failed)
        {
            return;
        }
        lock.lock();
        try
        {
            for (int k = 0; k < batch.size(); k++)
            {
                while (offered - taken == capacity && !closing)
                {
                    work.signal(); // the thread takes what this batch offered so far, then makes space
                    space.awaitUninterruptibly();
                }
                if (closing)
                {
                    return; // closed meanwhile: nothing is delivered to a closed participant
                }
                copy(batch.get(k));
            }
            if (offered > taken)
            {
                work.signal(); // no waiter: a read of the condition's queue
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Under the lock, with space in the ring: the sample at {@code offered}. */
    private void copy(final Message m)
    {
        final int i = (int)(offered % capacity);
        final int length = m.length();
        if (payloads[i] == null || payloads[i].length < length)
        {
            payloads[i] = new byte[length];
        }
        MemorySegment.copy(m.segment(), ValueLayout.JAVA_BYTE, m.offset(), payloads[i], 0, length);
        lengths[i] = length;
        publishers[i] = m.senderId();
        nanos[i] = m.timestampNanos();
        offered++;
    }

    private void run()
    {
        while (true)
        {
            final long from;
            final long to;
            final boolean publish;
            lock.lock();
            try
            {
                while (offered == taken && !republish && !closing)
                {
                    work.awaitUninterruptibly();
                }
                if (closing && offered == taken)
                {
                    return;
                }
                from = taken;
                to = offered;
                publish = republish || to > from;
                republish = false;
            }
            finally
            {
                lock.unlock();
            }
            String failure = null;
            appendLock.lock();
            try
            {
                if (!failed && to > from)
                {
                    try
                    {
                        log.appendRun(publishers, nanos, payloads, lengths, from, to);
                    }
                    catch (final RuntimeException | Error ex) // a full disk faults a write to the mapped file
                    {
                        failed = true; // from now on the ring is emptied unwritten: the delivery thread never waits
                        failure = failure(from, ex);
                    }
                }
            }
            finally
            {
                appendLock.unlock();
            }
            if (failure != null)
            {
                onFailure.accept(failure);
            }
            lock.lock();
            try
            {
                taken = to; // the slots are free once appended
                space.signalAll();
            }
            finally
            {
                lock.unlock();
            }
            if (publish && !failed)
            {
                publish();
            }
        }
    }

    /** Why appending the samples delivered from {@code first} on failed (the log's own error names the space left). */
    private String failure(final long first, final Throwable ex)
    {
        return ex instanceof IOError && ex.getCause() != null ? ex.getCause().getMessage() :
            "appending the samples from position " + first + " on to " + log.directory() + " failed: " + ex;
    }

    private void publish()
    {
        try
        {
            final long announcement = mark; // read once: each value published is one whole announcement
            subgroup.markPersisted(announcement != -1 ? announcement : log.count());
        }
        catch (final IllegalStateException ex)
        {
            LOG.debug("topic {}: persisted count not published: {}", topic, ex.getMessage()); // the group stopped
        }
    }

    java.nio.file.Path directory()
    {
        return log.directory();
    }

    /**
     * Reads the log's entries {@code from} to {@code to} (exclusive), without the append lock: a reader beside the
     * appending thread (a joiner's state being written); returns the position after the last entry read.
     */
    long read(final long from, final long to, final Consumer<LoggedSample> consumer)
    {
        return log.read(from, to, consumer);
    }

    /** Waits until everything offered is in the log, then runs {@code action} on the log under the append lock. */
    <R> R drained(final java.util.function.Function<SampleLog, R> action)
    {
        lock.lock();
        try
        {
            while (taken != offered && !failed)
            {
                space.awaitUninterruptibly();
            }
        }
        finally
        {
            lock.unlock();
        }
        appendLock.lock();
        try
        {
            return action.apply(log);
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /** Drains the ring, stops the thread and closes the log. */
    void close()
    {
        lock.lock();
        try
        {
            closing = true;
            work.signal();
            space.signalAll();
        }
        finally
        {
            lock.unlock();
        }
        if (thread.isAlive() && Thread.currentThread() != thread)
        {
            try
            {
                thread.join(10_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        appendLock.lock();
        try
        {
            log.close();
        }
        finally
        {
            appendLock.unlock();
        }
    }
}

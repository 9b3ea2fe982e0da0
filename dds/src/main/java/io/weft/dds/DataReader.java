package io.weft.dds;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads a topic: a listener told of every sample on the delivery thread, or a bounded queue that application threads
 * {@link #take} from (KEEP_LAST: when the queue is full the oldest sample is dropped and counted). A reader of a
 * storage topic first receives what this member stores (the volatile history, or the whole log), then every sample
 * delivered after, in order, none twice.
 *
 * <pre>{@code
 * DataReader<String> reader = participant.createReader(alerts);
 * Sample<String> s = reader.take(Duration.ofSeconds(1));   // null if none came within the second
 * }</pre>
 */
public final class DataReader<T> implements ReaderSink, AutoCloseable
{
    private final Topic<T> topic;
    private final TopicState state;
    private final SampleListener<T> listener;
    private final BlockingQueue<Sample<T>> queue;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong received = new AtomicLong();

    DataReader(final Topic<T> topic, final TopicState state, final SampleListener<T> listener, final int capacity)
    {
        this.topic = topic;
        this.state = state;
        this.listener = listener;
        this.queue = listener == null ? new ArrayBlockingQueue<>(capacity) : null;
    }

    @Override
    public void deliver(final MemorySegment segment, final long offset, final int length, final SampleInfo info)
    {
        received.incrementAndGet();
        final T sample;
        try
        {
            sample = topic.codec().decode(segment, offset, length);
        }
        catch (final RuntimeException ex)
        {
            org.slf4j.LoggerFactory.getLogger(DataReader.class).error("{}: sample {} from member {} cannot be " +
                "decoded, skipped: {}", topic, info.position(), info.publisherId(), ex.getMessage());
            return;
        }
        if (listener != null)
        {
            listener.onSample(sample, info);
            return;
        }
        final Sample<T> s = new Sample<>(sample, info);
        while (!queue.offer(s))
        {
            if (queue.poll() != null)
            {
                dropped.incrementAndGet();
            }
        }
    }

    public Topic<T> topic()
    {
        return topic;
    }

    /** The next sample, or null if none is waiting (readers with a listener have no queue: always null). */
    public Sample<T> take()
    {
        return queue == null ? null : queue.poll();
    }

    /** The next sample, waiting up to {@code timeout}; null if none came. */
    public Sample<T> take(final Duration timeout) throws InterruptedException
    {
        return queue == null ? null : queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The samples waiting, without taking them. */
    public List<Sample<T>> read()
    {
        return queue == null ? List.of() : new ArrayList<>(queue);
    }

    /** Samples handed to this reader so far (stored ones included). */
    public long received()
    {
        return received.get();
    }

    /** Samples dropped because the queue was full (the oldest go first). */
    public long dropped()
    {
        return dropped.get();
    }

    @Override
    public void close()
    {
        state.removeReader(this);
    }
}

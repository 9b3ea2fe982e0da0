package io.weft.dds;

import io.weft.predicates.PassInvoker;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Reads a topic: a listener told of every sample on the delivery thread, or a bounded queue that application threads
 * {@link #take} from or iterate over (KEEP_LAST: when the queue is full the oldest sample is dropped and counted). A
 * reader of a storage topic first receives what this member stores (the volatile history, or the whole log), then
 * every sample delivered after, in order, none twice.
 *
 * <pre>{@code
 * DataReader<String> reader = participant.createReader(alerts);
 * Sample<String> s = reader.take(Duration.ofSeconds(1));   // null if none came within the second
 * for (Sample<String> next : reader) { ... }               // blocks for each sample; ends when the reader is closed
 * }</pre>
 *
 * A queue reader also ends, once its waiting samples are taken, when its topic is deleted or its participant ends
 * (closed, finished, left, or its group stopped: {@code participant.group().minorityReason()} says why), so no
 * thread waits in {@link #take(Duration)} or an iteration for samples that can no longer come.
 */
public final class DataReader<T> implements ReaderSink, AutoCloseable, Iterable<Sample<T>>
{
    /** Put in the queue by {@link #close()} to end blocked iterations; never handed out. */
    private static final Sample<Object> END = new Sample<>(null, null);

    private final Topic<T> topic;
    private final TopicState state;
    private final SampleListener<T> listener;
    private final BlockingQueue<Sample<T>> queue;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final Supplier<PassInvoker> invokerHere;

    DataReader(final Topic<T> topic, final TopicState state, final SampleListener<T> listener, final int capacity,
        final Supplier<PassInvoker> invokerHere)
    {
        this.invokerHere = invokerHere;
        this.topic = topic;
        this.state = state;
        this.listener = listener;
        this.queue = listener == null ? new ArrayBlockingQueue<>(capacity) : null;
    }

    @Override
    public void deliver(final MemorySegment segment, final long offset, final int length, final SampleHeader header)
    {
        final SampleInfo info = header.info();
        received.incrementAndGet();
        final T sample;
        try
        {
            sample = topic.codec().decode(segment, offset, length);
        }
        catch (final RuntimeException ex)
        {
            state.decodeFailed(ex, info);
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
            final Sample<T> oldest = queue.poll();
            if (oldest == END)
            {
                queue.offer(oldest); // closed meanwhile: the end stays, the sample is not wanted
                return;
            }
            if (oldest != null)
            {
                dropped.incrementAndGet();
            }
        }
    }

    /** {@return the topic this reader subscribes to} */
    public Topic<T> topic()
    {
        return topic;
    }

    /** {@return the next sample, or null if none is waiting (readers with a listener have no queue: always null)} */
    public Sample<T> take()
    {
        return queue == null ? null : unlessEnd(queue.poll());
    }

    /**
     * The next sample, waiting up to {@code timeout}.
     *
     * @param timeout how long to wait for one.
     * @return the sample; null if none came in time, the reader has a listener (no queue) or its iterations ended.
     * @throws InterruptedException if the waiting thread was interrupted.
     */
    public Sample<T> take(final Duration timeout) throws InterruptedException
    {
        if (queue == null)
        {
            return null;
        }
        final PassInvoker here = invokerHere.get(); // invoker mode, on its owner: samples arrive in its passes
        if (here != null)
        {
            here.invokeUntil(() -> !queue.isEmpty(), System.nanoTime() + timeout.toNanos());
            return unlessEnd(queue.poll());
        }
        return unlessEnd(queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS));
    }

    /** {@return the samples waiting, without taking them} */
    public List<Sample<T>> read()
    {
        if (queue == null)
        {
            return List.of();
        }
        final List<Sample<T>> waiting = new ArrayList<>(queue);
        waiting.remove(END);
        return waiting;
    }

    /**
     * Iterates over the samples as they come, for an application thread: {@code hasNext()} blocks until a sample is
     * waiting or the reader is closed or its topic deleted (then it returns false). An interrupt ends the wait with an
     * {@link IllegalStateException} that carries it, the thread's interrupt flag set again.
     *
     * @throws IllegalStateException the reader has a listener (no queue to iterate).
     */
    @Override
    public Iterator<Sample<T>> iterator()
    {
        if (queue == null)
        {
            throw new IllegalStateException(topic + ": this reader has a listener; only queue readers iterate");
        }
        return new Iterator<>()
        {
            private Sample<T> next;

            @Override
            public boolean hasNext()
            {
                if (next == null)
                {
                    try
                    {
                        next = unlessEnd(takeWaiting());
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(topic + ": interrupted while waiting for a sample", ex);
                    }
                }
                return next != null;
            }

            @Override
            public Sample<T> next()
            {
                if (!hasNext())
                {
                    throw new NoSuchElementException(topic + ": the reader is closed");
                }
                final Sample<T> s = next;
                next = null;
                return s;
            }
        };
    }

    /** The next sample or the end marker, waiting as long as it takes (in invoker mode on its owner, invoking). */
    private Sample<T> takeWaiting() throws InterruptedException
    {
        final PassInvoker here = invokerHere.get();
        if (here == null)
        {
            return queue.take();
        }
        while (queue.isEmpty())
        {
            if (Thread.interrupted())
            {
                throw new InterruptedException();
            }
            here.invokeUntil(() -> !queue.isEmpty(), System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
        }
        return queue.poll();
    }

    /** Null for the end marker, which goes back so that every other waiting thread sees it too. */
    private Sample<T> unlessEnd(final Sample<T> s)
    {
        if (s == END)
        {
            queue.offer(s);
            return null;
        }
        return s;
    }

    /** {@return samples handed to this reader so far (stored ones included)} */
    public long received()
    {
        return received.get();
    }

    /** {@return samples dropped because the queue was full (the oldest go first)} */
    public long dropped()
    {
        return dropped.get();
    }

    /** Stops delivery to this reader; threads blocked in {@link #iterator()} or {@link #take(Duration)} return. */
    @Override
    public void close()
    {
        state.removeReader(this);
        end();
    }

    /** The samples waiting are still taken; then iterations end, as if the reader were closed. */
    @Override
    public void topicDeleted()
    {
        endAfter(listener == null ? null : listener::onTopicDeleted);
    }

    /** As {@link #topicDeleted()}: the samples waiting are still taken, then iterations end. */
    @Override
    public void participantEnded(final String why)
    {
        endAfter(listener == null ? null : () -> listener.onParticipantEnded(why));
    }

    /** Tells the listener, if any, then ends the reader's iterations whatever the listener did. */
    private void endAfter(final Runnable tellListener)
    {
        try
        {
            if (tellListener != null)
            {
                tellListener.run();
            }
        }
        finally
        {
            end();
        }
    }

    private void end()
    {
        if (queue != null)
        {
            @SuppressWarnings("unchecked") final Sample<T> end = (Sample<T>)(Sample<?>)END;
            while (!queue.offer(end))
            {
                queue.poll(); // unread samples are not wanted once closed
            }
        }
    }
}

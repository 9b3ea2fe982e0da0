package io.weft.dds;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A topic's samples as a {@link Flow.Publisher}, for reactive application code. Each subscriber gets a reader of its
 * own (what this member stores of the topic, then every later sample, in order, none twice) and is signalled on the
 * executor with back-pressure by {@code request(n)}, through the JDK's {@link SubmissionPublisher}. The delivery thread
 * never waits for a subscriber: one more than {@code capacity} samples behind loses the newest, counted in
 * {@link #dropped()}. A subscriber that cancels stops its reader; {@link #close()} completes every subscriber, as
 * does the deletion of the topic or the end of the participant (closed, finished, left), while a participant whose
 * group stopped (minority partition, removed as failed, an error) signals {@code onError} with why.
 *
 * <pre>{@code
 * try (SamplePublisher<String> alerts = participant.createPublisher(topic)) {
 *     alerts.subscribe(mySubscriber);   // onNext(Sample<String>) on the common pool
 * }
 * }</pre>
 */
public final class SamplePublisher<T> implements Flow.Publisher<Sample<T>>, AutoCloseable
{
    private final DomainParticipant participant;
    private final Topic<T> topic;
    private final Executor executor;
    private final int capacity;
    private final List<Feed> feeds = new CopyOnWriteArrayList<>();
    private final AtomicLong dropped = new AtomicLong();
    private boolean closed; // guarded by this

    SamplePublisher(final DomainParticipant participant, final Topic<T> topic, final Executor executor,
        final int capacity)
    {
        this.participant = participant;
        this.topic = topic;
        this.executor = Objects.requireNonNull(executor, "executor");
        if (capacity < 1)
        {
            throw new IllegalArgumentException(topic + ": a publisher buffers at least 1 sample per subscriber, not " +
                capacity);
        }
        this.capacity = capacity;
    }

    @Override
    public synchronized void subscribe(final Flow.Subscriber<? super Sample<T>> subscriber)
    {
        Objects.requireNonNull(subscriber, "subscriber");
        final SubmissionPublisher<Sample<T>> out = new SubmissionPublisher<>(executor, capacity);
        out.subscribe(subscriber);
        if (closed)
        {
            out.close();
            return;
        }
        final Feed feed = new Feed(out);
        feeds.add(feed);
        try
        {
            feed.reader = participant.createReader(topic, feed);
        }
        catch (final IllegalStateException ex) // the participant ended, or the topic was deleted
        {
            feeds.remove(feed);
            out.closeExceptionally(ex); // a Flow publisher signals onError rather than throw from subscribe
        }
    }

    /** {@return the topic this publisher reads} */
    public Topic<T> topic()
    {
        return topic;
    }

    /** {@return samples a lagging subscriber lost (its buffer of {@code capacity} was full)} */
    public long dropped()
    {
        return dropped.get();
    }

    /** Stops every subscriber's reader and completes the subscribers ({@code onComplete}). */
    @Override
    public synchronized void close()
    {
        closed = true; // under the monitor: a subscribe racing with close either completes at once or is closed here
        feeds.forEach(Feed::close);
    }

    /** One subscriber: its reader's listener hands each sample to the subscriber's buffer. */
    private final class Feed implements SampleListener<T>
    {
        private final SubmissionPublisher<Sample<T>> out;
        private volatile DataReader<T> reader;

        Feed(final SubmissionPublisher<Sample<T>> out)
        {
            this.out = out;
        }

        @Override
        public void onSample(final T sample, final SampleInfo info)
        {
            if (!out.hasSubscribers()) // cancelled (or failed in onNext): stop reading for it
            {
                close();
                return;
            }
            out.offer(new Sample<>(sample, info), (subscriber, lost) ->
            {
                dropped.incrementAndGet();
                return false;
            });
        }

        @Override
        public void onTopicDeleted()
        {
            close(); // the subscriber gets onComplete after the samples it was offered
        }

        /** onComplete if the participant was closed or left; onError with why if its group stopped. */
        @Override
        public void onParticipantEnded(final String why)
        {
            feeds.remove(this);
            if (participant.stopped())
            {
                out.closeExceptionally(new IllegalStateException(why));
            }
            else
            {
                out.close();
            }
        }

        void close()
        {
            final DataReader<T> r = reader;
            if (r != null)
            {
                r.close();
            }
            feeds.remove(this);
            out.close();
        }
    }
}

package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.membership.Subgroup;
import io.weft.predicates.PassInvoker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Writes samples to a topic: encodes each in place in this member's multicast slot (no intermediate buffer), or
 * lends the slot ({@link #loan}) for a sample built in place. A write that returned is delivered to every
 * subscriber of the views that follow, exactly once, in the topic's order; on a logged topic,
 * {@link #awaitDurable} waits until it is in every member's log. Safe for several threads.
 *
 * <pre>{@code
 * DataWriter<String> writer = participant.createWriter(alerts);
 * writer.write("engine 2 oil pressure low");      // waits up to 5 s for a slot, else DdsTimeoutException
 * }</pre>
 */
public final class DataWriter<T>
{
    /** How long {@link #write(Object)} waits for a free slot. */
    public static final Duration DEFAULT_BLOCKING = Duration.ofSeconds(5);

    private final Topic<T> topic;
    private final TopicState state;
    private final Supplier<Subgroup> subgroup;
    private final AtomicLong written;
    private final ThreadLocal<Loan> loans;
    private final Supplier<PassInvoker> invokerHere;

    DataWriter(final Topic<T> topic, final TopicState state, final Supplier<Subgroup> subgroup,
        final AtomicLong written, final Supplier<PassInvoker> invokerHere)
    {
        this.invokerHere = invokerHere;
        this.topic = topic;
        this.state = state;
        this.subgroup = subgroup;
        this.written = written;
        this.loans = ThreadLocal.withInitial(() -> new Loan(topic, written));
    }

    /** {@return the topic this writer publishes} */
    public Topic<T> topic()
    {
        return topic;
    }

    /**
     * Writes {@code sample}, waiting up to {@link #DEFAULT_BLOCKING} for a slot.
     *
     * @param sample the sample, encoded by the topic's codec into the slot.
     * @throws DdsTimeoutException      no slot freed in time (a subscriber is not keeping up, or the view is changing).
     * @throws IllegalArgumentException the encoded sample exceeds the topic's max-sample, or ends before its key.
     * @throws IllegalStateException    the topic was deleted.
     */
    public void write(final T sample)
    {
        if (!write(sample, DEFAULT_BLOCKING))
        {
            throw new DdsTimeoutException(topic + ": no free slot within " + DEFAULT_BLOCKING + " (a subscriber is " +
                "not keeping up, or the group is changing its view)");
        }
    }

    /**
     * Writes {@code sample}, waiting up to {@code timeout} for a slot.
     *
     * @param sample  the sample, encoded by the topic's codec into the slot.
     * @param timeout how long to wait for a free slot.
     * @return true if it was written; false if no slot freed in time (nothing was sent).
     * @throws IllegalArgumentException the encoded sample exceeds the topic's max-sample, or ends before its key.
     * @throws IllegalStateException    the topic was deleted.
     */
    public boolean write(final T sample, final Duration timeout)
    {
        while (true)
        {
            final Loan loan = loan(timeout);
            if (loan == null)
            {
                return false;
            }
            final int length;
            try
            {
                length = topic.codec().encode(sample, loan.segment(), loan.offset(), loan.capacity());
            }
            catch (final RuntimeException ex)
            {
                loan.abort();
                throw ex;
            }
            if (loan.tryCommit(length))
            {
                return true;
            }
            // this thread stalled past a view change's 2 s wait for the loan: nothing was sent; write it in the new
            // view (each round needs such a stall, so this does not spin)
        }
    }

    /**
     * Lends a slot of the topic's max-sample bytes, waiting up to {@code timeout}; null if none freed in time. A
     * sample committed shorter gives the rest back to the ring, unless another loan or send of this member followed.
     *
     * @param timeout how long to wait for a free slot.
     * @return the loan (one per thread, reused: commit or abort it before the next), or null if none freed in time.
     * @throws IllegalStateException the topic was deleted.
     */
    public Loan loan(final Duration timeout)
    {
        state.checkNotDeleted();
        final Loan loan = loans.get();
        return subgroup.get().claim(topic.maxSample(), loan.claim(), timeout) >= 0 ? loan : null;
    }

    /** {@return samples this member has written to the topic (all its writers)} */
    public long written()
    {
        return written.get();
    }

    /**
     * Logged storage: waits until every sample this member wrote to the topic so far is in the log of every member
     * of the view (the durability frontier passed it).
     *
     * @param timeout how long to wait.
     * @return false if that did not happen within {@code timeout}.
     * @throws IllegalStateException the topic is not logged, or this member's log failed.
     */
    public boolean awaitDurable(final Duration timeout)
    {
        if (topic.qos() != QosLevel.LOGGED_STORAGE)
        {
            throw new IllegalStateException(topic + " is not logged: there is no durability to wait for");
        }
        final long target = written.get();
        final long deadline = System.nanoTime() + timeout.toNanos();
        final PassInvoker here = invokerHere.get(); // invoker mode, on its owner: the frontier moves in its passes
        long park = 20_000;
        while (true)
        {
            if (state.failure() != null)
            {
                throw new IllegalStateException(topic + ": " + state.failure());
            }
            state.checkNotDeleted();
            if (state.ownDelivered() >= target && state.persistedFrontier() >= state.ownEnd())
            {
                return true;
            }
            if (System.nanoTime() - deadline >= 0)
            {
                return false;
            }
            if (here != null)
            {
                here.invokeUntil(System.nanoTime() + park);
            }
            else
            {
                LockSupport.parkNanos(park); // an application thread waiting on other members: no spinning
            }
            park = Math.min(park * 2, TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}

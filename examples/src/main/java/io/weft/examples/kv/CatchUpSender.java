package io.weft.examples.kv;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A member's part in a cold start's catch-up: sends the stretches of its log it was asked for, one after another on
 * one thread ({@code kv-catchup}), as it reads them, within the proposer's room for catch-up messages (so a stretch is
 * never whole in memory); each only once the position before it, another member's, was delivered (so stretches reach
 * the members in position order, and none keeps a stretch in memory until an earlier one arrives). It stops once the
 * cold start ends or the proposer stops; a log it cannot read stops the member, naming the stretch.
 */
final class CatchUpSender
{
    private static final Logger LOG = LoggerFactory.getLogger(CatchUpSender.class);
    /** The longest a stretch waiting for its turn parks before it looks again (it is unparked when its turn comes). */
    private static final long TURN_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final int me;
    private final KvLog log;
    private final KvProposer proposer;
    private final Supplier<ColdStart> recovery;
    private final Consumer<String> stop;
    /** Stretches planned and not done: a compaction, which replaces the log they read, waits until none is. */
    private final AtomicInteger running = new AtomicInteger();
    private final Executor thread = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        Thread.ofPlatform().name("kv-catchup").daemon(true).factory());
    /** The highest position of a catch-up delivered here (by any member). */
    private volatile long seen;
    /** The catch-up thread while a stretch waits for its turn. */
    private volatile Thread waiter;

    CatchUpSender(final int me, final KvLog log, final KvProposer proposer, final Supplier<ColdStart> recovery,
        final Consumer<String> stop)
    {
        this.me = me;
        this.log = log;
        this.proposer = proposer;
        this.recovery = recovery;
        this.stop = stop;
    }

    /**
     * Delivery thread, at a plan of the round of view {@code round}: sends {@code from..to} once the catch-up of
     * {@code after} is delivered (-1: at once), or a later round planned. A stretch of an earlier round that still
     * waits goes now: what it waited for may never come.
     */
    void send(final long from, final long to, final long after, final long round)
    {
        running.incrementAndGet(); // here, on the delivery thread, which also decides to compact
        LockSupport.unpark(waiter);
        thread.execute(() -> run(from, to, after, round));
    }

    /** Delivery thread: a catch-up of {@code position} was delivered. */
    void delivered(final long position)
    {
        if (position > seen)
        {
            seen = position; // written before the waiter is read, as the waiter is written before seen is read
            LockSupport.unpark(waiter);
        }
    }

    /** Delivery thread: whether a stretch is still to be read (no compaction may replace the log). */
    boolean reading()
    {
        return running.get() > 0;
    }

    private void run(final long from, final long to, final long after, final long round)
    {
        final BooleanSupplier over = () -> !recovery.get().running() || proposer.stopped();
        try
        {
            awaitTurn(after, round, over);
            final long start = System.nanoTime();
            final long last = log.forEachBatch(from, to, over, (batch, p) ->
            {
                if (!over.getAsBoolean())
                {
                    proposer.sendCatchUp(KvWire.message(KvWire.CATCHUP, me, p, 0, batch));
                }
            });
            LOG.info("member {}: catch-up of writes {}..{} read and queued up to {} in {} ms{}", me, from, to, last,
                (System.nanoTime() - start) / 1_000_000, over.getAsBoolean() ? " (the cold start ended)" : "");
        }
        catch (final RuntimeException ex)
        {
            LOG.error("member {}: the catch-up of writes {}..{} failed", me, from, to, ex);
            stop.accept("member " + me + " could not send writes " + from + ".." + to + " again from its log: " + ex);
        }
        finally
        {
            running.decrementAndGet();
        }
    }

    private void awaitTurn(final long after, final long round, final BooleanSupplier over)
    {
        waiter = Thread.currentThread();
        try
        {
            while (seen < after && recovery.get().plannedView() == round && !over.getAsBoolean())
            {
                LockSupport.parkNanos(this, TURN_PARK_NANOS);
            }
        }
        finally
        {
            waiter = null;
        }
    }
}

package io.weft.sst.rdma;

import io.weft.config.Doorbell;
import io.weft.sst.HostedPasses;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The progress thread of an rdma table: polls the endpoint (the transport's {@code poll}, under its lock) and paces
 * itself by what the poll found. For manual-progress providers such as tcp;ofi_rxm and shm its polls are what make
 * peers' writes land here, so it yields while completions are owed, parks 20 us between polls while writes are in
 * flight or arrive and 200 us when idle. With {@code threading = merged} it also runs the predicate passes after each
 * poll ({@link HostedPasses}), so that a peer's write it reaps and the trigger that write enables run with no wake-up
 * of another thread between them; its parks are then sleeps on the doorbell, which a committing sender rings.
 */
final class ProgressThread
{
    /** A poll's flags: writes of this member were outstanding before it. */
    static final int BUSY = 1;
    /** A peer's write that wakes this member landed. */
    static final int LANDED = 2;
    /** A completion (and, where targets are rung, a ring) is still owed. */
    static final int OWED = 4;
    /** Completions advanced: what is owed came closer. */
    static final int ADVANCED = 8;
    /** The table closed or failed: the thread ends. */
    static final int STOP = -1;
    /** How long a wait for owed completions polls at once (yielding) before it parks. */
    static final long RING_SPIN_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final BooleanSupplier NOTHING_QUEUED = () -> false;

    private final IntSupplier poll;
    private final Consumer<Throwable> failed;
    private final Thread thread;
    /** The predicate passes run between polls; null unless {@code threading} is merged. */
    private final HostedPasses hosted;

    /**
     * @param poll     one poll under the transport's lock: the flags above, or {@link #STOP}.
     * @param failed   told what ended the thread when it was not a {@link #STOP} (a poll's bug, an {@link Error}).
     * @param doorbell the table's doorbell, whose sleeps replace the parks when this thread runs the passes; null:
     *                 it does not ({@code threading = separate}).
     */
    ProgressThread(final String name, final IntSupplier poll, final Consumer<Throwable> failed,
        final Doorbell doorbell)
    {
        this.poll = poll;
        this.failed = failed;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
        this.hosted = doorbell != null ? new HostedPasses(thread, doorbell, this::wake) : null;
    }

    void start()
    {
        thread.start();
    }

    /** Polls at once rather than after its park. */
    void wake()
    {
        LockSupport.unpark(thread);
    }

    /** Whether the caller is this thread (a hosted pass): a wait of its own must poll, nobody else will. */
    boolean isCurrent()
    {
        return Thread.currentThread() == thread;
    }

    /** The passes' host where this thread runs them, else null. */
    HostedPasses hosted()
    {
        return hosted;
    }

    /**
     * Wakes the thread to find the table closed and waits up to 5 s for it to end; not from the thread itself (a
     * hosted pass that closes the table: its loop ends after the pass).
     */
    void stop()
    {
        wake();
        if (isCurrent())
        {
            return;
        }
        try
        {
            thread.join(5000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        try
        {
            progress();
        }
        catch (final Throwable ex)
        {
            failed.accept(ex);
        }
    }

    private void progress()
    {
        long idle = 0;
        long owedSince = 0;
        int found;
        while ((found = poll.getAsInt()) != STOP)
        {
            // hosted passes run outside the lock (they post and flush): what just landed is delivered on this thread
            final int fired = hosted != null ? hosted.run() : 0;
            // the next flush waits for the completions owed (and, where targets are rung, the targets for their
            // ring): poll at once for a while after the last one counted, as the flusher used to; then park, and poll
            // often while writes are in flight or arrive (manual progress: peers' writes land only while this polls)
            final boolean owed = (found & OWED) != 0;
            owedSince = !owed ? 0 : owedSince == 0 || (found & ADVANCED) != 0 ? System.nanoTime() : owedSince;
            idle = (found & (BUSY | LANDED | OWED)) != 0 || fired > 0 ? 0 : idle + 1;
            if (fired > 0)
            {
                if (hosted.yieldsAfterWork())
                {
                    Thread.yield();
                }
            }
            else if (owed && System.nanoTime() - owedSince < RING_SPIN_NANOS)
            {
                Thread.yield();
            }
            else
            {
                pause(idle < 100 ? 20_000 : 200_000);
            }
        }
    }

    /**
     * Between polls: parks, or with hosted passes waits as their idle settings say, a sleep on the doorbell that a
     * sender's ring ends at once (its commit is then posted from here).
     */
    private void pause(final long nanos)
    {
        if (hosted == null || !hosted.hosting())
        {
            LockSupport.parkNanos(nanos);
            return;
        }
        hosted.idle(NOTHING_QUEUED, nanos);
    }
}

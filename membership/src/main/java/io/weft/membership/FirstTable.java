package io.weft.membership;

import io.weft.config.WeftConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A joiner's first view: its table connects while the application installs the state, on a thread of its own that
 * then watches the install. The members that admitted it wait in that table's open for at most the connect timeout:
 * connecting only after a state that took longer to install got the joiner removed as failed (its join returned a
 * view it was no longer in), and otherwise made the two take turns. Its failure detector beats from the open on, so
 * that they do not suspect it meanwhile; its predicate thread, so its first delivery, starts after the install. The
 * group's deliveries wait for it, so an installer that asks for no bytes for a join timeout (the donor's own bound
 * on a joiner that stops reading) is cut off: the table closes, the others remove the joiner, and join fails.
 */
final class FirstTable
{
    private static final Logger LOG = LoggerFactory.getLogger(FirstTable.class);
    private static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private FirstTable()
    {
    }

    /** Connects the table of the admitted view while the state installs; returns it, not yet started. */
    static Epoch openWhileInstalling(final MembershipLoop membership, final WeftConfig config,
        final Joiner.Admission admission)
    {
        try (admission)
        {
            membership.runtime().adopt(admission.added());
            final CompletableFuture<Epoch> opened = new CompletableFuture<>();
            final AtomicBoolean settled = new AtomicBoolean(); // the install returned, or the watch cut it off
            final long bound = config.membership().joinTimeout().toNanos();
            final Thread watch = Thread.ofPlatform().name("weft-open-" + config.memberId()).daemon(true).start(() ->
            {
                final Epoch e;
                try
                {
                    e = membership.openEpoch(admission.view());
                    e.startDetector();
                    opened.complete(e);
                }
                catch (final RuntimeException | Error ex)
                {
                    opened.completeExceptionally(ex);
                    admission.close(); // the state is of no use without the table: stop reading it
                    return;
                }
                watch(admission.state(), settled, bound, e, admission);
            });
            Throwable failed = null;
            try
            {
                membership.stateTransfer().install(admission.state(), new StateTransfer.Joining()
                {
                    @Override
                    public View view()
                    {
                        return admission.view();
                    }

                    @Override
                    public void fetch(final int memberId, final byte[] request,
                        final StateTransfer.StateReader reader) throws IOException
                    {
                        Joiner.fetch(config, memberId, request, reader);
                    }
                });
                admission.state().finish();
            }
            catch (final IOException | RuntimeException | Error ex) // an error too: a full disk faults a mapped write
            {
                failed = ex; // the table closes at once below, rather than when the watch cuts the install off
            }
            final boolean cutOff = !settled.compareAndSet(false, true);
            LockSupport.unpark(watch);
            if (failed == null && !cutOff)
            {
                return opened(opened);
            }
            final Epoch e;
            try
            {
                e = opened(opened); // settles within the connect timeout: nothing is left open behind
            }
            catch (final RuntimeException openFailed)
            {
                if (failed != null)
                {
                    openFailed.addSuppressed(failed); // closing the admission on that failure cut the state short
                }
                throw openFailed;
            }
            e.close();
            throw new GroupJoinException("member " + config.memberId() + " could not receive its state on " +
                "joining " + admission.view() + ": " + (cutOff ? stalled(config) : failed), failed);
        }
    }

    /** On the open's thread, until the install settles: cuts off an installer that asks for nothing for too long. */
    private static void watch(final StateChunks.Input state, final AtomicBoolean settled, final long bound,
        final Epoch e, final Joiner.Admission admission)
    {
        while (!settled.get())
        {
            final long idle = System.nanoTime() - state.askedNanos();
            if (idle > bound)
            {
                if (settled.compareAndSet(false, true))
                {
                    LOG.error("the state installer asked for no bytes for {} ms: closing the joiner's table so that " +
                        "the group does not wait for it", TimeUnit.NANOSECONDS.toMillis(idle));
                    e.close();
                    admission.close();
                }
                return;
            }
            LockSupport.parkNanos(Math.min(WATCH_NANOS, bound - idle));
        }
    }

    private static String stalled(final WeftConfig config)
    {
        return "its state installer asked for no bytes of it for weft.membership.join-timeout (" +
            config.membership().joinTimeout() + "), and the group's deliveries wait for it: cut off";
    }

    /** The table once open, or what its open threw. */
    private static Epoch opened(final CompletableFuture<Epoch> opened)
    {
        try
        {
            return opened.join();
        }
        catch (final CompletionException ex)
        {
            throw ex.getCause() instanceof RuntimeException r ? r : new IllegalStateException(ex.getCause());
        }
    }
}

package io.weft.sst.tcp;

import io.weft.config.WeftConfig;
import io.weft.sst.TransportContext;
import io.weft.sst.TransportException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Opening a tcp table: the opener waits until every peer is resolved (its handshake completed, or it failed), the
 * selector thread failed, or the connect timeout passed. A member missing at the timeout fails the open, or is
 * reported failed where the caller tolerates missing members (a later view); there, a member the context says is
 * {@linkplain TransportContext#gone() gone} is reported failed as soon as it is known.
 */
final class OpenBarrier
{
    /** How often an open that tolerates missing members asks whether an unconnected peer is gone. */
    private static final long PROBE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

    private final TransportContext context;
    private final WeftConfig config;
    /**
     * Written under this object's monitor; read without it by the selector thread (a stale false redials) and by the
     * opener's probe loop (a stale false probes once more).
     */
    private final boolean[] resolved;
    private volatile boolean opened;
    private String fatal;

    OpenBarrier(final TransportContext context)
    {
        this.context = context;
        this.config = context.config();
        this.resolved = new boolean[context.rows()];
        this.resolved[context.myRank()] = true;
    }

    /** Per rank: connected, or given up on. Shared with the handshakes, which dial the unresolved. */
    boolean[] resolved()
    {
        return resolved;
    }

    /** Whether the open completed: from then on a lost connection is a member failure, never redialled. */
    boolean isOpen()
    {
        return opened;
    }

    synchronized void resolve(final int rank)
    {
        resolved[rank] = true;
        notifyAll();
    }

    /** The selector thread failed: the open fails with {@code reason}. */
    synchronized void fail(final String reason)
    {
        if (fatal == null)
        {
            fatal = reason;
        }
        notifyAll();
    }

    /**
     * Waits up to the connect timeout; throws {@link TransportException} saying who is missing (and the last
     * handshake refused) or what failed. Where missing members are tolerated, it asks at once and then every
     * {@link #PROBE_NANOS} whether an unresolved peer is gone, and gives up on it then.
     */
    void await(final Supplier<String> lastRefusal)
    {
        final long deadline = System.nanoTime() + config.transport().connectTimeout().toNanos();
        do
        {
            for (int r = 0; r < resolved.length; r++)
            {
                // the probe may block: asked outside the monitor, which the selector thread takes to resolve
                if (!resolved[r] && context.givesUpOn(r))
                {
                    giveUp(r);
                }
            }
        }
        while (waitSlice(deadline, lastRefusal));
        synchronized (this)
        {
            if (fatal != null)
            {
                throw new TransportException(fatal);
            }
            opened = true;
        }
    }

    /** Waits until resolved, failed, timed out (false) or one probe interval passed (true). */
    private synchronized boolean waitSlice(final long deadline, final Supplier<String> lastRefusal)
    {
        if (fatal != null || allResolved())
        {
            return false;
        }
        final long left = deadline - System.nanoTime();
        if (left <= 0)
        {
            timedOut(lastRefusal.get());
            return false;
        }
        try
        {
            final long slice = context.tolerateMissing() ? Math.min(left, PROBE_NANOS) : left;
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(slice)));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new TransportException("interrupted while opening the tcp transport");
        }
        return true;
    }

    private synchronized void giveUp(final int rank)
    {
        if (!resolved[rank])
        {
            resolved[rank] = true;
            context.failures().onMemberFailure(rank, "member " + config.group().members().get(rank).id() +
                " of group " + config.group().name() + " is gone: it never connected");
        }
    }

    private void timedOut(final String refusal)
    {
        final List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < resolved.length; r++)
        {
            if (!resolved[r])
            {
                missing.add(config.group().members().get(r).id());
            }
        }
        final String why = "timed out after " + config.transport().connectTimeout() + " waiting for members " +
            missing + " of group " + config.group().name() + " to connect" +
            (refusal == null ? "" : "; last refusal: " + refusal);
        if (!context.tolerateMissing())
        {
            throw new TransportException(why);
        }
        for (int r = 0; r < resolved.length; r++)
        {
            if (!resolved[r])
            {
                resolved[r] = true;
                context.failures().onMemberFailure(r, why);
            }
        }
    }

    private boolean allResolved()
    {
        for (final boolean r : resolved)
        {
            if (!r)
            {
                return false;
            }
        }
        return true;
    }
}

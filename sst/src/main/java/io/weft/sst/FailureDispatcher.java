package io.weft.sst;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * Receives failure reports from a transport, freezes the failed row once, and fans the report out to listeners.
 * A listener added late is told about failures that happened before it was added, so none is missed at start-up.
 * Listeners run on the reporting transport's thread; one that throws is logged and the others are still told, so
 * that an application's callback can end neither that thread nor the failure detection behind it (an {@link Error}
 * does end it, and is then reported as the transport's thread failure: {@link #threadFailed}).
 */
final class FailureDispatcher implements FailureListener
{
    private static final Logger LOG = LoggerFactory.getLogger(FailureDispatcher.class);

    private final List<FailureListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<Integer, String> failed = new LinkedHashMap<>();
    private SstTransport transport;
    private Consumer<Throwable> errorHandler;
    private Throwable threadFailure;
    /** Ranks leaving the table on purpose: their loss is no failure to log as one (see {@link Sst#departing}). */
    private volatile IntPredicate departing = rank -> false;

    @Override
    public void onMemberFailure(final int rank, final String reason)
    {
        final SstTransport t;
        synchronized (this)
        {
            if (failed.putIfAbsent(rank, reason) != null)
            {
                return;
            }
            t = transport;
        }
        if (isDeparting(rank))
        {
            LOG.info("member at rank {} left the table: {}", rank, reason);
        }
        else
        {
            LOG.warn("member at rank {} failed: {}", rank, reason);
        }
        if (t != null)
        {
            t.freeze(rank);
        }
        for (final FailureListener l : listeners)
        {
            tell(l, rank, reason);
        }
    }

    private static void tell(final FailureListener l, final int rank, final String reason)
    {
        try
        {
            l.onMemberFailure(rank, reason);
        }
        catch (final RuntimeException ex)
        {
            LOG.error("a failure listener failed on the report of rank {}", rank, ex);
        }
    }

    /** A thread of the transport ended by {@code ex}: told to the error handler, once, or kept until one is set. */
    void threadFailed(final Throwable ex)
    {
        final Consumer<Throwable> handler;
        synchronized (this)
        {
            if (threadFailure != null)
            {
                return;
            }
            threadFailure = ex;
            handler = errorHandler;
        }
        if (handler != null)
        {
            handler.accept(ex);
        }
    }

    void errorHandler(final Consumer<Throwable> handler)
    {
        final Throwable known;
        synchronized (this)
        {
            errorHandler = handler;
            known = threadFailure;
        }
        if (known != null)
        {
            handler.accept(known);
        }
    }

    void attach(final SstTransport transport)
    {
        final List<Integer> toFreeze;
        synchronized (this)
        {
            this.transport = transport;
            toFreeze = new ArrayList<>(failed.keySet());
        }
        toFreeze.forEach(transport::freeze);
    }

    void add(final FailureListener listener)
    {
        final Map<Integer, String> known;
        synchronized (this)
        {
            listeners.add(listener);
            known = new LinkedHashMap<>(failed);
        }
        known.forEach((rank, reason) -> tell(listener, rank, reason));
    }

    void departing(final IntPredicate departing)
    {
        this.departing = departing;
    }

    private boolean isDeparting(final int rank)
    {
        try
        {
            return departing.test(rank);
        }
        catch (final RuntimeException closed) // the rows it reads are gone with the table: say failed, as before
        {
            return false;
        }
    }

    synchronized boolean hasFailed(final int rank)
    {
        return failed.containsKey(rank);
    }
}

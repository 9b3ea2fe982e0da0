package io.weft.sst;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Receives failure reports from a transport, freezes the failed row once, and fans the report out to listeners.
 * A listener added late is told about failures that happened before it was added, so none is missed at start-up.
 */
final class FailureDispatcher implements FailureListener
{
    private static final Logger LOG = LoggerFactory.getLogger(FailureDispatcher.class);

    private final List<FailureListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<Integer, String> failed = new LinkedHashMap<>();
    private SstTransport transport;

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
        LOG.warn("member at rank {} failed: {}", rank, reason);
        if (t != null)
        {
            t.freeze(rank);
        }
        for (final FailureListener l : listeners)
        {
            l.onMemberFailure(rank, reason);
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
        known.forEach(listener::onMemberFailure);
    }

    synchronized boolean hasFailed(final int rank)
    {
        return failed.containsKey(rank);
    }
}

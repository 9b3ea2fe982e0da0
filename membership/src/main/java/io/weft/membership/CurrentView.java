package io.weft.membership;

import java.util.concurrent.TimeUnit;

/**
 * The view a member is in and its {@link Lifecycle}, changed together under one monitor so that a sender waiting for
 * the next view and a member waiting for its leave see both at once.
 */
final class CurrentView
{
    private final Object monitor = new Object();
    private volatile Epoch epoch;
    private volatile Lifecycle state = Lifecycle.OPENING;
    private volatile String stopReason;

    Epoch epoch()
    {
        return epoch;
    }

    Lifecycle state()
    {
        return state;
    }

    /** Why the member stopped; null unless {@link Lifecycle#STOPPED}. */
    String stopReason()
    {
        return stopReason;
    }

    /** Makes {@code e} the current view; the first one also makes the member {@link Lifecycle#RUNNING}. */
    void install(final Epoch e)
    {
        synchronized (monitor)
        {
            epoch = e;
            if (state == Lifecycle.OPENING)
            {
                state = Lifecycle.RUNNING;
            }
            monitor.notifyAll();
        }
    }

    /** Moves to {@code next} unless the member already reached a terminal state; false if it had. */
    boolean moveTo(final Lifecycle next)
    {
        synchronized (monitor)
        {
            if (state.terminal())
            {
                return false;
            }
            state = next;
            monitor.notifyAll();
            return true;
        }
    }

    /** Stops the member with a reason that every later send reports; false if it was already terminal. */
    boolean stop(final String reason)
    {
        synchronized (monitor)
        {
            if (state.terminal())
            {
                return false;
            }
            stopReason = reason;
            state = Lifecycle.STOPPED;
            monitor.notifyAll();
            return true;
        }
    }

    /** Waits until a view after {@code e} is installed or the member ends; false on timeout or interrupt. */
    boolean awaitNextView(final Epoch e, final long deadlineNanos)
    {
        synchronized (monitor)
        {
            while (epoch == e && !state.terminal())
            {
                final long wait = deadlineNanos - System.nanoTime();
                if (wait <= 0)
                {
                    return false;
                }
                try
                {
                    monitor.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    /** Waits up to {@code maxMillis} for a change of view or state. */
    void awaitChange(final long maxMillis) throws InterruptedException
    {
        synchronized (monitor)
        {
            monitor.wait(Math.max(1, maxMillis));
        }
    }
}

package io.weft.sst.tcp;

import io.weft.config.ParkingDoorbell;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;

/**
 * The doorbell of a member whose selector thread runs the predicates ({@link HostedPasses}): that thread sleeps in
 * {@link Selector#select(long)}, and a ring while it sleeps calls {@link Selector#wakeup()} (a system call, made only
 * while a sleeper is announced). Any other thread sleeping on it parks, as on a {@link ParkingDoorbell}.
 */
final class SelectorDoorbell extends ParkingDoorbell
{
    private final Selector selector;
    private final Thread selectorThread;

    SelectorDoorbell(final Selector selector, final Thread selectorThread)
    {
        this.selector = selector;
        this.selectorThread = selectorThread;
    }

    /** On the selector thread: selects, returning when a channel is ready, the doorbell rang, or time passed. */
    @Override
    protected void block(final long maxNanos)
    {
        if (Thread.currentThread() != selectorThread)
        {
            super.block(maxNanos);
            return;
        }
        try
        {
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(maxNanos)));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("select failed", ex);
        }
    }

    @Override
    protected void wake(final Thread sleeper)
    {
        if (sleeper == selectorThread)
        {
            selector.wakeup(); // a wake-up of a selector that is not selecting makes its next select return at once
        }
        else
        {
            super.wake(sleeper);
        }
    }
}

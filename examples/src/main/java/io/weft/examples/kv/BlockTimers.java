package io.weft.examples.kv;

import io.netty.util.concurrent.EventExecutor;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The timers of a connection's blocking commands not yet answered, on its event loop: each answers its command with
 * nothing at its deadline if it still waits then ({@link BlockedClients#expire}), and is cancelled as its command is
 * answered (a worker's BRPOP with a long timeout, answered at once under load, would otherwise keep its command until
 * then).
 */
final class BlockTimers
{
    private final Map<Command, ScheduledFuture<?>> timers = new IdentityHashMap<>();
    private final EventExecutor loop;
    private final BlockedClients blocked;

    BlockTimers(final EventExecutor loop, final BlockedClients blocked)
    {
        this.loop = loop;
        this.blocked = blocked;
    }

    /** Starts the timer of {@code command}, a blocking command, if it waits with a deadline (not refused, not 0). */
    void start(final Command command)
    {
        if (command.blockedUntil == 0 || command.blockedUntil == Long.MAX_VALUE)
        {
            return;
        }
        timers.put(command, loop.schedule(() ->
        {
            timers.remove(command);
            if (blocked.expire(command))
            {
                command.complete(BlockedClients.nothing(command));
            }
        }, command.blockedUntil - System.nanoTime(), TimeUnit.NANOSECONDS));
    }

    /** Its client gone: the blocking commands among {@code due} wait no more, and nothing is popped for them. */
    void cancelWaiting(final Iterable<Command> due)
    {
        for (final Command c : due)
        {
            if (c.blockedUntil != 0)
            {
                blocked.cancel(c);
                stop(c);
            }
        }
    }

    /** Cancels the timer of {@code command}, answered or gone, if it has one. */
    void stop(final Command command)
    {
        final ScheduledFuture<?> timer = timers.remove(command);
        if (timer != null)
        {
            timer.cancel(false);
        }
    }
}

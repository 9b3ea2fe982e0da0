package io.weft.smc;

import org.slf4j.Logger;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What an application callback throws on a protocol thread, counted and logged without flooding the log: the first
 * failure with its stack trace, then at most one per {@link #INTERVAL_NANOS}, which says how many were not logged
 * since. A callback that throws on every message would otherwise write a stack trace per message, on the thread that
 * delivers, at the rate messages arrive. The count is exact (it feeds a meter); nothing is allocated unless a
 * callback throws.
 */
public final class CallbackFailures
{
    /** At most one logged failure per this many nanoseconds, the first one at once. */
    public static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    private final long intervalNanos;
    private final LongSupplier clock;
    private volatile long count; // written under this monitor, read by the registry's threads
    private long unlogged;
    private long logAfter;
    private boolean logged;

    /** Failures logged to {@code log}, at most one per {@link #INTERVAL_NANOS}. */
    public CallbackFailures(final Logger log)
    {
        this(log, INTERVAL_NANOS, System::nanoTime);
    }

    CallbackFailures(final Logger log, final long intervalNanos, final LongSupplier clock)
    {
        this.log = log;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
    }

    /**
     * A callback threw {@code ex}: counts it and logs it, as SLF4J's {@code log.error(format, args..., ex)} would, if
     * none was logged in the last interval; the line then ends with how many were not logged since the last one.
     *
     * @return whether this one was logged.
     */
    public synchronized boolean failed(final Throwable ex, final String format, final Object... args)
    {
        count = count + 1;
        final long now = clock.getAsLong();
        if (logged && now - logAfter < 0)
        {
            unlogged++;
            return false;
        }
        final Object[] all = Arrays.copyOf(args, args.length + 2);
        if (unlogged == 0)
        {
            all[args.length] = ex;
            log.error(format, Arrays.copyOf(all, args.length + 1));
        }
        else
        {
            all[args.length] = unlogged;
            all[args.length + 1] = ex;
            log.error(format + " ({} more failures since the last one logged)", all);
        }
        logged = true;
        logAfter = now + intervalNanos;
        unlogged = 0;
        return true;
    }

    /** Failures so far, logged or not. */
    public long count()
    {
        return count;
    }
}

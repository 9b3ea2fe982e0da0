package io.weft.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The tests' one way to wait for a condition: poll it until it holds, fail with what was awaited when the deadline
 * passes. The pause between polls starts at a millisecond and doubles up to a ceiling, so a quick condition is seen
 * at once and a slow one (a member process, a view change) costs the two cores little.
 */
public final class Await
{
    /** The deadline when a test names none: long enough for a loaded two-core machine, short of the test's bound. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Duration DEFAULT_LONGEST_PAUSE = Duration.ofMillis(20);

    private Await()
    {
    }

    /** Waits up to {@link #DEFAULT_TIMEOUT} for {@code condition}. */
    public static void until(final BooleanSupplier condition, final String what)
    {
        until(condition, DEFAULT_TIMEOUT, what);
    }

    /** Waits up to {@link #DEFAULT_TIMEOUT}; {@code what} is asked only on failure (it may say the state reached). */
    public static void until(final BooleanSupplier condition, final Supplier<String> what)
    {
        until(condition, DEFAULT_TIMEOUT, DEFAULT_LONGEST_PAUSE, what);
    }

    /** Waits up to {@code timeout} for {@code condition}; the failure names {@code what}. */
    public static void until(final BooleanSupplier condition, final Duration timeout, final String what)
    {
        until(condition, timeout, DEFAULT_LONGEST_PAUSE, () -> what);
    }

    /** Waits up to {@code timeout}; {@code what} is asked only on failure (it may report the state reached). */
    public static void until(final BooleanSupplier condition, final Duration timeout, final Supplier<String> what)
    {
        until(condition, timeout, DEFAULT_LONGEST_PAUSE, what);
    }

    /**
     * Waits up to {@code timeout}, pausing at most {@code longestPause} between polls (longer for a costly
     * condition, such as fetching a page).
     *
     * @throws AssertionError naming {@code what} when the deadline passes, or when the thread is interrupted
     */
    public static void until(final BooleanSupplier condition, final Duration timeout, final Duration longestPause,
        final Supplier<String> what)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final long longest = Math.max(FIRST_PAUSE_NANOS, longestPause.toNanos());
        long pause = FIRST_PAUSE_NANOS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what.get());
            }
            try
            {
                Thread.sleep(Duration.ofNanos(pause));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what.get(), ex);
            }
            pause = Math.min(longest, pause * 2);
        }
    }
}

package io.weft.testkit;

import io.weft.config.MemberAddress;
import io.weft.config.WeftConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs a blocking open (of a table or group member) on its own platform thread. Members of one group open
 * concurrently and each waits for the others, so the common pool (one thread on two cores) would deadlock them.
 */
public final class Async
{
    /** How long a member may take to open: its peers' opens and the transport's connect timeout included. */
    private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(60);

    private Async()
    {
    }

    public static <T> CompletableFuture<T> open(final Supplier<T> opener)
    {
        final CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon(true).start(() ->
        {
            try
            {
                f.complete(opener.get());
            }
            catch (final Throwable t)
            {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** Opens every member of {@code config}'s group at once ({@code opener} of its member configuration), by rank. */
    public static <T> List<T> openAll(final WeftConfig config, final Function<WeftConfig, T> opener) throws Exception
    {
        final List<Supplier<T>> openers = new ArrayList<>();
        for (final MemberAddress address : config.group().members())
        {
            final WeftConfig member = config.forMember(address.id());
            openers.add(() -> opener.apply(member));
        }
        return openAll(openers);
    }

    /**
     * Runs every opener at once and returns what they opened, in order. When one fails, the others that opened are
     * closed before the failure is thrown, and one that opens after its deadline is closed when it does, so a failed
     * test leaves no member behind. Interrupted, it stops waiting (the members still opening are closed when they
     * open), throws the {@link InterruptedException} and leaves the thread's interrupt flag set.
     */
    public static <T> List<T> openAll(final List<? extends Supplier<T>> openers) throws Exception
    {
        return openAll(openers, OPEN_TIMEOUT);
    }

    static <T> List<T> openAll(final List<? extends Supplier<T>> openers, final Duration timeout) throws Exception
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final List<CompletableFuture<T>> opening = new ArrayList<>();
        for (final Supplier<T> opener : openers)
        {
            opening.add(open(opener));
        }
        final List<T> opened = new ArrayList<>();
        final List<CompletableFuture<T>> late = new ArrayList<>();
        Exception failure = null;
        for (final CompletableFuture<T> f : opening)
        {
            try
            {
                opened.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            catch (final TimeoutException | InterruptedException ex)
            {
                if (ex instanceof InterruptedException)
                {
                    Thread.currentThread().interrupt(); // kept set: the members still opening are waited for no more
                }
                late.add(f);
                failure = failure == null ? ex : failure;
            }
            catch (final Exception ex)
            {
                failure = failure == null ? ex : failure;
            }
        }
        if (failure != null)
        {
            for (final CompletableFuture<T> f : late)
            {
                f.thenAccept(t -> close(t, null));
            }
            for (final T t : opened)
            {
                close(t, failure);
            }
            throw failure;
        }
        return opened;
    }

    /** Closes {@code opened} if it can be closed; a failure to close is added to {@code failure}, if any. */
    private static void close(final Object opened, final Exception failure)
    {
        if (opened instanceof AutoCloseable c)
        {
            try
            {
                c.close();
            }
            catch (final Exception ex)
            {
                if (failure != null)
                {
                    failure.addSuppressed(ex);
                }
            }
        }
    }
}

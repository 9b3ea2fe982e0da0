package io.weft.testkit;

import io.weft.config.MemberAddress;
import io.weft.config.WeftConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs a blocking open (of a table or group member) on its own platform thread. Members of one group open
 * concurrently and each waits for the others, so the common pool (one thread on two cores) would deadlock them.
 */
public final class Async
{
    /** How long a member may take to open: its peers' opens and the transport's connect timeout included. */
    private static final long OPEN_TIMEOUT_SECONDS = 60;

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
     * closed before the failure is thrown, so a failed test leaves no member behind.
     */
    public static <T> List<T> openAll(final List<? extends Supplier<T>> openers) throws Exception
    {
        final List<CompletableFuture<T>> opening = new ArrayList<>();
        for (final Supplier<T> opener : openers)
        {
            opening.add(open(opener));
        }
        final List<T> opened = new ArrayList<>();
        Exception failure = null;
        for (final CompletableFuture<T> f : opening)
        {
            try
            {
                opened.add(f.get(OPEN_TIMEOUT_SECONDS, TimeUnit.SECONDS));
            }
            catch (final Exception ex)
            {
                failure = failure == null ? ex : failure;
            }
        }
        if (failure != null)
        {
            for (final T t : opened)
            {
                if (t instanceof AutoCloseable c)
                {
                    try
                    {
                        c.close();
                    }
                    catch (final Exception ex)
                    {
                        failure.addSuppressed(ex);
                    }
                }
            }
            throw failure;
        }
        return opened;
    }
}

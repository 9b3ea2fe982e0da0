package io.weft.testkit;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Runs a blocking open (of a table or group member) on its own platform thread. Members of one group open
 * concurrently and each waits for the others, so the common pool (one thread on two cores) would deadlock them.
 */
public final class Async
{
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
}

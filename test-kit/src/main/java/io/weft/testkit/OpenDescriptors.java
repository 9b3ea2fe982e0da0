package io.weft.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** The file descriptors this JVM holds open (/proc/self/fd): a test that something releases what it opened. */
public final class OpenDescriptors
{
    private static final Path FDS = Path.of("/proc/self/fd");

    private OpenDescriptors()
    {
    }

    /** Every descriptor open now. */
    public static long count()
    {
        return count(null);
    }

    /**
     * The descriptors open now whose target {@code which} accepts: a path, or a kind such as
     * {@code anon_inode:[pidfd]}, {@code anon_inode:[eventfd]} or {@code socket:[...]}; null accepts all.
     */
    public static long count(final Predicate<String> which)
    {
        try (Stream<Path> fds = Files.list(FDS))
        {
            return which == null ? fds.count() : fds.filter(fd -> accepts(fd, which)).count();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static boolean accepts(final Path fd, final Predicate<String> which)
    {
        try
        {
            return which.test(Files.readSymbolicLink(fd).toString());
        }
        catch (final IOException ex)
        {
            return false; // closed meanwhile
        }
    }
}

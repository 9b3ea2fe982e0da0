package io.weft.testkit;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A disk that fills: a tmpfs of a few MiB mounted over a directory by a test, unmounted by {@link #close()} (also on
 * failure; lazily, so a process still holding a file in it does not keep it mounted). Needs root, as namespaces do.
 */
public final class SmallDisk implements AutoCloseable
{
    private final Path directory;

    private SmallDisk(final Path directory)
    {
        this.directory = directory;
    }

    /** Mounts a tmpfs of {@code mebibytes} MiB over {@code directory} (created if needed). */
    public static SmallDisk mount(final Path directory, final int mebibytes) throws IOException, InterruptedException
    {
        Files.createDirectories(directory);
        Namespaces.run("mount", "-t", "tmpfs", "-o", "size=" + mebibytes + "m", "weft-small-disk",
            directory.toString());
        return new SmallDisk(directory);
    }

    /** Makes room: the disk grows to {@code mebibytes} MiB, what it holds kept (a remount). */
    public void grow(final int mebibytes) throws IOException, InterruptedException
    {
        Namespaces.run("mount", "-o", "remount,size=" + mebibytes + "m", directory.toString());
    }

    /** Skips the calling test, saying why, where this process may not mount. */
    public static void assumeAvailable()
    {
        final String why = Namespaces.notRoot("small disks (tmpfs mounts)");
        Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
    }

    @Override
    public void close() throws IOException, InterruptedException
    {
        Namespaces.run("umount", "-l", directory.toString());
    }
}

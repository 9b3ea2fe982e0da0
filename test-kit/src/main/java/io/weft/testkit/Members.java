package io.weft.testkit;

import io.weft.config.WeftConfig;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes and shm files of one test group; {@link #close()} kills what still runs and removes the files, also
 * the regions libfabric's shm provider leaves in /dev/shm ({@code <pid>:<n>:<n>}) when a member is killed.
 */
public final class Members implements AutoCloseable
{
    private final WeftConfig config;
    private final List<MemberProcess> processes = new ArrayList<>();

    public Members(final WeftConfig config)
    {
        this.config = config;
    }

    public MemberProcess add(final MemberProcess process)
    {
        processes.add(process);
        return process;
    }

    public List<MemberProcess> processes()
    {
        return processes;
    }

    @Override
    public void close() throws IOException
    {
        processes.forEach(MemberProcess::close);
        deleteShmFiles(config);
        final Path devShm = Path.of("/dev/shm");
        if (Files.isDirectory(devShm))
        {
            for (final MemberProcess p : processes)
            {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(devShm, p.pid() + ":*"))
                {
                    for (final Path f : files)
                    {
                        Files.deleteIfExists(f);
                    }
                }
            }
        }
    }

    public static void deleteShmFiles(final WeftConfig config) throws IOException
    {
        final Path dir = config.transport().shm().directory();
        if (!Files.isDirectory(dir))
        {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "weft-" + config.group().name() + "-*"))
        {
            for (final Path f : files)
            {
                Files.deleteIfExists(f);
            }
        }
    }
}

package io.weft.config;

import java.nio.file.Path;

/**
 * Options of the shared-memory transport.
 *
 * @param directory where the table files live; /dev/shm keeps them in memory.
 */
public record ShmOptions(Path directory)
{
    public ShmOptions
    {
        WeftConfigException.check(directory != null && directory.isAbsolute(), "weft.transport.shm.directory",
            directory, "must be an absolute directory path");
    }
}

package io.weft.config;

import java.nio.file.Path;

/**
 * Options of the shared-memory transport.
 *
 * @param directory where the table files live; /dev/shm keeps them in memory.
 * @param zeroCopy  whether a member reads other rows in place from their owners' files (a push is a doorbell) rather
 *                  than from copies pushed into its own file.
 */
public record ShmOptions(Path directory, boolean zeroCopy)
{
    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public ShmOptions
    {
        WeftConfigException.check(directory != null && directory.isAbsolute(), "weft.transport.shm.directory",
            directory, "must be an absolute directory path");
    }
}

package io.weft.tools;

import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How a member program of the multi-process tests runs: joining or starting the group, its send rate and message
 * size, where its logs and command files go, and how long before it gives up (vs-member, dds-member).
 */
final class LoggedRunOptions
{
    @Option(names = "--join", description = "Join the running group instead of starting view 0.")
    boolean join;

    @Option(names = "--rate", defaultValue = "1000", description = "Messages per second (0: as fast as possible).")
    long rate;

    @Option(names = "--size", defaultValue = "64", description = "Message size in bytes, at least 16.")
    int size;

    @Option(names = "--dir", required = true, description = "Directory for the logs and command files.")
    Path dir;

    @Option(names = "--timeout", defaultValue = "PT5M", description = "Give up after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    /** What is wrong with these options, or null; creates the directory when all is right. */
    String problem() throws IOException
    {
        if (size < 16 || rate < 0)
        {
            return "--size must be at least 16 and --rate at least 0, were " + size + " and " + rate;
        }
        Files.createDirectories(dir);
        return null;
    }
}

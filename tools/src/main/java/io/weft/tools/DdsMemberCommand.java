package io.weft.tools;

import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** One participant of a DDS run (the DDS tests): publishes numbered samples on its topics, logs what it reads. */
@Command(name = "dds-member", hidden = true,
    description = "Run one DDS participant that writes numbered samples to its topics and logs every sample it reads.")
final class DdsMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Option(names = "--join", description = "Join the running domain instead of starting view 0.")
    boolean join;

    @Option(names = "--count", defaultValue = "1000", description = "Samples written per topic this member publishes.")
    long count;

    @Option(names = "--rate", defaultValue = "1000", description = "Samples per second per topic (0: as fast as possible).")
    long rate;

    @Option(names = "--size", defaultValue = "64", description = "Sample size in bytes, at least 16.")
    int size;

    @Option(names = "--dir", required = true, description = "Directory for the read logs and command files.")
    Path dir;

    @Option(names = "--timeout", defaultValue = "PT3M", description = "Give up after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws Exception
    {
        if (size < 16 || rate < 0 || count < 0)
        {
            System.err.println("weft: --size must be at least 16, --rate and --count at least 0");
            return Weft.EXIT_CONFIG;
        }
        final WeftConfig c = member.load();
        if (c.dds().topics().isEmpty())
        {
            System.err.println("weft: configuration error: weft.dds.topics is empty in " + member.file);
            return Weft.EXIT_CONFIG;
        }
        Files.createDirectories(dir);
        return new DdsMember(c, join, count, rate, size, dir, timeout).run();
    }
}

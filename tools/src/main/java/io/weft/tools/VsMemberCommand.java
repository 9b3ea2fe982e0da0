package io.weft.tools;

import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** One member of a virtual-synchrony run (membership tests, {@code chaos}): sends, logs deliveries, obeys commands. */
@Command(name = "vs-member", hidden = true,
    description = "Run one member that sends numbered messages and logs its deliveries and views.")
final class VsMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Option(names = "--join", description = "Join the running group instead of starting view 0.")
    boolean join;

    @Option(names = "--rate", defaultValue = "1000", description = "Messages per second (0: as fast as possible).")
    long rate;

    @Option(names = "--size", defaultValue = "64", description = "Message size in bytes, at least 16.")
    int size;

    @Option(names = "--dir", required = true, description = "Directory for the delivery log and command files.")
    Path dir;

    @Option(names = "--timeout", defaultValue = "PT5M", description = "Give up after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--callback-send", description = "The delivery callback tries a send that waits; prints the outcome.")
    boolean callbackSend;

    @Override
    public Integer call() throws Exception
    {
        if (size < 16 || rate < 0)
        {
            System.err.println("weft: --size must be at least 16 and --rate at least 0");
            return Weft.EXIT_CONFIG;
        }
        final WeftConfig c = member.load();
        if (c.subgroups().isEmpty())
        {
            System.err.println("weft: configuration error: weft.subgroups is empty in " + member.file);
            return Weft.EXIT_CONFIG;
        }
        Files.createDirectories(dir);
        return new VsMember(c, new VsMember.Options(join, rate, size, dir, timeout, callbackSend), System.out).run();
    }
}

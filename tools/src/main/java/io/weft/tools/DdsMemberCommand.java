package io.weft.tools;

import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/** One participant of a DDS run (the DDS tests): publishes numbered samples on its topics, logs what it reads. */
@Command(name = "dds-member", hidden = true,
    description = "Run one DDS participant that writes numbered samples to its topics and logs every sample it reads.")
final class DdsMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Mixin
    LoggedRunOptions run = new LoggedRunOptions();

    @Option(names = "--count", defaultValue = "1000", description = "Samples written per topic this member publishes.")
    long count;

    @Override
    public Integer call() throws Exception
    {
        if (count < 0)
        {
            return Weft.refuse("--count must be at least 0, was " + count);
        }
        final WeftConfig c = member.load();
        if (c.dds().topics().isEmpty())
        {
            return Weft.refuse("configuration error: weft.dds.topics is empty in " + member.file);
        }
        final String problem = run.problem();
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        return new DdsMember(c, run.join, count, run.rate, run.size, run.dir, run.timeout).run();
    }
}

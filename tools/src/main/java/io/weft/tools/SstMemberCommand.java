package io.weft.tools;

import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.concurrent.Callable;

/** One SST demo member; {@code sst-demo} starts these, and they can be started by hand from a sample file. */
@Command(name = "sst-member", description = "Run one member of the SST demo from a configuration file.")
final class SstMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Option(names = "--count", defaultValue = "1000000", description = "Counter target or rounds (default ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--workload", defaultValue = "counter", description = "counter or guarded (default ${DEFAULT-VALUE}).")
    SstMember.Workload workload;

    @Option(names = "--timeout", defaultValue = "PT10M", description = "Give up after this ISO-8601 duration (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call()
    {
        if (count < 1 || count > Integer.MAX_VALUE)
        {
            System.err.println("weft: --count must be in 1.." + Integer.MAX_VALUE + ", was " + count);
            return Weft.EXIT_CONFIG;
        }
        final WeftConfig c = member.load();
        return new SstMember(c, workload, count, timeout, System.out).run();
    }
}

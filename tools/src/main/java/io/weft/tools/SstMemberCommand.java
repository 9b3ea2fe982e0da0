package io.weft.tools;

import io.weft.config.ConfigLoader;
import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/** One SST demo member; {@code sst-demo} starts these, and they can be started by hand from a sample file. */
@Command(name = "sst-member", description = "Run one member of the SST demo from a configuration file.")
final class SstMemberCommand implements Callable<Integer>
{
    @Option(names = "--config", required = true, description = "HOCON configuration file (see config/samples).")
    Path config;

    @Option(names = "--member", required = true, description = "This member's id (overrides weft.member.id).")
    int member;

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
        final WeftConfig c = ConfigLoader.load(config, Map.of("weft.member.id", member));
        return new SstMember(c, workload, count, timeout, System.out).run();
    }
}

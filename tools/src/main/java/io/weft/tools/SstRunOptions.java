package io.weft.tools;

import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;

/** What each member of the SST demo does and for how long (sst-demo, and the sst-member processes it starts). */
final class SstRunOptions
{
    @Option(names = "--count", defaultValue = "1000000",
        description = "Counter target or rounds (default ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--workload", defaultValue = "counter",
        description = "counter or guarded (default ${DEFAULT-VALUE}).")
    SstMember.Workload workload;

    @Option(names = "--timeout", defaultValue = "PT10M",
        description = "Give up after this ISO-8601 duration (default ${DEFAULT-VALUE}).")
    Duration timeout;

    /** These options as arguments of a member process. */
    List<String> args()
    {
        return List.of("--count", String.valueOf(count), "--workload", workload.name(),
            "--timeout", timeout.toString());
    }

    /** What is wrong with these options, or null. */
    String problem()
    {
        return count >= 1 && count <= Integer.MAX_VALUE ? null :
            "--count must be in 1.." + Integer.MAX_VALUE + ", was " + count;
    }
}

package io.weft.tools;

import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** One member of a multicast run; {@code demo} starts these, and they can be started by hand from a sample file. */
@Command(name = "mc-member", description = "Run one multicast member from a configuration file and check its deliveries.")
final class McMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Option(names = "--messages", defaultValue = "-1", description = "Data messages per sender and subgroup; -1: send for --duration.")
    long messages;

    @Option(names = "--duration", defaultValue = "PT10S", description = "How long to send when --messages is -1 (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--size", defaultValue = "128", description = "Message size in bytes (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--silent", defaultValue = "", description = "Comma-separated ids of declared senders that never send.")
    String silent;

    @Option(names = "--idle-subgroups", defaultValue = "", description = "Comma-separated subgroups in which nobody sends.")
    String idleSubgroups;

    @Option(names = "--quiescence", description = "After the run, check that no null is sent for a second.")
    boolean quiescence;

    @Mixin
    AppWork work = new AppWork();

    @Option(names = "--report", description = "Print throughput and latency every second.")
    boolean report;

    @Option(names = "--invoker", description = "Invoker mode: the main thread runs the passes (Group.invoker()); the " +
        "senders are threads of their own.")
    boolean invoker;

    @Option(names = "--timeout", defaultValue = "PT5M", description = "Give up after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--then", split = ",", description = "Comma-separated configuration files of further groups: " +
        "the same run in each, one after another in this process, until one fails (tests: one JVM for many groups).")
    List<Path> then = List.of();

    @Override
    public Integer call() throws Exception
    {
        final String problem = size < 1 ? "--size must be at least 1, was " + size : work.problem();
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        final List<Path> files = new ArrayList<>(List.of(member.file));
        files.addAll(then);
        final List<WeftConfig> configs = new ArrayList<>();
        for (final Path file : files)
        {
            final WeftConfig c = member.load(file); // every file checked before the first group opens
            if (c.subgroups().isEmpty())
            {
                return Weft.refuse("configuration error: weft.subgroups is empty in " + file +
                    "; a multicast member needs at least one subgroup");
            }
            configs.add(c);
        }
        final McMember.Options options = new McMember.Options(messages, duration, size, work.delayNanos(),
            McMember.parseIds(silent),
            idleSubgroups.isBlank() ? java.util.Set.of() : java.util.Set.of(idleSubgroups.split(",")),
            work.callbackNanos(), report, quiescence, timeout, invoker);
        int code = SstMember.EXIT_OK;
        for (int i = 0; i < configs.size() && code == SstMember.EXIT_OK; i++)
        {
            code = new McMember(configs.get(i), options, System.out).run();
        }
        return code;
    }
}

package io.weft.tools;

import io.weft.config.ConfigWriter;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.LocalGroups;
import io.weft.testkit.MemberProcesses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * {@code weft demo}, the README's first command: three member processes multicast in one subgroup, every member
 * a sender, for about ten seconds, printing throughput and latency every second; then each prints the hash of the
 * sequence it delivered, and the demo exits 0 only if all of them delivered the identical sequence.
 */
@Command(name = "demo", description = "Atomic multicast: N member processes, all senders, then compare what they delivered.")
final class DemoCommand implements Callable<Integer>
{
    @Mixin
    LocalGroupOptions group = new LocalGroupOptions("shm", 3, 2, 16, false);

    @Option(names = "--duration", defaultValue = "PT10S", description = "How long every member sends (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--size", defaultValue = "128", description = "Message size in bytes, 1..1024 (default ${DEFAULT-VALUE}).")
    int size;

    @Override
    public Integer call() throws Exception
    {
        final String problem = group.problem();
        if (problem != null || size < 1 || size > 1024)
        {
            return Weft.refuse(problem != null ? problem : "--size must be in 1..1024, was " + size);
        }
        if (duration.isZero() || duration.toHours() >= 24)
        {
            return Weft.refuse("--duration must be positive and under a day, was " + duration);
        }
        final TransportKind kind = group.transport();
        final int members = group.members();
        final String group = "demo-" + ProcessHandle.current().pid();
        final WeftConfig config = WeftConfig.builder().memberId(0).groupName(group)
            .members(LocalGroups.loopbackMembers(members)).transport(kind)
            .subgroups(List.of(SubgroupConfig.allMembers("demo", 100, 1024))).build();
        final Path dir = Files.createTempDirectory("weft-demo");
        final Path file = Files.writeString(dir.resolve("group.conf"), ConfigWriter.render(config));
        System.out.printf("demo: %d members on %s, one ordered subgroup, every member sends %d-byte messages for %s%n",
            members, kind.configName(), size, duration);
        try (MemberProcesses processes = new MemberProcesses(System.out);
            LauncherEnd ignored = new LauncherEnd(processes, dir))
        {
            for (int i = 0; i < members; i++)
            {
                processes.start("m" + i, Weft.class, List.of("mc-member", "--config", file.toString(),
                    "--member", String.valueOf(i),
                    "--duration", duration.toString(), "--size", String.valueOf(size), "--report",
                    "--timeout", duration.plusMinutes(2).toString()));
            }
            final int[] codes = processes.awaitAll(duration.plusMinutes(3).toNanos());
            if (codes == null)
            {
                System.out.println("demo: FAILED: members still running; killed");
                return SstMember.EXIT_TIMEOUT;
            }
            final TreeMap<String, List<String>> hashes = new TreeMap<>();
            for (int i = 0; i < members; i++)
            {
                final List<String> found = new ArrayList<>();
                for (final String line : processes.lines(i))
                {
                    final int at = line.indexOf("HASH ");
                    if (at >= 0)
                    {
                        found.add(line.substring(at, line.indexOf(' ', line.indexOf(' ', at + 5) + 1)));
                    }
                }
                hashes.put("m" + i, found);
            }
            final boolean identical = hashes.values().stream().distinct().count() == 1 &&
                !hashes.firstEntry().getValue().isEmpty();
            final boolean ok = identical && Arrays.stream(codes).allMatch(c -> c == 0);
            hashes.forEach((m, h) -> System.out.printf("demo: %s %s%n", m, h));
            System.out.printf("demo: %s, member exit codes %s%n", ok ? "OK: all " + members +
                " members delivered the identical sequence" : "FAILED" + (identical ? "" : ": sequences differ"),
                Arrays.toString(codes));
            return ok ? 0 : SstMember.EXIT_VIOLATION;
        }
    }
}

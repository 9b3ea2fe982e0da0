package io.weft.tools;

import io.weft.config.ConfigWriter;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.LocalGroups;
import io.weft.testkit.MemberProcesses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code weft sst-demo}: starts N member processes on one host that each drive their own row of the shared state
 * table and check everybody else's; exits 0 only if every member exits 0.
 */
@Command(name = "sst-demo", description = "Run N member processes over the shared state table and check what they saw.")
final class SstDemoCommand implements Callable<Integer>
{
    @Mixin
    LocalGroupOptions group = new LocalGroupOptions("shm", 3, 2, 16, true);

    @Option(names = "--count", defaultValue = "1000000", description = "Counter target or rounds (default ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--workload", defaultValue = "counter", description = "counter or guarded (default ${DEFAULT-VALUE}).")
    SstMember.Workload workload;

    @Mixin
    RdmaChoice rdma = new RdmaChoice();

    @Option(names = "--timeout", defaultValue = "PT10M", description = "Give up after this ISO-8601 duration (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws Exception
    {
        if (group.problem() != null)
        {
            return Weft.refuse(group.problem());
        }
        if (count < 1 || count > Integer.MAX_VALUE)
        {
            return Weft.refuse("--count must be in 1.." + Integer.MAX_VALUE + ", was " + count);
        }
        return run(group.transport(), group.members());
    }

    private int run(final TransportKind kind, final int members) throws Exception
    {
        final String group = "sst-demo-" + ProcessHandle.current().pid();
        final WeftConfig config = WeftConfig.builder().memberId(0).groupName(group).members(LocalGroups.loopbackMembers(members))
            .transport(kind).rdma(rdma.options()).build();
        final Path dir = Files.createTempDirectory("weft-sst-demo");
        final Path file = Files.writeString(dir.resolve("group.conf"), ConfigWriter.render(config));
        System.out.printf("sst-demo: %d members on %s, workload %s to %d (config %s)%n", members, kind.configName(), workload,
            count, file);
        final long start = System.nanoTime();
        try (MemberProcesses processes = new MemberProcesses(System.out))
        {
            for (int i = 0; i < members; i++)
            {
                processes.start("m" + i, Weft.class, List.of("sst-member", "--config", file.toString(), "--member", String.valueOf(i),
                    "--count", String.valueOf(count), "--workload", workload.name(), "--timeout", timeout.toString()));
            }
            final int[] codes = processes.awaitAll(timeout.plusSeconds(30).toNanos());
            final double seconds = (System.nanoTime() - start) / 1e9;
            if (codes == null)
            {
                System.out.printf("sst-demo: FAILED: members still running after %s; killed%n", timeout);
                return SstMember.EXIT_TIMEOUT;
            }
            final boolean ok = Arrays.stream(codes).allMatch(c -> c == 0);
            System.out.printf("sst-demo: %s in %.2fs, member exit codes %s%n", ok ? "OK: every member saw every " +
                "other's " + (workload == SstMember.Workload.counter ? "counter rise monotonically to exactly " + count
                : count + " guarded payloads intact") : "FAILED", seconds, Arrays.toString(codes));
            return ok ? 0 : Arrays.stream(codes).filter(c -> c != 0).findFirst().orElse(1);
        }
        finally
        {
            cleanUp(dir, config);
        }
    }

    private static void cleanUp(final Path dir, final WeftConfig config) throws IOException
    {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
        {
            for (final Path f : files)
            {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(dir);
        // a member killed from outside leaves its table file; the next run would remove it, but do it now
        final Path shm = config.transport().shm().directory();
        if (Files.isDirectory(shm))
        {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(shm, "weft-" + config.group().name() + "-*"))
            {
                for (final Path f : files)
                {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}

package io.weft.tools;

import io.weft.config.ConfigWriter;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.LocalGroups;
import io.weft.testkit.MemberProcesses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

    @Mixin
    SstRunOptions options = new SstRunOptions();

    @Mixin
    RdmaChoice rdma = new RdmaChoice();

    @Override
    public Integer call() throws Exception
    {
        final String problem = group.problem() != null ? group.problem() : options.problem();
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        return run(group.transport(), group.members());
    }

    private int run(final TransportKind kind, final int members) throws Exception
    {
        final String group = "sst-demo-" + ProcessHandle.current().pid();
        final WeftConfig config = WeftConfig.builder().memberId(0).groupName(group)
            .members(LocalGroups.loopbackMembers(members)).transport(kind).rdma(rdma.options()).build();
        final Path dir = Files.createTempDirectory("weft-sst-demo");
        final Path file = Files.writeString(dir.resolve("group.conf"), ConfigWriter.render(config));
        final long count = options.count;
        System.out.printf("sst-demo: %d members on %s, workload %s to %d (config %s)%n", members, kind.configName(),
            options.workload, count, file);
        final long start = System.nanoTime();
        try (MemberProcesses processes = new MemberProcesses(System.out);
            LauncherEnd ignored = new LauncherEnd(processes, dir))
        {
            for (int i = 0; i < members; i++)
            {
                final List<String> args = new ArrayList<>(List.of("sst-member", "--config", file.toString(),
                    "--member", String.valueOf(i)));
                args.addAll(options.args());
                processes.start("m" + i, Weft.class, args);
            }
            final int[] codes = processes.awaitAll(options.timeout.plusSeconds(30).toNanos());
            final double seconds = (System.nanoTime() - start) / 1e9;
            if (codes == null)
            {
                System.out.printf("sst-demo: FAILED: members still running after %s; killed%n", options.timeout);
                return SstMember.EXIT_TIMEOUT;
            }
            final boolean ok = Arrays.stream(codes).allMatch(c -> c == 0);
            final String saw = options.workload == SstMember.Workload.counter ?
                "counter rise monotonically to exactly " + count : count + " guarded payloads intact";
            System.out.printf("sst-demo: %s in %.2fs, member exit codes %s%n",
                ok ? "OK: every member saw every other's " + saw : "FAILED", seconds, Arrays.toString(codes));
            return ok ? 0 : Arrays.stream(codes).filter(c -> c != 0).findFirst().orElse(1);
        }
        finally
        {
            removeTableFiles(config);
        }
    }

    private static void removeTableFiles(final WeftConfig config) throws IOException
    {
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

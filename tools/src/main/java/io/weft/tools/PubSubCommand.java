package io.weft.tools;

import io.weft.config.ConfigLoader;
import io.weft.config.ConfigWriter;
import io.weft.config.DdsConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.examples.pubsub.PubSubExample;
import io.weft.testkit.LocalGroups;
import io.weft.testkit.MemberProcesses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** {@code weft pubsub}: three copies of {@link PubSubExample} on loopback; checks they read the same greetings. */
@Command(name = "pubsub", description = "The pub/sub example: member processes write greetings to a DDS topic and " +
    "print every greeting they read; checks that all read the same ones in the same order.")
final class PubSubCommand implements Callable<Integer>
{
    @Mixin
    LocalGroupOptions group = new LocalGroupOptions("shm", 3, 2, 16, false);

    @Override
    public Integer call() throws Exception
    {
        if (group.problem() != null)
        {
            return Weft.refuse(group.problem());
        }
        final TransportKind kind = group.transport();
        final int members = group.members();
        final Path dir = Files.createTempDirectory("weft-pubsub");
        final WeftConfig config = WeftConfig.builder().memberId(0).groupName("pubsub-" + ProcessHandle.current().pid())
            .members(LocalGroups.loopbackMembers(members)).transport(kind)
            .dds(new DdsConfig(dir.resolve("logs"), List.of(new TopicConfig("greetings", 1, QosLevel.ATOMIC_MULTICAST,
                List.of(), List.of(), 64, 256, 16)))).build();
        final Path file = Files.writeString(dir.resolve("domain.conf"), ConfigWriter.render(config));
        ConfigLoader.load(file); // what each copy will read
        System.out.printf("pubsub: %d members on %s, topic greetings (atomic multicast), domain file %s%n", members,
            kind.configName(), file);
        try (MemberProcesses processes = new MemberProcesses(System.out);
            LauncherEnd ignored = new LauncherEnd(processes, dir))
        {
            for (int i = 0; i < members; i++)
            {
                processes.start("m" + i, PubSubExample.class, List.of(file.toString(), String.valueOf(i)));
            }
            final int[] codes = processes.awaitAll(TimeUnit.MINUTES.toNanos(2));
            if (codes == null)
            {
                System.out.println("pubsub: FAILED: members still running after 2 minutes; killed");
                return SstMember.EXIT_TIMEOUT;
            }
            final List<List<String>> reads = new ArrayList<>();
            for (int i = 0; i < members; i++)
            {
                reads.add(processes.lines(i).stream().filter(l -> l.contains(" read #"))
                    .map(l -> l.substring(l.indexOf(" read #"))).toList());
            }
            final boolean same = reads.stream().distinct().count() == 1 && reads.getFirst().size() == 5 * members;
            final boolean ok = same && Arrays.stream(codes).allMatch(c -> c == 0);
            System.out.printf("pubsub: %s, member exit codes %s%n", ok ? "OK: every member read the same " +
                5 * members + " greetings in the same order" : "FAILED" + (same ? "" : ": members read differently"),
                Arrays.toString(codes));
            return ok ? 0 : SstMember.EXIT_VIOLATION;
        }
    }
}

package io.weft.tools;

import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TcpThreading;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Total order and agreement across three member processes: every member delivers every message exactly once, in
 * the identical order, FIFO per sender, payload intact (checked byte by byte in {@link DeliveryCheck}).
 */
@Timeout(300)
class TotalOrderTest
{
    @TempDir
    Path dir;

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final TransportKind kind : new TransportKind[] {TransportKind.SHM, TransportKind.TCP})
        {
            // tcp both ways: the selector thread running the passes (merged) or beside a predicate thread
            final TcpThreading[] threadings = kind == TransportKind.TCP ?
                new TcpThreading[] {TcpThreading.MERGED, TcpThreading.SEPARATE} : new TcpThreading[] {TcpThreading.AUTO};
            for (final TcpThreading threading : threadings)
            {
                for (final String senders : new String[] {"all", "half", "one"})
                {
                    for (final int size : new int[] {1, 128, 1024, 10240})
                    {
                        cases.add(Arguments.of(kind, threading, senders, size));
                    }
                }
            }
        }
        return cases.stream();
    }

    static List<Integer> senders(final String pattern)
    {
        return switch (pattern)
        {
            case "all" -> List.of(0, 1, 2);
            case "half" -> List.of(0, 1);
            default -> List.of(2);
        };
    }

    @ParameterizedTest(name = "{0} ({1}) {2} senders {3} B")
    @MethodSource("cases")
    void everyMemberDeliversTheIdenticalSequence(final TransportKind kind, final TcpThreading threading,
        final String pattern, final int size) throws Exception
    {
        final List<Integer> senders = senders(pattern);
        final int perSender = size >= 10240 ? 1500 : 4000;
        final WeftConfig config = TestGroups.builder(kind, 3).tcpThreading(threading).smc(SmcConfig.SPINDLE)
            .subgroups(List.of(new SubgroupConfig("g", List.of(), senders, 32, size, DeliveryMode.ORDERED))).build();
        final McRun run = McRun.run(config, dir, "--messages", String.valueOf(perSender), "--size", String.valueOf(size));
        // size 1 carries no counter: the hash still covers sender, index and seq of every message
        run.assertIdentical("g", List.of(0, 1, 2), (long)perSender * senders.size());
    }

    /**
     * Invoker mode: the main thread of every member runs its passes ({@code Group.invoker()}) while sender threads
     * wait for slots that only those passes free; the same total order and agreement.
     */
    @ParameterizedTest(name = "{0} invoker")
    @org.junit.jupiter.params.provider.EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void invokerModeDeliversTheIdenticalSequence(final TransportKind kind) throws Exception
    {
        final WeftConfig config = TestGroups.builder(kind, 3).smc(SmcConfig.SPINDLE)
            .subgroups(List.of(new SubgroupConfig("g", List.of(), List.of(0, 1, 2), 32, 1024, DeliveryMode.ORDERED)))
            .build();
        final McRun run = McRun.run(config, dir, "--messages", "4000", "--size", "1024", "--invoker");
        run.assertIdentical("g", List.of(0, 1, 2), 3 * 4000L);
        run.outputs.forEach(out -> org.junit.jupiter.api.Assertions.assertTrue(out.contains("invoker mode"), out));
    }
}

package io.weft.tools;

import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportThreading;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
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
 * the identical order, FIFO per sender, payload intact (checked byte by byte in {@link DeliveryCheck}). The members
 * compile with C2 as well, as production members do ({@link MemberProcess#WITH_C2}): these runs are bound by
 * throughput, and C2's reorderings are what a missing barrier would show under.
 */
@Timeout(300)
class TotalOrderTest
{
    @TempDir
    Path dir;

    static Stream<Arguments> cases()
    {
        // tcp and rdma both ways: the selector (progress) thread running the passes (merged) or beside a predicate
        // thread
        return Stream.of(Arguments.of(TransportKind.SHM, TransportThreading.AUTO),
            Arguments.of(TransportKind.TCP, TransportThreading.MERGED), Arguments.of(TransportKind.TCP, TransportThreading.SEPARATE),
            Arguments.of(TransportKind.RDMA, TransportThreading.MERGED),
            Arguments.of(TransportKind.RDMA, TransportThreading.SEPARATE));
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

    /**
     * One subgroup per sender pattern (all, half, one) and message size (1, 128, 1 KiB, 10 KiB), twelve in one group
     * and one run: each member sends into each of its subgroups from a thread of its own, each subgroup at its
     * max-payload. One run per transport instead of one per case: three member JVMs cost about 3.5 s to start here.
     */
    @ParameterizedTest(name = "{0} ({1})")
    @MethodSource("cases")
    void everyMemberDeliversTheIdenticalSequenceInEverySubgroup(final TransportKind kind, final TransportThreading threading)
        throws Exception
    {
        final int perSender = 4000;
        final List<SubgroupConfig> subgroups = new ArrayList<>();
        for (final String pattern : new String[] {"all", "half", "one"})
        {
            for (final int size : new int[] {1, 128, 1024, 10240})
            {
                subgroups.add(new SubgroupConfig(pattern + size, List.of(), senders(pattern), 32, size,
                    DeliveryMode.ORDERED));
            }
        }
        final WeftConfig.Builder builder = TestGroups.builder(kind, 3).tcpThreading(threading).smc(SmcConfig.SPINDLE)
            .subgroups(subgroups);
        if (kind == TransportKind.RDMA)
        {
            builder.rdma(RdmaTransportTest.rdma("tcp;ofi_rxm").withThreading(threading));
        }
        final WeftConfig config = builder.build();
        final McRun run = McRun.run(MemberProcess.WITH_C2, config, dir, "--messages", String.valueOf(perSender),
            "--size", "10240");
        for (final SubgroupConfig sg : subgroups)
        {
            // size 1 carries no counter: the hash still covers sender, index and seq of every message
            run.assertIdentical(sg.name(), List.of(0, 1, 2), (long)perSender * sg.senders().size());
        }
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
        final McRun run = McRun.run(MemberProcess.WITH_C2, config, dir, "--messages", "4000", "--size", "1024",
            "--invoker");
        run.assertIdentical("g", List.of(0, 1, 2), 3 * 4000L);
        run.outputs.forEach(out -> org.junit.jupiter.api.Assertions.assertTrue(out.contains("invoker mode"), out));
    }
}

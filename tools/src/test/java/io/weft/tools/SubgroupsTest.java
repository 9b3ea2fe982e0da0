package io.weft.tools;

import io.weft.config.DeliveryMode;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Three overlapping subgroups with traffic in all at once, each with one identical order at its members, and an
 * idle fourth subgroup that holds up nobody. Also a slow (1 ms) delivery callback: slower, nothing lost.
 */
@Timeout(300)
class SubgroupsTest
{
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void overlappingSubgroupsEachKeepTheirOwnOrderAndAnIdleOneHoldsUpNobody(final TransportKind kind) throws Exception
    {
        final WeftConfig config = McRun.config(kind, 3, List.of(
            new SubgroupConfig("a", List.of(), List.of(), 32, 256, DeliveryMode.ORDERED),         // 0,1,2 all send
            new SubgroupConfig("b", List.of(0, 1), List.of(0), 16, 1024, DeliveryMode.ORDERED),   // 0,1; 0 sends
            new SubgroupConfig("c", List.of(1, 2), List.of(1, 2), 8, 64, DeliveryMode.ORDERED),   // 1,2 both send
            new SubgroupConfig("idle", List.of(), List.of(), 8, 64, DeliveryMode.ORDERED)),      // nobody sends
            SmcConfig.SPINDLE);
        final McRun run = McRun.run(config, dir, "--messages", "2000", "--size", "60", "--idle-subgroups", "idle");
        run.assertIdentical("a", List.of(0, 1, 2), 6000);
        run.assertIdentical("b", List.of(0, 1), 2000);
        run.assertIdentical("c", List.of(1, 2), 4000);
        run.assertIdentical("idle", List.of(0, 1, 2), 0);
        assertEquals(false, run.deliveries.get(2).containsKey("b"), "member 2 is not in subgroup b");
        assertEquals(false, run.deliveries.get(0).containsKey("c"), "member 0 is not in subgroup c");
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aOneMillisecondDeliveryCallbackSlowsDeliveryButLosesNothing(final TransportKind kind) throws Exception
    {
        final WeftConfig config = McRun.config(kind, 3, List.of(SubgroupConfig.allMembers("g", 16, 128)),
            SmcConfig.SPINDLE);
        final McRun run = McRun.run(config, dir, "--messages", "300", "--callback-us", "1000");
        run.assertIdentical("g", List.of(0, 1, 2), 900);
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void unorderedModeDeliversEverythingFifoPerSender(final TransportKind kind) throws Exception
    {
        final WeftConfig config = McRun.config(kind, 3, List.of(new SubgroupConfig("raw", List.of(), List.of(), 32, 128,
            DeliveryMode.UNORDERED)), SmcConfig.SPINDLE);
        final McRun run = McRun.run(config, dir, "--messages", "3000", "--size", "100");
        for (int m = 0; m < 3; m++)
        {
            // FIFO and payloads are checked per message by every member; counts must be complete
            assertEquals(9000, run.deliveries.get(m).get("raw").delivered());
            assertEquals(0, run.nulls(m, "raw"));
        }
    }
}

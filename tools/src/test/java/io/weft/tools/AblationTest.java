package io.weft.tools;

import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import org.junit.jupiter.api.Test;
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
 * The identical-sequence check holds for every combination of the five Spindle switches (shm), and for the paper's
 * incremental rows on tcp.
 */
@Timeout(300)
class AblationTest
{
    private static final int PER_SENDER = 1500;

    @TempDir
    Path dir;

    /**
     * All 32 combinations, one group each, run one after another by the same three member processes: a JVM start per
     * combination took most of the time. Subgroup {@code s<send>r<receive>d<delivery>n<null-sends>e<early release>},
     * for example s1r0d1n1e0, names the switches of its group.
     */
    @Test
    void identicalSequenceUnderEveryCombinationOnShm() throws Exception
    {
        final List<WeftConfig> configs = new ArrayList<>();
        for (int bits = 0; bits < 32; bits++)
        {
            final SmcConfig smc = new SmcConfig((bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0,
                (bits & 16) != 0);
            configs.add(McRun.config(TransportKind.SHM, 3, List.of(SubgroupConfig.allMembers(name(smc), 16, 256)),
                smc));
        }
        final McRun run = McRun.runInSequence(configs, dir, "--messages", String.valueOf(PER_SENDER), "--size", "100");
        for (final WeftConfig c : configs)
        {
            run.assertIdentical(name(c.smc()), List.of(0, 1, 2), 3L * PER_SENDER);
        }
    }

    /** The paper's incremental table: baseline, +delivery, +receive, +send batching, +null-sends, +early release. */
    static Stream<Arguments> incrementalRows()
    {
        return Stream.of(
            new SmcConfig(false, false, false, false, false),
            new SmcConfig(false, false, true, false, false),
            new SmcConfig(false, true, true, false, false),
            new SmcConfig(true, true, true, false, false),
            new SmcConfig(true, true, true, true, false),
            new SmcConfig(true, true, true, true, true)).map(Arguments::of);
    }

    @ParameterizedTest(name = "tcp {0}")
    @MethodSource("incrementalRows")
    void identicalSequenceUnderEachIncrementalRowOnTcp(final SmcConfig smc) throws Exception
    {
        final WeftConfig config = McRun.config(TransportKind.TCP, 3, List.of(SubgroupConfig.allMembers("g", 16, 256)),
            smc);
        final McRun run = McRun.run(config, dir, "--messages", String.valueOf(PER_SENDER), "--size", "100");
        run.assertIdentical("g", List.of(0, 1, 2), 3L * PER_SENDER);
    }

    private static String name(final SmcConfig smc)
    {
        return "s" + bit(smc.sendBatching()) + "r" + bit(smc.receiveBatching()) + "d" + bit(smc.deliveryBatching()) +
            "n" + bit(smc.nullSends()) + "e" + bit(smc.earlyLockRelease());
    }

    private static int bit(final boolean on)
    {
        return on ? 1 : 0;
    }
}

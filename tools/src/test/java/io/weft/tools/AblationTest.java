package io.weft.tools;

import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The identical-sequence check holds for every combination of the five Spindle switches (shm), and for the
 * paper's incremental rows on tcp. */
@Timeout(300)
class AblationTest
{
    @TempDir
    Path dir;

    static Stream<Arguments> combinations()
    {
        final List<Arguments> result = new ArrayList<>();
        for (int bits = 0; bits < 32; bits++)
        {
            result.add(Arguments.of(TransportKind.SHM, new SmcConfig((bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0,
                (bits & 8) != 0, (bits & 16) != 0)));
        }
        // the paper's incremental table: baseline, +delivery, +receive, +send batching, +null-sends, +early release
        result.add(Arguments.of(TransportKind.TCP, new SmcConfig(false, false, false, false, false)));
        result.add(Arguments.of(TransportKind.TCP, new SmcConfig(false, false, true, false, false)));
        result.add(Arguments.of(TransportKind.TCP, new SmcConfig(false, true, true, false, false)));
        result.add(Arguments.of(TransportKind.TCP, new SmcConfig(true, true, true, false, false)));
        result.add(Arguments.of(TransportKind.TCP, new SmcConfig(true, true, true, true, false)));
        result.add(Arguments.of(TransportKind.TCP, new SmcConfig(true, true, true, true, true)));
        return result.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("combinations")
    void identicalSequenceUnderEveryCombination(final TransportKind kind, final SmcConfig smc) throws Exception
    {
        final int perSender = 1500;
        final WeftConfig config = McRun.config(kind, 3, List.of(SubgroupConfig.allMembers("g", 16, 256)), smc);
        final McRun run = McRun.run(config, dir, "--messages", String.valueOf(perSender), "--size", "100");
        run.assertIdentical("g", List.of(0, 1, 2), 3L * perSender);
    }
}

package io.weft.tools;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** {@code weft demo} refuses arguments it cannot run before it starts a member. */
@Timeout(60)
class DemoArgumentsTest
{
    @ParameterizedTest
    @ValueSource(strings = {"--members=1", "--members=17", "--size=0", "--size=1025", "--duration=0s", "--duration=24h",
        "--transport=rdma"})
    void aBadArgumentIsRefusedWithTheConfigurationExitCode(final String argument)
    {
        final CommandRun run = CommandRun.of("demo", argument);
        assertEquals(Weft.EXIT_CONFIG, run.code(), argument);
        assertFalse(run.output().contains("demo: "), "no member was started for " + argument + ": " + run.output());
    }
}

package io.weft.tools;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** {@code weft demo}, {@code avionics} and {@code chaos} refuse arguments they cannot run before starting a member. */
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

    /**
     * The avionics demo and chaos name the argument that was wrong (the demo listed every rule, whichever was broken;
     * chaos ran a run of no step, which checked nothing, and exited 0).
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "avionics|--transport=rdma|--transport rdma: the demo runs on tcp or shm",
        "avionics|--phase=0s|--phase must be positive, was PT0S",
        "avionics|--hold=PT-1S|--hold must be 0 or more, was PT-1S",
        "avionics|--dashboard-port=70000|--dashboard-port must be in 0..65535, was 70000",
        "chaos|--duration=0s|--duration must be positive (a run without a fault checks nothing), was PT0S",
        "chaos|--rate=0|--rate must be at least 1, was 0"})
    void aCommandNamesTheBadArgument(final String command, final String argument, final String problem)
    {
        final CommandRun run = CommandRun.of(command, argument);
        assertEquals(Weft.EXIT_CONFIG, run.code(), argument);
        assertEquals("weft: " + problem, run.errors().strip());
        assertFalse(run.output().contains(command + ": "), "nothing was started for " + argument + ": " +
            run.output());
    }
}

package io.weft.bench;

import io.weft.tools.Weft;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code weft bench} refuses arguments it cannot run, naming the option, before it starts a member. */
@Timeout(60)
class BenchArgumentsTest
{
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--transport=udp  | --transport must be shm, tcp or rdma, was udp",
        "--members=1      | --members must be in 2..8, was 1",
        "--senders=some   | --senders must be all, half or one, was some",
        "--delayed=all    | --delayed must be one or half, was all",
        "--size=8         | --size must be in",
        "--window=-1      | --window must be in 1..100000, or 0 for auto, was -1",
        "--delay-us=-1    | --delay-us must be in 0..10000000, was -1",
        "--callback-us=-5 | --callback-us must be in 0..10000000, was -5",
        "--callback-us=10000001 | --callback-us must be in 0..10000000, was 10000001"})
    void aBadArgumentIsRefusedNamingIt(final String argument, final String error)
    {
        final PrintStream out = System.out;
        final PrintStream err = System.err;
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final int code;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try
        {
            code = Weft.registerConverters(new CommandLine(new BenchCommand())).execute(argument);
        }
        finally
        {
            System.setOut(out);
            System.setErr(err);
        }
        final String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(Weft.EXIT_CONFIG, code, text);
        assertTrue(text.contains("weft: " + error), text);
        assertFalse(text.contains("spindle"), "no run was started for " + argument + ": " + text);
    }
}

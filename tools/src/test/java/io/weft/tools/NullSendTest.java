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
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Spindle's null-send properties, with member processes: no stall, single sender sends no null, quiescence. */
@Timeout(300)
class NullSendTest
{
    @TempDir
    Path dir;

    private static WeftConfig config(final TransportKind kind, final List<Integer> senders)
    {
        return McRun.config(kind, 3, List.of(new SubgroupConfig("g", List.of(), senders, 32, 128, DeliveryMode.ORDERED)),
            SmcConfig.SPINDLE);
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aSenderDelayed100usAfterEachSendDoesNotStallTheOthers(final TransportKind kind) throws Exception
    {
        // member 2 busy-waits 100 us after each send; the run needs every member's 3000 messages delivered
        final WeftConfig config = config(kind, List.of(0, 1, 2));
        final Path file = io.weft.testkit.TestGroups.write(config, dir);
        final McRun run = runWithPerMemberArgs(config, file, new String[][] {
            {"--messages", "3000"}, {"--messages", "3000"}, {"--messages", "3000", "--delay-us", "100"}});
        run.assertIdentical("g", List.of(0, 1, 2), 9000);
        assertTrue(run.nulls(2, "g") > 0, "the delayed sender padded the order with nulls:\n" + run.outputs);
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aDeclaredSenderThatNeverSendsDoesNotStallTheOthers(final TransportKind kind) throws Exception
    {
        final McRun run = McRun.run(config(kind, List.of(0, 1, 2)), dir, "--messages", "3000", "--silent", "2",
            "--quiescence");
        run.assertIdentical("g", List.of(0, 1, 2), 6000);
        assertTrue(run.nulls(2, "g") >= 3000, "the silent sender's slots were filled with nulls:\n" + run.outputs);
        for (final String out : run.outputs)
        {
            assertTrue(out.contains("QUIESCENT: nulls"), "nulls kept flowing after every sender stopped:\n" + out);
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aSingleSenderNeverSendsANull(final TransportKind kind) throws Exception
    {
        final McRun run = McRun.run(config(kind, List.of(1)), dir, "--messages", "5000", "--quiescence");
        run.assertIdentical("g", List.of(0, 1, 2), 5000);
        for (int m = 0; m < 3; m++)
        {
            assertEquals(0, run.nulls(m, "g"), "member " + m + " sent nulls with a single sender");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void nullsStopWithinASecondOnceAllSendersStop(final TransportKind kind) throws Exception
    {
        final McRun run = McRun.run(config(kind, List.of(0, 1, 2)), dir, "--duration", "PT2S", "--quiescence");
        for (final String out : run.outputs)
        {
            assertTrue(out.contains("QUIESCENT: nulls"), "nulls kept flowing after every sender stopped:\n" + out);
        }
        final long delivered = run.deliveries.get(0).get("g").delivered();
        run.assertIdentical("g", List.of(0, 1, 2), delivered);
    }

    private McRun runWithPerMemberArgs(final WeftConfig config, final Path file, final String[][] args) throws Exception
    {
        return McRun.runEach(config, dir, file, args);
    }
}

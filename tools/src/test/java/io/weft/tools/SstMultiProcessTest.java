package io.weft.tools;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ordering contract across real processes on real transports: three member JVMs each drive their own row and
 * check the others' (see {@link SstMember} for what each checks).
 */
@Timeout(300)
class SstMultiProcessTest
{
    @TempDir
    Path dir;

    private void runGroup(final TransportKind kind, final SstMember.Workload workload, final long count)
        throws Exception
    {
        final String target = workload == SstMember.Workload.counter ? "counter reach " + count
            : "guard reach " + (count - 1);
        for (final String out : runMembers(TestGroups.config(kind, 3), dir, workload.name(), count))
        {
            assertTrue(out.contains("saw every live member's " + target), out);
        }
    }

    /** Runs one {@code sst-member} per member of {@code config} and returns their outputs, each ended clean. */
    static List<String> runMembers(final WeftConfig config, final Path dir, final String workload, final long count)
        throws Exception
    {
        final Path file = TestGroups.write(config, dir);
        final List<String> outputs = new ArrayList<>();
        try (Members members = new Members(config))
        {
            for (int i = 0; i < config.group().members().size(); i++)
            {
                members.add(MemberProcess.start("m" + i, dir, Weft.class, "sst-member", "--config", file.toString(),
                    "--member", String.valueOf(i), "--count", String.valueOf(count), "--workload", workload,
                    "--timeout", "PT4M"));
            }
            for (final MemberProcess m : members.processes())
            {
                final int code = m.awaitExit(Duration.ofMinutes(5));
                final String out = m.output();
                assertEquals(0, code, m.name() + " exited " + code + ":\n" + out);
                assertTrue(out.contains("RESULT ok") && out.contains("violations=0"), out);
                outputs.add(out);
            }
        }
        return outputs;
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void countersRiseMonotonicallyNeverTornToTheirLastValue(final TransportKind kind) throws Exception
    {
        // tcp pays a write per push and per peer: a million took 37 s of CI there, against 4 s on shm
        runGroup(kind, SstMember.Workload.counter, kind == TransportKind.SHM ? 1_000_000 : 200_000);
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aReaderThatSeesGuardGReadsPayloadG(final TransportKind kind) throws Exception
    {
        runGroup(kind, SstMember.Workload.guarded, 100_000);
    }
}

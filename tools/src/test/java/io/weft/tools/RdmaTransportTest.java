package io.weft.tools;

import io.weft.config.RdmaOptions;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.NativeBuild;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The foundation's table tests and the multicast's total-order test over the rdma transport between member processes:
 * the libfabric backend (one-sided fi_write) with the software providers tcp;ofi_rxm and shm, and the verbs backend
 * (RC queue pairs, RDMA WRITE) over the software verbs device of the test scope (test-kit/src/main/c/verbs_device.c). Skips
 * with the reason when libfabric, or the libibverbs headers for the device, are not installed.
 */
@Timeout(300)
class RdmaTransportTest
{
    private static final String VERBS = "verbs";

    @TempDir
    Path dir;

    /** A libfabric provider, or "verbs" for the verbs backend over the software verbs device. */
    static RdmaOptions rdma(final String choice) throws Exception
    {
        if (VERBS.equals(choice))
        {
            return NativeBuild.verbsDeviceOptions();
        }
        Assumptions.assumeTrue(io.weft.sst.rdma.RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
        return new RdmaOptions(choice);
    }

    static WeftConfig config(final String choice, final List<SubgroupConfig> subgroups) throws Exception
    {
        return TestGroups.builder(TransportKind.RDMA, 3).rdma(rdma(choice)).subgroups(subgroups).smc(SmcConfig.SPINDLE).build();
    }

    /** The verbs backend's work as the software device counted it: every write posted, few signalled, none failed. */
    private static void assertVerbsWork(final String choice, final String out)
    {
        if (!VERBS.equals(choice))
        {
            return;
        }
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile(
            "weft verbs device: posts=(\\d+) signalled=(\\d+) inline=(\\d+) zero-length=(\\d+) bytes=(\\d+) " +
            "errors=(\\d+)").matcher(out);
        assertTrue(m.find(), out);
        final long posts = Long.parseLong(m.group(1));
        assertTrue(posts > 0 && Long.parseLong(m.group(2)) < posts && Long.parseLong(m.group(3)) > 0, m.group());
        assertEquals(0, Long.parseLong(m.group(6)), m.group());
    }

    private void sst(final String choice, final String workload, final long count) throws Exception
    {
        for (final String out : SstMultiProcessTest.runMembers(config(choice, List.of()), dir, workload, count))
        {
            assertTrue(out.contains("rdma table of group"), out);
            assertVerbsWork(choice, out);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm", VERBS})
    void countersRiseMonotonicallyNeverTorn(final String choice) throws Exception
    {
        sst(choice, "counter", 20_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm", VERBS})
    void aReaderThatSeesGuardGReadsPayloadG(final String choice) throws Exception
    {
        sst(choice, "guarded", 5_000); // about 10 s per libfabric provider here
    }

    /**
     * Not on libfabric's shm provider: a member killed while it holds one of the provider's process-shared locks in a
     * peer's region blocks that peer in libfabric for good (README, docs/sst.md), which failed this case once in CI.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", VERBS})
    void survivorsReportAKilledMember(final String choice) throws Exception
    {
        final WeftConfig config = config(choice, List.of());
        final Path file = TestGroups.write(config, dir);
        final long count = 100_000; // the victim prints its first "wrote" after 10,000 pushes, whatever the provider's speed
        try (Members members = new Members(config))
        {
            for (int i = 0; i < 3; i++)
            {
                members.add(MemberProcess.start("m" + i, dir, Weft.class, "sst-member", "--config", file.toString(),
                    "--member", String.valueOf(i), "--count", String.valueOf(count), "--timeout", "PT2M"));
            }
            final MemberProcess victim = members.processes().get(2);
            victim.awaitOutput("member 2: wrote ", Duration.ofSeconds(60));
            victim.kill();
            for (int i = 0; i < 2; i++)
            {
                members.processes().get(i).awaitOutput("member " + i + ": member 2 failed:", Duration.ofSeconds(30));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm", VERBS})
    void threeMembersDeliverOneTotalOrder(final String choice) throws Exception
    {
        final WeftConfig config = config(choice, List.of(SubgroupConfig.allMembers("all", 100, 1024)));
        final McRun run = McRun.run(config, dir, "--messages", "2000", "--size", "128");
        run.assertIdentical("all", List.of(0, 1, 2), 6000);
    }
}

package io.weft.tools;

import io.weft.config.MemberAddress;
import io.weft.config.RdmaOptions;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.Namespaces;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two members in two network namespaces made by the test run the table over rdma (libfabric tcp;ofi_rxm): one-sided
 * writes cross a veth pair, not loopback. Needs root and libfabric; skips with the reason otherwise.
 */
@Timeout(180)
class RdmaNamespaceTest
{
    @TempDir
    Path dir;

    @Test
    void twoHostsRunTheTableOverRdma() throws Exception
    {
        Namespaces.assumeAvailable();
        Assumptions.assumeTrue(io.weft.sst.rdma.RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
        final String tag = "r" + Long.toString(ProcessHandle.current().pid() % 10_000, 36);
        try (Namespaces ns = Namespaces.claim(tag))
        {
            final List<Integer> ports = TestGroups.freePorts(4);
            final List<MemberAddress> book = List.of(new MemberAddress(0, ns.addressA, ports.get(0), ports.get(1)),
                new MemberAddress(1, ns.addressB, ports.get(2), ports.get(3)));
            final WeftConfig config = WeftConfig.builder().memberId(0).groupName("rdmans" + tag).members(book)
                .transport(TransportKind.RDMA).rdma(new RdmaOptions("tcp;ofi_rxm"))
                .connectTimeout(Duration.ofSeconds(30)).build();
            final Path file = TestGroups.write(config, dir);
            try (Members members = new Members(config))
            {
                final List<MemberProcess> p = new ArrayList<>();
                for (int id = 0; id < 2; id++)
                {
                    p.add(members.add(MemberProcess.startWith(ns.exec(id == 0 ? ns.a : ns.b), "r" + id, dir,
                        Weft.class, "sst-member", "--config", file.toString(), "--member", String.valueOf(id),
                        "--count", "5000", "--workload", "guarded", "--timeout", "PT2M")));
                }
                for (final MemberProcess m : p)
                {
                    final int code = m.awaitExit(Duration.ofMinutes(3));
                    final String out = m.output();
                    assertEquals(0, code, m.name() + " exited " + code + ":\n" + out);
                    assertTrue(out.contains("RESULT ok") && out.contains("violations=0"), out);
                    assertTrue(out.contains("rdma table of group"), out);
                }
            }
        }
    }
}

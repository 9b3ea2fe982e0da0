package io.weft.sst.rdma;

import io.weft.config.RdmaOptions;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.sst.TransportException;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What is not there is refused with one message saying what was looked for and what to pick instead: a libfabric
 * provider, an RDMA device for the verbs backend; and members that disagree on the backend are refused too.
 */
@Timeout(60)
class RdmaErrorsTest
{
    @Test
    void anUnknownProviderIsRefusedClearly()
    {
        Assumptions.assumeTrue(io.weft.sst.rdma.RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
        final WeftConfig config = TestGroups.builder(TransportKind.RDMA, 1).rdma(new RdmaOptions("verbs;ofi_rxm"))
            .connectTimeout(Duration.ofSeconds(5)).build();
        final TransportException ex = assertThrows(TransportException.class,
            () -> Sst.open(config, SstLayout.builder().counter("c").build()).close());
        assertTrue(ex.getMessage().contains("'verbs;ofi_rxm' is not available here"), ex.getMessage());
        assertTrue(ex.getMessage().contains("weft.transport.kind = tcp or shm"), ex.getMessage());
    }

    @Test
    void theVerbsBackendWithoutADeviceIsRefusedClearly()
    {
        Assumptions.assumeTrue(Verbs.installed(), "skipped: libibverbs1 is not installed");
        Assumptions.assumeTrue(Verbs.load().devices().isEmpty(), "skipped: this host has RDMA devices");
        final WeftConfig config = TestGroups.builder(TransportKind.RDMA, 1)
            .rdma(RdmaOptions.verbs(io.weft.config.VerbsOptions.DEFAULTS)).connectTimeout(Duration.ofSeconds(5)).build();
        final TransportException ex = assertThrows(TransportException.class,
            () -> Sst.open(config, SstLayout.builder().counter("c").build()).close());
        assertTrue(ex.getMessage().startsWith("no RDMA devices"), ex.getMessage());
        assertTrue(ex.getMessage().contains("weft.transport.rdma.backend = libfabric"), ex.getMessage());
    }

    @Test
    void membersOnDifferentBackendsAreRefused() throws Exception
    {
        Assumptions.assumeTrue(RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
        final WeftConfig base = TestGroups.config(TransportKind.RDMA, 2);
        final List<RdmaOptions> backends = List.of(new RdmaOptions("shm"),
            io.weft.testkit.NativeBuild.verbsDeviceOptions());
        final SstLayout layout = SstLayout.builder().counter("c").build();
        try (io.weft.testkit.Members ignored = new io.weft.testkit.Members(base))
        {
            final List<CompletableFuture<Sst>> opening = new ArrayList<>();
            for (int m = 0; m < 2; m++)
            {
                final WeftConfig config = WeftConfig.builder().memberId(m).groupName(base.group().name())
                    .members(base.group().members()).transport(TransportKind.RDMA).rdma(backends.get(m))
                    .connectTimeout(Duration.ofSeconds(10)).build();
                opening.add(io.weft.testkit.Async.open(() -> Sst.open(config, layout)));
            }
            // whoever reads the other's address first refuses it; the other then sees that member gone
            int refused = 0;
            for (int m = 0; m < 2; m++)
            {
                try
                {
                    final Sst sst = opening.get(m).get(30, TimeUnit.SECONDS);
                    assertTrue(sst.isFailedOrFrozen(1 - m), "member " + m + " opened with a member on another backend");
                    sst.close();
                }
                catch (final ExecutionException ex)
                {
                    final String message = ex.getCause().getMessage();
                    assertTrue(message.contains("uses another rdma backend than this member's " +
                        backends.get(m).backend().configName()) && message.contains("weft.transport.rdma.backend"), message);
                    refused++;
                }
            }
            assertTrue(refused > 0, "neither member refused the other's backend");
        }
    }
}

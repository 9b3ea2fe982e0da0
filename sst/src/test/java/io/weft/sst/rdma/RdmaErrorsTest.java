package io.weft.sst.rdma;

import io.weft.config.RdmaOptions;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.sst.TransportException;
import io.weft.sst.harness.TestGroups;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

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
        final WeftConfig base = TestGroups.config(TransportKind.RDMA, 1);
        final WeftConfig config = WeftConfig.builder().memberId(0).groupName(base.group().name())
            .members(base.group().members()).transport(TransportKind.RDMA).rdma(new RdmaOptions("verbs;ofi_rxm"))
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
        final WeftConfig base = TestGroups.config(TransportKind.RDMA, 1);
        final WeftConfig config = WeftConfig.builder().memberId(0).groupName(base.group().name())
            .members(base.group().members()).transport(TransportKind.RDMA)
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
        final RdmaOptions verbs = io.weft.sst.harness.NativeBuild.verbsDeviceOptions();
        final WeftConfig base = TestGroups.config(TransportKind.RDMA, 2);
        final SstLayout layout = SstLayout.builder().counter("c").build();
        try (io.weft.sst.harness.Members ignored = new io.weft.sst.harness.Members(base))
        {
            final java.util.concurrent.CompletableFuture<Sst> other = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> Sst.open(WeftConfig.builder().memberId(1).groupName(base.group().name())
                    .members(base.group().members()).transport(TransportKind.RDMA).rdma(verbs)
                    .connectTimeout(Duration.ofSeconds(10)).build(), layout));
            final TransportException ex = assertThrows(TransportException.class, () -> Sst.open(
                WeftConfig.builder().memberId(0).groupName(base.group().name()).members(base.group().members())
                    .transport(TransportKind.RDMA).rdma(new RdmaOptions("shm")).connectTimeout(Duration.ofSeconds(10))
                    .build(), layout).close());
            assertTrue(ex.getMessage().contains("uses another rdma backend than this member's libfabric") &&
                ex.getMessage().contains("weft.transport.rdma.backend"), ex.getMessage());
            final java.util.concurrent.ExecutionException fromVerbs = assertThrows(
                java.util.concurrent.ExecutionException.class, () -> other.get(30, java.util.concurrent.TimeUnit.SECONDS).close());
            assertTrue(fromVerbs.getCause().getMessage().contains("this member's verbs"), fromVerbs.getCause().getMessage());
        }
    }
}

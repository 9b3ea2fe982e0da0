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

/** A provider that does not exist here is refused with one message saying what was looked for and what to pick. */
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
}

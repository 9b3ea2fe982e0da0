package io.weft.tools;

import io.weft.config.RdmaBackend;
import io.weft.config.RdmaOptions;
import io.weft.config.TransportThreading;
import io.weft.config.VerbsOptions;
import picocli.CommandLine.Option;

/**
 * The rdma transport's options on the command line (sst-demo, bench; chaos runs libfabric's defaults): backend,
 * libfabric provider, verbs device, threading.
 */
public final class RdmaChoice
{
    @Option(names = "--backend", defaultValue = "libfabric",
        description = "rdma backend for --transport rdma: libfabric or verbs (default ${DEFAULT-VALUE}).")
    String backend = "libfabric";

    @Option(names = "--provider", defaultValue = "tcp;ofi_rxm",
        description = "libfabric provider for --transport rdma (default ${DEFAULT-VALUE}; shm on one host).")
    String provider = "tcp;ofi_rxm";

    @Option(names = "--verbs-device", defaultValue = "", description = "verbs device for --backend verbs (default: the first).")
    String verbsDevice = "";

    @Option(names = "--verbs-library", defaultValue = "libibverbs.so.1",
        description = "libibverbs to load for --backend verbs (default ${DEFAULT-VALUE}).")
    String verbsLibrary = "libibverbs.so.1";

    @Option(names = "--rdma-threading", defaultValue = "auto", description = "rdma: separate, merged or auto " +
        "(weft.transport.rdma.threading: whether the progress thread runs the predicates; default ${DEFAULT-VALUE}).")
    String threading = "auto";

    /** The options these name; a {@link io.weft.config.WeftConfigException} naming the option that is wrong. */
    public RdmaOptions options()
    {
        final VerbsOptions verbs = new VerbsOptions(verbsLibrary, verbsDevice, VerbsOptions.DEFAULTS.port(),
            VerbsOptions.DEFAULTS.gidIndex());
        return new RdmaOptions(RdmaBackend.parse("--backend", backend), provider, verbs,
            TransportThreading.parse("--rdma-threading", threading));
    }

    /** Why {@code choice} (the option that asks for rdma) cannot run here, or null when libfabric loads. */
    public static String libfabricMissing(final String choice)
    {
        return io.weft.sst.rdma.RdmaTransport.libfabricInstalled() ? null :
            choice + " needs libfabric (Debian: apt-get install libfabric1), which does not load here";
    }
}

package io.weft.config;

import java.util.regex.Pattern;

/**
 * Options of the rdma transport.
 *
 * @param backend  libfabric (default) or verbs.
 * @param provider libfabric provider name: {@code tcp;ofi_rxm} or {@code shm} without RDMA hardware, for example
 *                 {@code verbs;ofi_rxm} on InfiniBand or RoCE.
 * @param verbs    options of the verbs backend.
 */
public record RdmaOptions(RdmaBackend backend, String provider, VerbsOptions verbs)
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_;.-]{1,64}");

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public RdmaOptions
    {
        WeftConfigException.check(backend != null, "weft.transport.rdma.backend", null, "must be libfabric or verbs");
        WeftConfigException.check(provider != null && NAME.matcher(provider).matches(), "weft.transport.rdma.provider",
            provider, "must be a libfabric provider name such as tcp;ofi_rxm, shm or verbs;ofi_rxm");
        WeftConfigException.check(verbs != null, "weft.transport.rdma.verbs", null, "must be present");
    }

    /** The libfabric backend with {@code provider}. */
    public RdmaOptions(final String provider)
    {
        this(RdmaBackend.LIBFABRIC, provider, VerbsOptions.DEFAULTS);
    }

    /** The verbs backend with {@code verbs}. */
    public static RdmaOptions verbs(final VerbsOptions verbs)
    {
        return new RdmaOptions(RdmaBackend.VERBS, "tcp;ofi_rxm", verbs);
    }
}

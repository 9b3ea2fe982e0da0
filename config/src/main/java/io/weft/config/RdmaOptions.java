package io.weft.config;

import java.util.regex.Pattern;

/**
 * Options of the rdma transport.
 *
 * @param backend  libfabric (default) or verbs.
 * @param provider libfabric provider name: {@code tcp;ofi_rxm} or {@code shm} without RDMA hardware, for example
 *                 {@code verbs;ofi_rxm} on InfiniBand or RoCE.
 * @param verbs    options of the verbs backend.
 * @param threading whether the progress thread also runs the predicates.
 */
public record RdmaOptions(RdmaBackend backend, String provider, VerbsOptions verbs, TransportThreading threading)
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_;.-]{1,64}");

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public RdmaOptions
    {
        WeftConfigException.check(backend != null, "weft.transport.rdma.backend", null, "must be libfabric or verbs");
        WeftConfigException.check(provider != null && NAME.matcher(provider).matches(), "weft.transport.rdma.provider",
            provider, "must be a libfabric provider name such as tcp;ofi_rxm, shm or verbs;ofi_rxm");
        WeftConfigException.check(verbs != null, "weft.transport.rdma.verbs", null, "must be present");
        WeftConfigException.check(threading != null, "weft.transport.rdma.threading", null,
            "must be one of " + ConfigNames.allowed(TransportThreading.values()));
    }

    /** These options with {@code threading} chosen automatically. */
    public RdmaOptions(final RdmaBackend backend, final String provider, final VerbsOptions verbs)
    {
        this(backend, provider, verbs, TransportThreading.AUTO);
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

    /** These options with {@code threading}. */
    public RdmaOptions withThreading(final TransportThreading threading)
    {
        return new RdmaOptions(backend, provider, verbs, threading);
    }
}

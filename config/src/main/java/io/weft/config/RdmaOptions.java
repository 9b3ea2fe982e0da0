package io.weft.config;

import java.util.regex.Pattern;

/**
 * Options of the rdma transport.
 *
 * @param provider libfabric provider name: {@code tcp;ofi_rxm} or {@code shm} without RDMA hardware, for example
 *                 {@code verbs;ofi_rxm} on InfiniBand or RoCE.
 */
public record RdmaOptions(String provider)
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_;.-]{1,64}");

    public RdmaOptions
    {
        WeftConfigException.check(provider != null && NAME.matcher(provider).matches(), "weft.transport.rdma.provider",
            provider, "must be a libfabric provider name such as tcp;ofi_rxm, shm or verbs;ofi_rxm");
    }
}

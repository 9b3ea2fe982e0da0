package io.weft.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The native interface under the rdma transport. */
public enum RdmaBackend
{
    /** libfabric: any provider with reliable-datagram RMA (tcp;ofi_rxm or shm without hardware, verbs;ofi_rxm). */
    LIBFABRIC,
    /** libibverbs directly: one reliable-connected queue pair per peer on an InfiniBand or RoCE device. */
    VERBS;

    public String configName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RdmaBackend parse(final String key, final String value)
    {
        for (final RdmaBackend backend : values())
        {
            if (backend.configName().equals(value))
            {
                return backend;
            }
        }
        throw new WeftConfigException(key, value, "must be one of " +
            Arrays.stream(values()).map(RdmaBackend::configName).collect(Collectors.joining(", ")));
    }
}

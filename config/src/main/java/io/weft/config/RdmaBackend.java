package io.weft.config;

/** The native interface under the rdma transport. */
public enum RdmaBackend implements ConfigChoice
{
    /** libfabric: any provider with reliable-datagram RMA (tcp;ofi_rxm or shm without hardware, verbs;ofi_rxm). */
    LIBFABRIC,
    /** libibverbs directly: one reliable-connected queue pair per peer on an InfiniBand or RoCE device. */
    VERBS;

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static RdmaBackend parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}

package io.weft.config;

/** The substrate under the shared state table. */
public enum TransportKind implements ConfigChoice
{
    /** Memory-mapped files under /dev/shm: several processes (or members) on one host. */
    SHM,
    /** One ordered TCP connection per member pair, pure Java NIO. */
    TCP,
    /** One-sided RDMA writes through Panama FFM (libfabric or verbs). */
    RDMA;

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static TransportKind parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }

    static String allowed()
    {
        return ConfigNames.allowed(values());
    }
}

package io.weft.config;

import java.time.Duration;

/**
 * Which transport carries pushes, and its options.
 *
 * @param kind           shm, tcp or rdma.
 * @param connectTimeout how long opening the table waits for every peer to appear before giving up.
 * @param shm            options of the shm transport.
 * @param tcp            options of the tcp transport.
 * @param rdma           options of the rdma transport.
 */
public record TransportConfig(TransportKind kind, Duration connectTimeout, ShmOptions shm, TcpOptions tcp,
    RdmaOptions rdma)
{
    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public TransportConfig
    {
        WeftConfigException.check(kind != null, "weft.transport.kind", null, "must be one of " +
            TransportKind.allowed());
        WeftConfigException.check(connectTimeout != null && !connectTimeout.isNegative() && !connectTimeout.isZero() &&
            connectTimeout.compareTo(Duration.ofHours(1)) <= 0, "weft.transport.connect-timeout", connectTimeout,
            "must be a duration between 1ms and 1h");
        WeftConfigException.check(shm != null, "weft.transport.shm", null, "must be present");
        WeftConfigException.check(tcp != null, "weft.transport.tcp", null, "must be present");
        WeftConfigException.check(rdma != null, "weft.transport.rdma", null, "must be present");
    }
}

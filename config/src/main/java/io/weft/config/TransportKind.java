package io.weft.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The substrate under the shared state table. */
public enum TransportKind
{
    /** Memory-mapped files under /dev/shm: several processes (or members) on one host. */
    SHM,
    /** One ordered TCP connection per member pair, pure Java NIO. */
    TCP,
    /** One-sided RDMA writes through Panama FFM (libfabric or verbs). */
    RDMA;

    public String configName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    public static TransportKind parse(final String key, final String value)
    {
        for (final TransportKind kind : values())
        {
            if (kind.configName().equals(value))
            {
                return kind;
            }
        }
        throw new WeftConfigException(key, value, "must be one of " + allowed());
    }

    static String allowed()
    {
        return Arrays.stream(values()).map(TransportKind::configName).collect(Collectors.joining(", "));
    }
}

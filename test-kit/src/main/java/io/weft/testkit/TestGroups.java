package io.weft.testkit;

import io.weft.config.ConfigWriter;
import io.weft.config.MemberAddress;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Configurations for test groups on loopback, with free ports and a unique group name (so shm files never clash). */
public final class TestGroups
{
    private TestGroups()
    {
    }

    public static WeftConfig config(final TransportKind kind, final int members)
    {
        return builder(kind, members).build();
    }

    /** A builder preset with member id 0, a unique group name, loopback addresses with free ports and the transport. */
    public static WeftConfig.Builder builder(final TransportKind kind, final int members)
    {
        return builder(kind, members, "t" + UUID.randomUUID().toString().substring(0, 8));
    }

    /** An rdma group with these rdma options. */
    public static WeftConfig config(final io.weft.config.RdmaOptions rdma, final int members)
    {
        return builder(TransportKind.RDMA, members).rdma(rdma).build();
    }

    /** An shm group whose pushes copy into each target's file ({@code weft.transport.shm.zero-copy = false}). */
    public static WeftConfig copyingShm(final int members)
    {
        return builder(TransportKind.SHM, members).shmZeroCopy(false).build();
    }

    public static WeftConfig config(final TransportKind kind, final int members, final String name)
    {
        return builder(kind, members, name).build();
    }

    private static WeftConfig.Builder builder(final TransportKind kind, final int members, final String name)
    {
        final List<Integer> ports = freePorts(members * 2);
        final List<MemberAddress> list = new ArrayList<>();
        for (int i = 0; i < members; i++)
        {
            list.add(new MemberAddress(i, "127.0.0.1", ports.get(2 * i), ports.get(2 * i + 1)));
        }
        return WeftConfig.builder().memberId(0).groupName(name).members(list).transport(kind);
    }

    /** Writes the configuration (member id 0; members override it with --member) to a file in {@code dir}. */
    public static Path write(final WeftConfig config, final Path dir)
    {
        try
        {
            return Files.writeString(dir.resolve(config.group().name() + ".conf"), ConfigWriter.render(config));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Free loopback ports below the ephemeral range (see {@link io.weft.config.LocalPorts}). */
    public static List<Integer> freePorts(final int count)
    {
        return io.weft.config.LocalPorts.free(count);
    }
}

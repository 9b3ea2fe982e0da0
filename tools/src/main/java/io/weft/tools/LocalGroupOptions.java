package io.weft.tools;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfigException;
import picocli.CommandLine.Option;

/**
 * The group a command starts on this host: how many member processes and over which transport. Each command gives
 * its own defaults and range; rdma only where the command can run it (sst-demo, bench).
 */
public final class LocalGroupOptions
{
    @Option(names = "--members", description = "Member processes (default ${DEFAULT-VALUE}).")
    int members;

    @Option(names = "--transport", description = "shm or tcp; sst-demo and chaos also take rdma (default ${DEFAULT-VALUE}).")
    String transport;

    private final int minMembers;
    private final int maxMembers;
    private final boolean rdma;

    /** Defaults {@code transport} and {@code members}; {@code --members} must be in {@code min..max}. */
    public LocalGroupOptions(final String transport, final int members, final int min, final int max,
        final boolean rdma)
    {
        this.transport = transport;
        this.members = members;
        this.minMembers = min;
        this.maxMembers = max;
        this.rdma = rdma;
    }

    /** The number of member processes. */
    public int members()
    {
        return members;
    }

    /** The transport, as named on the command line. */
    public TransportKind transport()
    {
        return TransportKind.parse("--transport", transport);
    }

    /** What is wrong with these options, or null. */
    public String problem()
    {
        if (members < minMembers || members > maxMembers)
        {
            return "--members must be in " + minMembers + ".." + maxMembers + ", was " + members;
        }
        try
        {
            if (transport() == TransportKind.RDMA && !rdma)
            {
                return "--transport must be shm or tcp here, was rdma";
            }
        }
        catch (final WeftConfigException ex)
        {
            return ex.getMessage();
        }
        return null;
    }
}

package io.weft.tools;

import io.weft.sst.TransportException;
import io.weft.sst.rdma.RdmaTransport;
import io.weft.sst.rdma.Verbs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * What RDMA this host offers Weft: libfabric providers with RMA (libfabric backend), and verbs devices (verbs backend).
 */
@Command(name = "rdma-check", description = "List the libfabric providers that can carry the rdma transport and the " +
    "RDMA (verbs) devices of this host.")
final class RdmaCheckCommand implements Callable<Integer>
{
    @Option(names = "--verbs-library", defaultValue = "libibverbs.so.1",
        description = "libibverbs to ask for devices (default ${DEFAULT-VALUE}).")
    String verbsLibrary;

    @Override
    public Integer call()
    {
        boolean libfabric = false;
        boolean verbs = false;
        try
        {
            final List<String> providers = RdmaTransport.providers();
            System.out.println("libfabric providers with reliable-datagram RMA: " +
                (providers.isEmpty() ? "none" : String.join(", ", providers)));
            libfabric = !providers.isEmpty();
        }
        catch (final TransportException ex)
        {
            System.out.println("libfabric: " + ex.getMessage());
        }
        try
        {
            final List<String> devices = Verbs.load(verbsLibrary).devices();
            System.out.println("verbs devices: " + (devices.isEmpty() ? "no RDMA devices" :
                String.join(", ", devices)));
            verbs = !devices.isEmpty();
        }
        catch (final TransportException ex)
        {
            System.out.println("verbs: " + ex.getMessage());
        }
        if (libfabric || verbs)
        {
            System.out.println("rdma-check: the rdma transport can run here with weft.transport.rdma.backend = " +
                (libfabric && verbs ? "libfabric (weft.transport.rdma.provider) or verbs " +
                    "(weft.transport.rdma.verbs.device)"
                    : libfabric ? "libfabric (weft.transport.rdma.provider)"
                    : "verbs (weft.transport.rdma.verbs.device)"));
            return 0;
        }
        System.out.println("rdma-check: the rdma transport cannot run here; use weft.transport.kind = tcp or shm");
        return 1;
    }
}

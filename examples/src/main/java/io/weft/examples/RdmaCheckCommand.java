package io.weft.examples;

import io.weft.sst.TransportException;
import io.weft.sst.rdma.RdmaTransport;
import io.weft.sst.rdma.Verbs;
import picocli.CommandLine.Command;

import java.util.List;
import java.util.concurrent.Callable;

/** What RDMA this host offers Weft: libfabric providers with RMA, and verbs devices. */
@Command(name = "rdma-check", description = "List the libfabric providers that can carry the rdma transport and the " +
    "RDMA (verbs) devices of this host.")
final class RdmaCheckCommand implements Callable<Integer>
{
    @Override
    public Integer call()
    {
        int found = 0;
        try
        {
            final List<String> providers = RdmaTransport.providers();
            System.out.println("libfabric providers with reliable-datagram RMA: " +
                (providers.isEmpty() ? "none" : String.join(", ", providers)));
            found += providers.size();
        }
        catch (final TransportException ex)
        {
            System.out.println("libfabric: " + ex.getMessage());
        }
        try
        {
            final List<String> devices = Verbs.load().devices();
            System.out.println("verbs devices: " + (devices.isEmpty() ? "no RDMA devices" : String.join(", ", devices)));
        }
        catch (final TransportException ex)
        {
            System.out.println("verbs: " + ex.getMessage());
        }
        System.out.println(found > 0 ? "rdma-check: the rdma transport can run here (weft.transport.rdma.provider)"
            : "rdma-check: the rdma transport cannot run here; use weft.transport.kind = tcp or shm");
        return found > 0 ? 0 : 1;
    }
}

package io.weft.sst;

import io.weft.sst.shm.ShmTransport;
import io.weft.sst.tcp.TcpTransport;

/** Opens the transport named by the configuration. */
final class Transports
{
    private Transports()
    {
    }

    static SstTransport open(final TransportContext context)
    {
        return switch (context.config().transport().kind())
        {
            case SHM -> ShmTransport.open(context);
            case TCP -> TcpTransport.open(context);
            case RDMA -> io.weft.sst.rdma.RdmaTransport.open(context);
        };
    }
}

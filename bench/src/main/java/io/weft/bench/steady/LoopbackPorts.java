package io.weft.bench.steady;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for bench members, tcp and udp alike. */
public final class LoopbackPorts
{
    private LoopbackPorts()
    {
    }

    /** {@code n} consecutive ports, free on 127.0.0.1 for tcp and udp at the time of the call. */
    public static int[] consecutive(final int n) throws Exception
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final int base;
            try (ServerSocket first = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                base = first.getLocalPort();
            }
            if (base + n < 65000 && rangeFree(base, n))
            {
                final int[] ports = new int[n];
                for (int i = 0; i < n; i++)
                {
                    ports[i] = base + i;
                }
                return ports;
            }
        }
        throw new IllegalStateException("no " + n + " consecutive free ports on 127.0.0.1");
    }

    private static boolean rangeFree(final int base, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            try (ServerSocket ignored = new ServerSocket(base + i, 1, InetAddress.getLoopbackAddress());
                DatagramSocket alsoUdp = new DatagramSocket(base + i, InetAddress.getLoopbackAddress()))
            {
                // free for tcp and udp
            }
            catch (final Exception ex)
            {
                return false;
            }
        }
        return true;
    }
}

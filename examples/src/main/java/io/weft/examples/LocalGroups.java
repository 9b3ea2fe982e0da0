package io.weft.examples;

import io.weft.config.MemberAddress;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Member lists for groups on this host: loopback addresses and ports the kernel reports free. */
public final class LocalGroups
{
    private LocalGroups()
    {
    }

    /** {@code n} members with ids 0..n-1 on 127.0.0.1, each with a free sst port and control port. */
    public static List<MemberAddress> loopbackMembers(final int n) throws IOException
    {
        final List<ServerSocket> sockets = new ArrayList<>();
        try
        {
            final List<MemberAddress> result = new ArrayList<>();
            for (int i = 0; i < n; i++)
            {
                final ServerSocket a = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                final ServerSocket b = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(a);
                sockets.add(b);
                result.add(new MemberAddress(i, "127.0.0.1", a.getLocalPort(), b.getLocalPort()));
            }
            return result;
        }
        finally
        {
            for (final ServerSocket s : sockets)
            {
                s.close();
            }
        }
    }
}

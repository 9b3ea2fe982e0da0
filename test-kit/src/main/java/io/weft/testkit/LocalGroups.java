package io.weft.testkit;

import io.weft.config.MemberAddress;

import io.weft.config.LocalPorts;
import java.util.ArrayList;
import java.util.List;

/** Member lists for groups on this host: loopback addresses and free ports below the ephemeral range. */
public final class LocalGroups
{
    private LocalGroups()
    {
    }

    /** {@code n} members with ids 0..n-1 on 127.0.0.1, each with a free sst port and control port. */
    public static List<MemberAddress> loopbackMembers(final int n)
    {
        final List<Integer> ports = LocalPorts.free(2 * n);
        final List<MemberAddress> result = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            result.add(new MemberAddress(i, "127.0.0.1", ports.get(2 * i), ports.get(2 * i + 1)));
        }
        return result;
    }
}

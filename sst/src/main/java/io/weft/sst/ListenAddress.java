package io.weft.sst;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Where a member listens (its sst-port, its control-port), and what a listen that failed says. */
public final class ListenAddress
{
    private ListenAddress()
    {
    }

    /**
     * {@code host:port}, resolved.
     *
     * @throws UnknownHostException the host does not resolve (a bind would throw {@code UnresolvedAddressException},
     *                              unchecked, out of the member's start).
     */
    public static InetSocketAddress of(final String host, final int port) throws UnknownHostException
    {
        final InetSocketAddress at = new InetSocketAddress(host, port);
        if (at.isUnresolved())
        {
            throw new UnknownHostException("the host does not resolve (weft.group.members)");
        }
        return at;
    }

    /** What a listen on {@code host:port}, member {@code memberId}'s {@code key}, that failed with {@code ex} says. */
    public static String cannot(final String host, final int port, final int memberId, final String key,
        final IOException ex)
    {
        return "cannot listen on " + host + ":" + port + " (member " + memberId + "'s " + key + "): " +
            ex.getMessage() + (ex instanceof BindException ? "; is another process using the port?" : "");
    }
}

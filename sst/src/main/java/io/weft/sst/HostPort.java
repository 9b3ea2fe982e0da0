package io.weft.sst;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** A member's {@code host:port} from weft.group.members, resolved where it listens and where it is dialled. */
public final class HostPort
{
    private HostPort()
    {
    }

    /**
     * {@code host:port}, resolved (again at each call: a name may come to resolve later, with its member).
     *
     * @throws UnknownHostException "{@code host} does not resolve": a bind or connect would throw
     *                              {@code UnresolvedAddressException}, unchecked (it ended the tcp selector thread).
     */
    public static InetSocketAddress resolve(final String host, final int port) throws UnknownHostException
    {
        final InetSocketAddress at = new InetSocketAddress(host, port);
        if (at.isUnresolved())
        {
            throw new UnknownHostException(host + " does not resolve (weft.group.members)");
        }
        return at;
    }

    /** What a listen on {@code host:port}, member {@code memberId}'s {@code key}, that failed with {@code ex} says. */
    public static String cannotListen(final String host, final int port, final int memberId, final String key,
        final IOException ex)
    {
        return "cannot listen on " + host + ":" + port + " (member " + memberId + "'s " + key + "): " +
            ex.getMessage() + (ex instanceof BindException ? "; is another process using the port?" : "");
    }
}

package io.weft.membership;

import io.weft.config.GroupConfig;
import io.weft.config.MemberAddress;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * Tells a view's opening table that a member which agreed to the view died before connecting: its control port
 * refuses connections. Without it the table waits the whole connect timeout (5 s) for a member killed between the
 * agreement and the installation. A member's control port is open from before it first installs a view until it
 * closes, so every member of the view is probed but those that join in it: a joiner opens its port after its first
 * table. A crashed host refuses nothing (the probe times out): its table waits the connect timeout, as before.
 * <p>
 * Asked by the opening thread only; each member at most once per {@link #INTERVAL_NANOS}. A live member answers
 * (its port accepts and the probe closes at once), so the first ask probes at once. {@link #listens} is the same
 * probe the other way round: {@code open()} asks it of every other member, to refuse a view 0 of a running group.
 */
final class GoneProbe implements IntPredicate
{
    /** Short: a halted member kept its ports open for up to about 100 ms here while its process exited. */
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    private static final int CONNECT_TIMEOUT_MS = 100;

    /** Per rank of the view's table: the member's address when probed, else null. */
    private final MemberAddress[] probed;
    private final long[] next;

    /** Probes the members of {@code view} but its joiners; {@code table} is the view's group, in rank order. */
    GoneProbe(final GroupConfig table, final View view)
    {
        this.probed = new MemberAddress[table.size()];
        this.next = new long[table.size()];
        final long now = System.nanoTime();
        for (int r = 0; r < probed.length; r++)
        {
            final MemberAddress m = table.members().get(r);
            probed[r] = view.joined().contains(m.id()) ? null : m;
            next[r] = now;
        }
    }

    @Override
    public boolean test(final int rank)
    {
        final MemberAddress m = probed[rank];
        final long now = System.nanoTime();
        if (m == null || now - next[rank] < 0)
        {
            return false;
        }
        next[rank] = now + INTERVAL_NANOS;
        return refuses(m);
    }

    /** True only on a refusal: nothing listens on the member's control port, so its process is gone. */
    static boolean refuses(final MemberAddress m)
    {
        return probe(m) == Port.REFUSES;
    }

    /** True only if the member's control port accepts: its process runs and has installed a view of its group. */
    static boolean listens(final MemberAddress m)
    {
        return probe(m) == Port.ACCEPTS;
    }

    private enum Port
    {
        ACCEPTS, REFUSES, SILENT
    }

    private static Port probe(final MemberAddress m)
    {
        try (Socket s = new Socket())
        {
            s.connect(new InetSocketAddress(m.host(), m.controlPort()), CONNECT_TIMEOUT_MS);
            return Port.ACCEPTS;
        }
        catch (final ConnectException ex)
        {
            return Port.REFUSES;
        }
        catch (final IOException ex)
        {
            return Port.SILENT; // a timeout or an unreachable host proves nothing
        }
    }
}

package io.weft.membership;

import io.weft.config.GroupConfig;
import io.weft.config.MemberAddress;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
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
 * (its port accepts and the probe closes at once), so the first ask probes at once. {@link #listens} asks the other
 * way round, and more: {@code open()} asks it of every other member, to refuse a view 0 of a running group, and an
 * accepting port is not enough there (another program on the port, a proxy that accepts every connection): the
 * member must answer PROBE with its group's name.
 */
final class GoneProbe implements IntPredicate
{
    /** Short: a halted member kept its ports open for up to about 100 ms here while its process exited. */
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    private static final int CONNECT_TIMEOUT_MS = 100;
    /** A member's control thread answers at once; a slow answer only loses the early refusal. */
    private static final int ANSWER_TIMEOUT_MS = 1000;

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
        try (Socket s = new Socket())
        {
            s.connect(new InetSocketAddress(m.host(), m.controlPort()), CONNECT_TIMEOUT_MS);
            return false;
        }
        catch (final ConnectException ex)
        {
            return true;
        }
        catch (final IOException ex)
        {
            return false; // a timeout or an unreachable host proves nothing
        }
    }

    /**
     * True only if a member of {@code group} answers on {@code m}'s control port: its process runs and has installed
     * a view of the group. Anything else (no answer within {@value #ANSWER_TIMEOUT_MS} ms, bytes that are not a
     * control frame, another group's name) proves nothing.
     */
    static boolean listens(final MemberAddress m, final String group)
    {
        try (Socket s = new Socket())
        {
            s.connect(new InetSocketAddress(m.host(), m.controlPort()), CONNECT_TIMEOUT_MS);
            s.setSoTimeout(ANSWER_TIMEOUT_MS);
            ControlWire.write(new DataOutputStream(new BufferedOutputStream(s.getOutputStream())), ControlWire.PROBE,
                new byte[0]);
            final ControlWire.Frame answer = ControlWire.read(new DataInputStream(s.getInputStream()), 1024);
            return answer.type() == ControlWire.PROBED && group.equals(ControlWire.text(answer.payload()));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}

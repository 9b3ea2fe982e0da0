package io.weft.membership;

import io.weft.config.MemberAddress;
import io.weft.sst.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A member's control port: joiners authenticate here (see {@link ControlWire}), are redirected to the leader by
 * other members, and wait at the leader for the view that adds them. Anything else (a stranger, a wrong secret,
 * garbage, silence) is refused, logged and closed; the group is not affected.
 */
final class ControlServer implements AutoCloseable
{
    /** What the control port needs from its member. */
    interface Desk
    {
        String groupName();

        String secret();

        boolean inAddressBook(int memberId);

        View view();

        /** Whether this member is the one that proposes view changes now. */
        boolean isLeader();

        int leaderId();

        /**
         * A member of the view asks to join again: its old incarnation is removed if silent here (a restart before
         * its failure was found), never if alive (another process with its id). Returns why the joiner retries.
         */
        String rejoining(int memberId);

        void enqueue(PendingJoin join);

        /** The state a member of the view fetches ({@link Group#fetchState}); throws if it cannot be cut. */
        StateTransfer.Snapshot fetch(byte[] request);

        /** How long a state stream may stall before its connection is closed. */
        java.time.Duration stall();
    }

    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    private static final int HANDSHAKE_TIMEOUT_MS = 5000;
    private static final int MAX_CONCURRENT = 16;
    /** The requester's proof names what it asks for: nobody on the path can turn a fetch into a join. */
    static final String JOINER = "weft-joiner";
    static final String FETCHER = "weft-fetcher";

    private final Desk desk;
    private final ServerSocket server;
    private final Thread acceptor;
    private final Semaphore slots = new Semaphore(MAX_CONCURRENT);
    private volatile boolean running = true;

    ControlServer(final MemberAddress me, final Desk desk)
    {
        this.desk = desk;
        try
        {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(HostPort.resolve(me.host(), me.controlPort()));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(HostPort.cannotListen(me.host(), me.controlPort(), me.id(), "control-port",
                ex), ex);
        }
        acceptor = Thread.ofPlatform().name("weft-control-" + me.id()).daemon(true).unstarted(this::accept);
        acceptor.start();
    }

    private void accept()
    {
        while (running)
        {
            final Socket s;
            try
            {
                s = server.accept();
            }
            catch (final IOException ex)
            {
                if (running)
                {
                    LOG.warn("control port accept failed: {}", ex.toString());
                }
                continue;
            }
            if (!slots.tryAcquire())
            {
                LOG.warn("refused control connection from {}: {} handshakes already in progress",
                    s.getRemoteSocketAddress(), MAX_CONCURRENT);
                closeQuietly(s);
                continue;
            }
            Thread.ofVirtual().name("weft-control-conn").start(() ->
            {
                try
                {
                    handle(s);
                }
                finally
                {
                    slots.release();
                }
            });
        }
    }

    private void handle(final Socket s)
    {
        final Object remote = s.getRemoteSocketAddress();
        final java.util.concurrent.atomic.AtomicBoolean over = new java.util.concurrent.atomic.AtomicBoolean();
        // one deadline for the whole handshake: SO_TIMEOUT alone bounds each read, not a client trickling bytes
        java.util.concurrent.CompletableFuture.delayedExecutor(HANDSHAKE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .execute(() ->
        {
            if (over.compareAndSet(false, true))
            {
                LOG.warn("refused control connection from {}: no complete handshake within {} ms", remote,
                    HANDSHAKE_TIMEOUT_MS);
                closeQuietly(s);
            }
        });
        boolean keep = false;
        try
        {
            s.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
            s.setTcpNoDelay(true);
            final BufferedInputStream buffered = new BufferedInputStream(s.getInputStream());
            buffered.mark(1);
            if (buffered.read() < 0)
            {
                LOG.debug("control connection from {} closed before its first byte (a liveness probe)", remote);
                return;
            }
            buffered.reset();
            final DataInputStream in = new DataInputStream(buffered);
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            final ControlWire.Frame join = ControlWire.read(in, ControlWire.MAX_REQUEST);
            if (join.type() == ControlWire.PROBE) // a member about to open view 0: is a group running here?
            {
                ControlWire.write(out, ControlWire.PROBED, ControlWire.utf8(desk.groupName()));
                return;
            }
            if (join.type() != ControlWire.JOIN && join.type() != ControlWire.FETCH)
            {
                throw new ControlWire.ProtocolException("expected JOIN or FETCH, got frame type " + join.type());
            }
            final ByteBuffer b = ByteBuffer.wrap(join.payload());
            if (b.remaining() < 2)
            {
                throw new ControlWire.ProtocolException("truncated JOIN");
            }
            final int nameLength = b.getShort() & 0xffff;
            if (b.remaining() != nameLength + 4 + ControlWire.NONCE)
            {
                throw new ControlWire.ProtocolException("malformed JOIN of " + join.payload().length + " bytes");
            }
            final byte[] name = new byte[nameLength];
            b.get(name);
            final String group = ControlWire.text(name);
            final int id = b.getInt();
            final byte[] joinerNonce = new byte[ControlWire.NONCE];
            b.get(joinerNonce);
            if (!desk.groupName().equals(group))
            {
                refuse(out, remote, "group '" + group + "', this member is in '" + desk.groupName() + "'");
                return;
            }
            final String secret = desk.secret();
            if (secret == null)
            {
                refuse(out, remote, "joins are disabled at this member: no weft.membership.secret configured");
                return;
            }
            final byte[] myNonce = ControlWire.nonce();
            final ByteBuffer challenge = ByteBuffer.allocate(2 * ControlWire.NONCE);
            challenge.put(myNonce).put(ControlWire.proof(secret, "weft-member", group, id, joinerNonce));
            ControlWire.write(out, ControlWire.CHALLENGE, challenge.array());
            final ControlWire.Frame response = ControlWire.expect(in, ControlWire.MAX_REQUEST, ControlWire.RESPONSE);
            final byte[] payload = response.payload();
            final byte[] request = payload.length < ControlWire.NONCE ? new byte[0] :
                java.util.Arrays.copyOfRange(payload, ControlWire.NONCE, payload.length);
            if (payload.length < ControlWire.NONCE || !ControlWire.sameProof(java.util.Arrays.copyOf(payload,
                ControlWire.NONCE), ControlWire.proof(secret, join.type() == ControlWire.FETCH ? FETCHER : JOINER,
                group, id, myNonce, request)))
            {
                refuse(out, remote, "authentication failed: the " + (join.type() == ControlWire.FETCH ?
                    "fetching member" : "joiner") + " does not know the group secret");
                return;
            }
            if (!desk.inAddressBook(id))
            {
                refuse(out, remote, "member id " + id + " is not in weft.group.members");
                return;
            }
            if (join.type() == ControlWire.FETCH)
            {
                keep = serveFetch(new PendingJoin(id, s, out, secret, group, joinerNonce, myNonce, request), over);
                return;
            }
            if (!desk.isLeader())
            {
                final ByteBuffer leader = ByteBuffer.allocate(4).putInt(desk.leaderId());
                ControlWire.write(out, ControlWire.REDIRECT, leader.array());
                return;
            }
            final View view = desk.view();
            if (view.contains(id))
            {
                ControlWire.write(out, ControlWire.RETRY, ControlWire.utf8(desk.rejoining(id)));
                return;
            }
            if (!over.compareAndSet(false, true))
            {
                return; // the deadline passed and closed the socket
            }
            ControlWire.write(out, ControlWire.ACCEPTED, new byte[0]);
            s.setSoTimeout(0);
            LOG.info("member {} at {} authenticated; it joins in the next view", id, remote);
            desk.enqueue(new PendingJoin(id, s, out, secret, group, joinerNonce, myNonce, request));
            keep = true;
        }
        catch (final ControlWire.ProtocolException ex)
        {
            LOG.warn("refused control connection from {}: {}", remote, ex.getMessage());
            try
            {
                refuse(new DataOutputStream(s.getOutputStream()), remote, ex.getMessage());
            }
            catch (final IOException ignored)
            {
                // the stranger is gone
            }
        }
        catch (final SocketTimeoutException ex)
        {
            LOG.warn("refused control connection from {}: silent for {} ms during the handshake", remote,
                HANDSHAKE_TIMEOUT_MS);
        }
        catch (final EOFException ex)
        {
            LOG.warn("control connection from {} closed during the handshake", remote);
        }
        catch (final IOException ex)
        {
            LOG.warn("control connection from {} failed: {}", remote, ex.toString());
        }
        finally
        {
            over.set(true);
            if (!keep)
            {
                closeQuietly(s);
            }
        }
    }

    /**
     * Serves a member of the view that fetches state, on this connection's thread; false if it was refused (the
     * caller closes the connection), true once the state was sent (or failed: the fetch closed it).
     */
    private boolean serveFetch(final PendingJoin fetch, final java.util.concurrent.atomic.AtomicBoolean over)
        throws IOException
    {
        final Object remote = fetch.socket().getRemoteSocketAddress();
        final View view = desk.view();
        if (!view.contains(fetch.memberId()))
        {
            refuse(fetch.out(), remote, "member " + fetch.memberId() + " is not in " + view + ": only a member of " +
                "the view fetches state");
            return false;
        }
        final StateTransfer.Snapshot state;
        try
        {
            state = desk.fetch(fetch.request());
        }
        catch (final RuntimeException ex)
        {
            refuse(fetch.out(), remote, "the state cannot be fetched here: " + ex.getMessage());
            return false;
        }
        if (!over.compareAndSet(false, true))
        {
            return false; // the deadline passed and closed the socket
        }
        fetch.socket().setSoTimeout(0);
        LOG.info("member {} at {} fetches state", fetch.memberId(), remote);
        final String problem = fetch.fetched(state, desk.stall());
        if (problem != null)
        {
            LOG.warn("member {}'s state fetch failed: {}", fetch.memberId(), problem);
        }
        return true;
    }

    private static void refuse(final DataOutputStream out, final Object remote, final String reason) throws IOException
    {
        LOG.warn("refused control request from {}: {}", remote, reason);
        ControlWire.write(out, ControlWire.REFUSE, ControlWire.utf8(reason));
    }

    private static void closeQuietly(final Socket s)
    {
        try
        {
            s.close();
        }
        catch (final IOException ignored)
        {
            // nothing to do
        }
    }

    @Override
    public void close()
    {
        running = false;
        try
        {
            server.close();
        }
        catch (final IOException ignored)
        {
            // closing
        }
        try
        {
            acceptor.join(2000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}

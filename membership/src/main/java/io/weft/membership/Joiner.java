package io.weft.membership;

import io.weft.config.MemberAddress;
import io.weft.config.WeftConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The joining side of the control channel: asks the members of the address book in turn, follows redirects to the
 * leader, authenticates (both ways), and waits for the view that adds this member and the state that goes with it.
 * A member of the view fetches state from another the same way ({@link #fetch}).
 */
final class Joiner
{
    private static final Logger LOG = LoggerFactory.getLogger(Joiner.class);
    private static final int CONNECT_TIMEOUT_MS = 1000;
    private static final String NO_ANSWER = "no member answered";

    /**
     * The first view of a joiner and the application state to install before delivering in it, still arriving on the
     * control connection that closing the admission closes.
     */
    record Admission(View view, List<RuntimeSubgroups.Spec> added, StateChunks.Input state, Socket socket)
        implements AutoCloseable
    {
        @Override
        public void close()
        {
            try
            {
                socket.close();
            }
            catch (final IOException ignored)
            {
                // closing only
            }
        }
    }

    private Joiner()
    {
    }

    static Admission join(final WeftConfig config, final byte[] request)
    {
        if (request.length > StateTransfer.MAX_JOIN_REQUEST)
        {
            throw new IllegalArgumentException("the state transfer's join request is " + request.length + " bytes; " +
                "at most " + StateTransfer.MAX_JOIN_REQUEST + " travel with a join");
        }
        final String secret = config.membership().secret();
        if (secret == null)
        {
            throw new GroupRefusedException("member " + config.memberId() + " cannot join: weft.membership.secret " +
                "is not set (the group's pre-shared secret)");
        }
        final long deadline = System.nanoTime() + config.membership().joinTimeout().toNanos();
        final List<MemberAddress> others = new ArrayList<>();
        for (final MemberAddress m : config.group().members())
        {
            if (m.id() != config.memberId())
            {
                others.add(m);
            }
        }
        String last = NO_ANSWER;
        int next = 0;
        Integer redirect = null;
        int retries = 0;
        while (System.nanoTime() < deadline)
        {
            final MemberAddress target = redirect != null
                ? config.group().members().get(config.group().rankOf(redirect)) : others.get(next++ % others.size());
            redirect = null;
            try
            {
                final Attempt a = attempt(config, secret, target, deadline, request);
                switch (a.outcome)
                {
                    case ADMITTED:
                        return a.admission;
                    case REDIRECT:
                        redirect = a.leader;
                        last = "member " + target.id() + " redirected to leader " + a.leader;
                        continue;
                    default:
                        last = "member " + target.id() + ": " + a.reason;
                        if (retries++ == 0)
                        {
                            LOG.info("member {} retries its join: {}", config.memberId(), last);
                        }
                }
            }
            catch (final IOException ex) // a refusal (GroupRefusedException) ends the join at once
            {
                if (!(ex instanceof java.net.SocketTimeoutException) || NO_ANSWER.equals(last))
                {
                    last = "member " + target.id() + " at " + target.host() + ":" + target.controlPort() + ": " + ex;
                } // else: a timeout (often the join deadline cutting an attempt short) says less than the error before
            }
            LOG.debug("join attempt failed: {}", last);
            LockSupport.parkNanos(200_000_000L);
        }
        throw new GroupJoinException("member " + config.memberId() + " could not join group " +
            config.group().name() + " within " + config.membership().joinTimeout() + ": " + last, null);
    }

    private enum Outcome
    {
        ADMITTED, REDIRECT, RETRY
    }

    private record Attempt(Outcome outcome, Admission admission, int leader, String reason)
    {
    }

    /** The leader a REDIRECT names, checked: 4 bytes holding an id of the address book (this member's own too). */
    private static int redirectTarget(final WeftConfig config, final MemberAddress from, final byte[] payload)
        throws ControlWire.ProtocolException
    {
        if (payload.length != 4)
        {
            throw new ControlWire.ProtocolException("member " + from.id() + " sent a malformed REDIRECT of " +
                payload.length + " bytes (expected a 4-byte member id)");
        }
        final int leader = ByteBuffer.wrap(payload).getInt();
        if (config.group().rankOf(leader) < 0)
        {
            throw new ControlWire.ProtocolException("member " + from.id() + " redirected to member " + leader +
                ", which is not in weft.group.members");
        }
        return leader;
    }

    /** An authenticated control connection: the handshake passed both ways; the member's reply comes next. */
    private record Handshake(DataInputStream in, byte[] myNonce, byte[] theirNonce)
    {
    }

    /** Connects {@code s} to {@code target}, opens with {@code type} (JOIN or FETCH) and authenticates both ways. */
    private static Handshake handshake(final WeftConfig config, final String secret, final MemberAddress target,
        final Socket s, final byte type, final byte[] request) throws IOException
    {
        final String what = type == ControlWire.FETCH ? "fetch" : "join";
        s.connect(new InetSocketAddress(target.host(), target.controlPort()), CONNECT_TIMEOUT_MS);
        s.setTcpNoDelay(true);
        s.setSoTimeout(5000);
        final DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        final String group = config.group().name();
        final byte[] name = ControlWire.utf8(group);
        final byte[] myNonce = ControlWire.nonce();
        final ByteBuffer join = ByteBuffer.allocate(2 + name.length + 4 + ControlWire.NONCE);
        join.putShort((short)name.length).put(name).putInt(config.memberId()).put(myNonce);
        ControlWire.write(out, type, join.array());
        final ControlWire.Frame challenge = ControlWire.read(in, ControlWire.MAX_REQUEST);
        if (challenge.type() == ControlWire.REFUSE)
        {
            throw new GroupRefusedException("member " + target.id() + " refused the " + what + ": " +
                ControlWire.text(challenge.payload()));
        }
        if (challenge.type() != ControlWire.CHALLENGE || challenge.payload().length != 2 * ControlWire.NONCE)
        {
            throw new ControlWire.ProtocolException("expected a challenge, got frame type " + challenge.type());
        }
        final byte[] theirNonce = java.util.Arrays.copyOfRange(challenge.payload(), 0, ControlWire.NONCE);
        final byte[] theirProof = java.util.Arrays.copyOfRange(challenge.payload(), ControlWire.NONCE,
            2 * ControlWire.NONCE);
        final String label = type == ControlWire.FETCH ? ControlServer.FETCHER : ControlServer.JOINER;
        final byte[] myProof = ByteBuffer.allocate(ControlWire.NONCE + request.length)
            .put(ControlWire.proof(secret, label, group, config.memberId(), theirNonce, request))
            .put(request).array();
        if (!ControlWire.sameProof(theirProof, ControlWire.proof(secret, "weft-member", group, config.memberId(),
            myNonce)))
        {
            ControlWire.write(out, ControlWire.RESPONSE, myProof); // so that the member logs the failed attempt
            throw new GroupRefusedException("member " + target.id() + " at " + target.host() + ":" +
                target.controlPort() + " could not prove it knows the group secret: the secrets differ");
        }
        ControlWire.write(out, ControlWire.RESPONSE, myProof);
        return new Handshake(in, myNonce, theirNonce);
    }

    private static Attempt attempt(final WeftConfig config, final String secret, final MemberAddress target,
        final long deadline, final byte[] request) throws IOException
    {
        final Socket s = new Socket();
        boolean admitted = false;
        try
        {
            final Handshake h = handshake(config, secret, target, s, ControlWire.JOIN, request);
            final DataInputStream in = h.in();
            final String group = config.group().name();
            final byte[] myNonce = h.myNonce();
            final byte[] theirNonce = h.theirNonce();
            final ControlWire.Frame reply = ControlWire.read(in, ControlWire.MAX_REQUEST);
            switch (reply.type())
            {
                case ControlWire.REFUSE:
                    throw new GroupRefusedException("member " + target.id() + " refused the join: " +
                        ControlWire.text(reply.payload()));
                case ControlWire.REDIRECT:
                    final int leader = redirectTarget(config, target, reply.payload());
                    // the leader has this member's id: its previous run, still in the view until found failed (a
                    // restart: wait), or another process with the same id (the join times out naming it)
                    return leader == config.memberId() ? new Attempt(Outcome.RETRY, null, -1, "its leader is " +
                        "member " + leader + ", this member's id: member " + leader + "'s previous run is still in " +
                        "the view (it leaves once found failed), or another process runs with id " + leader) :
                        new Attempt(Outcome.REDIRECT, null, leader, null);
                case ControlWire.RETRY:
                    return new Attempt(Outcome.RETRY, null, -1, ControlWire.text(reply.payload()));
                case ControlWire.ACCEPTED:
                    break;
                default:
                    throw new ControlWire.ProtocolException("unexpected frame type " + reply.type());
            }
            LOG.info("member {} accepted by leader {}; waiting for the view that adds it", config.memberId(),
                target.id());
            s.setSoTimeout((int)Math.max(1, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000)));
            final byte[] encoded = ControlWire.expect(in, ControlWire.MAX_REQUEST, ControlWire.VIEW).payload();
            final byte[] mac = ControlWire.expect(in, ControlWire.MAX_REQUEST, ControlWire.ADMIT_MAC).payload();
            if (!ControlWire.sameProof(mac, ControlWire.viewMac(secret, group, config.memberId(), myNonce,
                theirNonce, encoded)))
            {
                throw new ControlWire.ProtocolException("the view from member " + target.id() + " failed " +
                    "authentication (altered on the way, or not from the member that accepted the join)");
            }
            final ControlWire.ViewFrame frame = ControlWire.decodeView(encoded);
            final View view = frame.view();
            if (!view.contains(config.memberId()))
            {
                throw new ControlWire.ProtocolException("admitted into " + view + " which does not contain member " +
                    config.memberId());
            }
            // the state may be large: from here each read waits at most a join timeout, however long the whole takes
            s.setSoTimeout((int)Math.min(Integer.MAX_VALUE, config.membership().joinTimeout().toMillis()));
            final StateChunks.Input state = new StateChunks.Input(in, secret, group, config.memberId(), myNonce,
                theirNonce, "member " + target.id());
            admitted = true;
            return new Attempt(Outcome.ADMITTED, new Admission(view, frame.added(), state, s), -1, null);
        }
        finally
        {
            if (!admitted)
            {
                s.close();
            }
        }
    }

    /**
     * Fetches member {@code memberId}'s capture of its state for {@code request} and hands it to {@code reader},
     * checking that it was read whole ({@link Group#fetchState}).
     */
    static void fetch(final WeftConfig config, final int memberId, final byte[] request,
        final StateTransfer.StateReader reader) throws IOException
    {
        if (request.length > StateTransfer.MAX_JOIN_REQUEST)
        {
            throw new IllegalArgumentException("a fetch request is " + request.length + " bytes; at most " +
                StateTransfer.MAX_JOIN_REQUEST + " travel with the handshake");
        }
        final String secret = config.membership().secret();
        final int rank = config.group().rankOf(memberId);
        if (secret == null || rank < 0 || memberId == config.memberId())
        {
            throw new GroupRefusedException(secret == null ? "member " + config.memberId() + " cannot fetch state: " +
                "weft.membership.secret is not set (the group's pre-shared secret)" : "cannot fetch state from " +
                "member " + memberId + ": not another member of weft.group.members");
        }
        final MemberAddress target = config.group().members().get(rank);
        try (Socket s = new Socket())
        {
            final Handshake h = handshake(config, secret, target, s, ControlWire.FETCH, request);
            final ControlWire.Frame reply = ControlWire.read(h.in(), ControlWire.MAX_REQUEST);
            if (reply.type() == ControlWire.REFUSE)
            {
                throw new GroupRefusedException("member " + memberId + " refused the fetch: " +
                    ControlWire.text(reply.payload()));
            }
            if (reply.type() != ControlWire.ACCEPTED)
            {
                throw new ControlWire.ProtocolException("unexpected frame type " + reply.type());
            }
            s.setSoTimeout((int)Math.min(Integer.MAX_VALUE, config.membership().joinTimeout().toMillis()));
            final StateChunks.Input state = new StateChunks.Input(h.in(), secret, config.group().name(),
                config.memberId(), h.myNonce(), h.theirNonce(), "member " + memberId);
            reader.read(state);
            state.finish();
        }
    }
}

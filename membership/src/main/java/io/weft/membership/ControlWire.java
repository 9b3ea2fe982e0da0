package io.weft.membership;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * Frames of the control channel (joins): {@code magic, version, type, length, payload}, big-endian. Every frame is
 * checked before it is believed: a stranger's bytes get a {@link ProtocolException} naming what was wrong.
 *
 * <p>Join handshake, mutual HMAC-SHA256 over the pre-shared group secret:
 * <pre>
 *   joiner -&gt; member   JOIN      group, member id, joiner nonce (32 bytes)
 *   member -&gt; joiner   CHALLENGE member nonce, HMAC(secret, "weft-member" | group | id | joiner nonce)
 *   joiner -&gt; member   RESPONSE  HMAC(secret, "weft-joiner" | group | id | member nonce | request), request
 *                                (what the joiner holds already: {@link StateTransfer#joinRequest}, may be empty)
 *   member -&gt; joiner   REDIRECT leader id | RETRY reason | REFUSE reason | ACCEPTED
 *   (leader, once the view with the joiner is installed)  VIEW (with the subgroups added at run time), then
 *   member -&gt; joiner   ADMIT_MAC HMAC(secret, "weft-admit" | group | id | joiner nonce | member nonce | VIEW)
 *   member -&gt; joiner   STATE*    the application state in chunks, each under its own MAC ({@link StateChunks})
 * </pre>
 * A member of the view fetches part of another member's state outside a view change ({@link Group#fetchState}: the
 * DDS layer's logs when a whole group starts again) with the same handshake opened by FETCH instead of JOIN; the
 * member answers REFUSE reason, or ACCEPTED and STATE* ({@link StateTransfer#captureNow} of the request). A member
 * about to open view 0 asks each other member's port PROBE, unauthenticated: a member answers PROBED with its group's
 * name and closes ({@link GoneProbe#listens}).
 * Neither side sends the secret; each proves it knows it, so a joiner never takes a view from an impostor, and the
 * view and state it installs are bound to this handshake: nobody on the path can alter or replay them. The member
 * gives a handshake 5 s in all (not per read), so a client trickling bytes cannot hold one of its slots.
 */
final class ControlWire
{
    static final int MAGIC = 0x57464354; // "WFCT"
    // 2: the joiner's state request in RESPONSE, under its MAC; 3: VIEW lists added subgroups; 4: the state in chunks;
    // 5: FETCH; 6: PROBE
    static final byte VERSION = 6;
    static final byte JOIN = 1;
    static final byte CHALLENGE = 2;
    static final byte RESPONSE = 3;
    static final byte REDIRECT = 4;
    static final byte REFUSE = 5;
    static final byte RETRY = 6;
    static final byte ACCEPTED = 7;
    static final byte VIEW = 8;
    static final byte STATE = 9;
    static final byte ADMIT_MAC = 10;
    static final byte FETCH = 11;
    static final byte PROBE = 12;
    static final byte PROBED = 13;
    static final int NONCE = 32;
    /** Largest frame a member accepts from a joiner: only the handshake travels that way. */
    static final int MAX_REQUEST = 4096;

    private static final SecureRandom RANDOM = new SecureRandom();

    private ControlWire()
    {
    }

    record Frame(byte type, byte[] payload)
    {
    }

    /** Malformed or unexpected bytes on the control channel. */
    static final class ProtocolException extends IOException
    {
        private static final long serialVersionUID = 1L;

        ProtocolException(final String message)
        {
            super(message);
        }
    }

    static void write(final DataOutputStream out, final byte type, final byte[] payload) throws IOException
    {
        out.writeInt(MAGIC);
        out.writeByte(VERSION);
        out.writeByte(type);
        out.writeInt(payload.length);
        out.write(payload);
        out.flush();
    }

    static Frame read(final DataInputStream in, final int maxLength) throws IOException
    {
        final int magic = in.readInt();
        if (magic != MAGIC)
        {
            throw new ProtocolException("not a weft control frame (magic 0x" + Integer.toHexString(magic) + ")");
        }
        final byte version = in.readByte();
        if (version != VERSION)
        {
            throw new ProtocolException("control protocol version " + version + ", this member speaks " + VERSION);
        }
        final byte type = in.readByte();
        final int length = in.readInt();
        if (length < 0 || length > maxLength)
        {
            throw new ProtocolException("frame of " + length + " bytes, at most " + maxLength + " accepted here");
        }
        final byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame(type, payload);
    }

    static Frame expect(final DataInputStream in, final int maxLength, final byte type) throws IOException
    {
        final Frame f = read(in, maxLength);
        if (f.type() != type)
        {
            throw new ProtocolException("expected frame type " + type + ", got " + f.type());
        }
        return f;
    }

    static byte[] nonce()
    {
        final byte[] n = new byte[NONCE];
        RANDOM.nextBytes(n);
        return n;
    }

    static byte[] proof(final String secret, final String role, final String group, final int memberId,
        final byte[] nonce)
    {
        return proof(secret, role, group, memberId, nonce, new byte[0]);
    }

    /** The proof over {@code nonce} and then {@code request} (the joiner's RESPONSE binds its state request). */
    static byte[] proof(final String secret, final String role, final String group, final int memberId,
        final byte[] nonce, final byte[] request)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update(role.getBytes(StandardCharsets.UTF_8));
            mac.update((byte)0);
            mac.update(group.getBytes(StandardCharsets.UTF_8));
            mac.update((byte)0);
            mac.update(java.nio.ByteBuffer.allocate(4).putInt(memberId).array());
            mac.update(nonce);
            return mac.doFinal(request);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 unavailable", ex);
        }
    }

    /**
     * An HMAC keyed with the group secret that has taken {@code label} and the admission's handshake (group, joiner
     * id, both nonces): the VIEW's MAC and each STATE chunk's start from it. Clone it for each use.
     */
    static Mac admission(final String secret, final String label, final String group, final int memberId,
        final byte[] joinerNonce, final byte[] memberNonce)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update(utf8(label));
            mac.update((byte)0);
            mac.update(utf8(group));
            mac.update((byte)0);
            mac.update(java.nio.ByteBuffer.allocate(4).putInt(memberId).array());
            mac.update(joinerNonce);
            mac.update(memberNonce);
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 unavailable", ex);
        }
    }

    /** The MAC of an admission's VIEW payload, bound to the handshake's two nonces. */
    static byte[] viewMac(final String secret, final String group, final int memberId, final byte[] joinerNonce,
        final byte[] memberNonce, final byte[] view)
    {
        return admission(secret, "weft-admit", group, memberId, joinerNonce, memberNonce).doFinal(view);
    }

    /** Constant-time comparison, so that timing reveals nothing about a proof. */
    static boolean sameProof(final byte[] a, final byte[] b)
    {
        return MessageDigest.isEqual(a, b);
    }

    static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(final byte[] b)
    {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A joiner's first view and the subgroups added at run time that it holds. */
    record ViewFrame(View view, List<RuntimeSubgroups.Spec> added)
    {
    }

    static byte[] encodeView(final View v, final List<RuntimeSubgroups.Spec> added)
    {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeLong(v.id());
            for (final List<Integer> list : List.of(v.members(), v.joined(), v.left(), v.failed()))
            {
                out.writeInt(list.size());
                for (final int id : list)
                {
                    out.writeInt(id);
                }
            }
            RuntimeSubgroups.encodeAll(added, out);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        return bytes.toByteArray();
    }

    static ViewFrame decodeView(final byte[] payload) throws ProtocolException
    {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(payload)))
        {
            final long id = in.readLong();
            final List<List<Integer>> lists = new ArrayList<>();
            for (int l = 0; l < 4; l++)
            {
                final int n = in.readInt();
                if (n < 0 || n > io.weft.config.GroupConfig.MAX_MEMBERS)
                {
                    throw new ProtocolException("view with a list of " + n + " members");
                }
                final List<Integer> list = new ArrayList<>();
                for (int i = 0; i < n; i++)
                {
                    list.add(in.readInt());
                }
                lists.add(list);
            }
            final View view = new View(id, lists.get(0), lists.get(1), lists.get(2), lists.get(3));
            return new ViewFrame(view, RuntimeSubgroups.decodeAll(in));
        }
        catch (final ProtocolException ex)
        {
            throw ex;
        }
        catch (final IOException ex)
        {
            throw new ProtocolException("truncated view: " + ex.getMessage());
        }
    }
}

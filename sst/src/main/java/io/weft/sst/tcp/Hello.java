package io.weft.sst.tcp;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The versioned handshake of a tcp connection, before any push is applied. Fixed {@value #SIZE} bytes, so that
 * frames after it stay 8-byte aligned in the receive buffer:
 * <pre>
 *   [0, 128)    magic, version, kind, then for HELLO: layout checksum, rows, row size, member id, rank, the udp port
 *               of its heartbeats ({@link BeatLane}), group name;
 *               for REJECT: a reason; for CHALLENGE: nothing
 *   [128, 160)  nonce: the sender's fresh random bytes (CHALLENGE, and the dialler's HELLO)
 *   [160, 192)  mac: HMAC-SHA256(secret, role | bytes [0, 128) | the peer's nonce), zero without a secret
 * </pre>
 * The acceptor speaks first with a CHALLENGE; the dialler answers with its HELLO, MAC'd over the challenge; the
 * acceptor answers with its own HELLO, MAC'd over the dialler's nonce. With {@code weft.membership.secret} set, a
 * peer that cannot prove it knows the secret never gets a rank, and a recorded hello is useless for another
 * connection.
 */
record Hello(int kind, long layoutChecksum, int rows, int rowSize, int memberId, int rank, int beatPort, String group,
    String reason, byte[] nonce, byte[] mac, byte[] fields)
{
    static final int MAGIC = 0x5745_4654; // "WEFT"
    static final short VERSION = 3;
    static final int SIZE = 192;
    static final int HELLO = 1;
    static final int REJECT = 2;
    static final int CHALLENGE = 3;
    static final int NONCE = 32;
    static final String DIAL = "weft-sst-dial";
    static final String ACCEPT = "weft-sst-accept";
    private static final int FIELDS = 128;
    private static final int MAX_GROUP = 63;
    private static final int MAX_REASON = FIELDS - 10;
    private static final byte[] NO_MAC = new byte[32];
    private static final SecureRandom RANDOM = new SecureRandom();

    static Hello hello(final long checksum, final int rows, final int rowSize, final int memberId, final int rank,
        final int beatPort, final String group)
    {
        return new Hello(HELLO, checksum, rows, rowSize, memberId, rank, beatPort, group, null, new byte[NONCE], NO_MAC,
            null);
    }

    static Hello reject(final String reason)
    {
        return new Hello(REJECT, 0, 0, 0, -1, -1, 0, null, reason, new byte[NONCE], NO_MAC, null);
    }

    static Hello challenge(final byte[] nonce)
    {
        return new Hello(CHALLENGE, 0, 0, 0, -1, -1, 0, null, null, nonce, NO_MAC, null);
    }

    static byte[] freshNonce()
    {
        final byte[] n = new byte[NONCE];
        RANDOM.nextBytes(n);
        return n;
    }

    /** This hello carrying {@code nonce} and a MAC, in {@code role}, over its fields and the peer's nonce. */
    Hello signed(final String secret, final String role, final byte[] ownNonce, final byte[] peerNonce)
    {
        final Hello withNonce = new Hello(kind, layoutChecksum, rows, rowSize, memberId, rank, beatPort, group, reason,
            ownNonce, NO_MAC, null);
        return new Hello(kind, layoutChecksum, rows, rowSize, memberId, rank, beatPort, group, reason, ownNonce,
            mac(secret, role, withNonce.encodeFields(), peerNonce), null);
    }

    /** Whether this decoded hello proves, in {@code role}, knowledge of {@code secret} (always true without one). */
    boolean verifies(final String secret, final String role, final byte[] ownNonce)
    {
        return secret == null || MessageDigest.isEqual(mac, mac(secret, role, fields, ownNonce));
    }

    private static byte[] mac(final String secret, final String role, final byte[] fields, final byte[] peerNonce)
    {
        if (secret == null)
        {
            return NO_MAC;
        }
        try
        {
            final Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            m.update(role.getBytes(StandardCharsets.UTF_8));
            m.update((byte)0);
            m.update(fields);
            return m.doFinal(peerNonce);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 unavailable", ex);
        }
    }

    private byte[] encodeFields()
    {
        final ByteBuffer b = ByteBuffer.allocate(FIELDS);
        b.putInt(MAGIC).putShort(VERSION).putShort((short)kind);
        if (kind == HELLO)
        {
            final byte[] name = group.getBytes(StandardCharsets.UTF_8);
            b.putLong(layoutChecksum).putInt(rows).putInt(rowSize).putInt(memberId).putInt(rank).putInt(beatPort)
                .putShort((short)name.length).put(name, 0, Math.min(name.length, MAX_GROUP));
        }
        else if (kind == REJECT)
        {
            final byte[] text = reason.getBytes(StandardCharsets.UTF_8);
            final int length = Math.min(text.length, MAX_REASON);
            b.putShort((short)length).put(text, 0, length);
        }
        return b.array();
    }

    void encode(final ByteBuffer dst)
    {
        dst.put(encodeFields()).put(nonce).put(mac);
    }

    /**
     * Decodes the {@value #SIZE} bytes at the buffer's position (which advances).
     *
     * @throws HandshakeException naming what is wrong: this is input from a possible stranger.
     */
    static Hello decode(final ByteBuffer src) throws HandshakeException
    {
        final int start = src.position();
        try
        {
            final int magic = src.getInt();
            if (magic != MAGIC)
            {
                throw new HandshakeException("not a Weft peer: bad magic 0x" + Integer.toHexString(magic));
            }
            final short version = src.getShort();
            if (version != VERSION)
            {
                throw new HandshakeException("protocol version " + version + ", this member speaks " + VERSION);
            }
            final int kind = src.getShort();
            final byte[] fields = new byte[FIELDS];
            src.get(start, fields);
            final byte[] nonce = new byte[NONCE];
            src.get(start + FIELDS, nonce);
            final byte[] mac = new byte[NONCE];
            src.get(start + FIELDS + NONCE, mac);
            if (kind == CHALLENGE)
            {
                return new Hello(CHALLENGE, 0, 0, 0, -1, -1, 0, null, null, nonce, mac, fields);
            }
            if (kind == REJECT)
            {
                final int length = src.getShort();
                if (length < 0 || length > MAX_REASON)
                {
                    throw new HandshakeException("malformed refusal");
                }
                final byte[] text = new byte[length];
                src.get(text);
                return reject(new String(text, StandardCharsets.UTF_8));
            }
            if (kind != HELLO)
            {
                throw new HandshakeException("unknown handshake kind " + kind);
            }
            final long checksum = src.getLong();
            final int rows = src.getInt();
            final int rowSize = src.getInt();
            final int memberId = src.getInt();
            final int rank = src.getInt();
            final int beatPort = src.getInt();
            if (beatPort <= 0 || beatPort > 0xFFFF)
            {
                throw new HandshakeException("malformed heartbeat port " + beatPort);
            }
            final int length = src.getShort();
            if (length <= 0 || length > MAX_GROUP)
            {
                throw new HandshakeException("malformed group name length " + length);
            }
            final byte[] name = new byte[length];
            src.get(name);
            return new Hello(HELLO, checksum, rows, rowSize, memberId, rank, beatPort,
                new String(name, StandardCharsets.UTF_8), null, nonce, mac, fields);
        }
        finally
        {
            src.position(start + SIZE);
        }
    }

    /** Thrown for a handshake that must be refused; the message is the logged and returned reason. */
    static final class HandshakeException extends Exception
    {
        HandshakeException(final String message)
        {
            super(message, null, false, false);
        }
    }
}

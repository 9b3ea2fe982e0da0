package io.weft.tools;

import io.weft.config.MemberAddress;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.SstLayout;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bytes on the tcp port from a stranger, and invalid frames from an authenticated member: each is refused with a
 * logged reason, the table is unchanged, and the real members keep working. The wire format is written out here by
 * hand from its specification (Hello, Frame), independently of the transport's own encoder.
 */
@Timeout(180)
class TcpBadInputTest
{
    private static final int MAGIC = 0x5745_4654;
    private static final int VERSION = 3;
    private static final int BEAT_MAGIC = 0x5746_4842;
    private static final int HANDSHAKE = 192;
    private static final int MEMBERS = 4; // 0..2 are real processes, 3 is played by this test
    private static final long COUNT = 300_000;

    @TempDir
    Path dir;

    @Test
    void strangersAndInvalidFramesAreRefusedAndTheGroupKeepsWorking() throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.TCP, MEMBERS);
        final Path file = TestGroups.write(config, dir);
        final SstLayout layout = SstMember.layout(SstMember.Workload.counter, MEMBERS);
        final String group = config.group().name();
        try (Members members = new Members(config))
        {
            for (int i = 0; i < 3; i++)
            {
                members.add(MemberProcess.start("m" + i, dir, Weft.class, "sst-member", "--config", file.toString(),
                    "--member", String.valueOf(i), "--count", String.valueOf(COUNT), "--timeout", "PT2M"));
            }
            final MemberAddress m0 = config.group().members().get(0);
            awaitListening(m0);

            // strangers, while the members wait for member 3
            final byte[] random = new byte[HANDSHAKE];
            new Random(42).nextBytes(random);
            random[0] = 0x13;
            assertRefused(m0, random, "not a Weft peer: bad magic");
            assertRefused(m0, hello(0xDEAD_BEEF, 1, group, layout.checksum(), MEMBERS, layout.rowSize(), 3, 3, 9), "bad magic 0xdeadbeef");
            assertRefused(m0, hello(MAGIC, 99, group, layout.checksum(), MEMBERS, layout.rowSize(), 3, 3, 9), "protocol version 99");
            assertRefused(m0, hello(MAGIC, VERSION, "other-group", layout.checksum(), MEMBERS, layout.rowSize(), 3, 3, 9), "group 'other-group'");
            assertRefused(m0, hello(MAGIC, VERSION, group, layout.checksum() ^ 1, MEMBERS, layout.rowSize(), 3, 3, 9), "layout checksum");
            assertRefused(m0, hello(MAGIC, VERSION, group, layout.checksum(), MEMBERS, layout.rowSize(), 42, 3, 9), "not in this group's member list");
            assertRefused(m0, new byte[] {0x57, 0x45, 0x46}, "no complete handshake");

            // member 3, played by this test: a correct handshake with each real member opens the group
            final Socket[] rogue = new Socket[3];
            final long[] challenges = new long[3];
            final int[] beatPorts = new int[3];
            final String host3 = config.group().members().get(3).host();
            final DatagramChannel beats = DatagramChannel.open().bind(new InetSocketAddress(host3, 0));
            final DatagramChannel stranger = DatagramChannel.open().bind(new InetSocketAddress(host3, 0));
            final int myBeatPort = ((InetSocketAddress)beats.getLocalAddress()).getPort();
            for (int i = 0; i < 3; i++)
            {
                rogue[i] = new Socket(config.group().members().get(i).host(), config.group().members().get(i).sstPort());
                rogue[i].setSoTimeout(30_000);
                challenges[i] = assertChallenge(rogue[i]).getLong(128);
                rogue[i].getOutputStream().write(hello(MAGIC, VERSION, group, layout.checksum(), MEMBERS, layout.rowSize(),
                    3, 3, myBeatPort));
                final ByteBuffer reply = ByteBuffer.wrap(readFully(rogue[i].getInputStream(), HANDSHAKE));
                assertEquals(MAGIC, reply.getInt(0));
                assertEquals(1, reply.getShort(6), "member " + i + " answered with a hello");
                beatPorts[i] = reply.getInt(32);
            }
            for (int i = 0; i < 3; i++)
            {
                members.processes().get(i).awaitOutput("member " + i + ": table open", Duration.ofSeconds(30));
            }
            // a second connection claiming a connected member is refused
            final MemberAddress m1 = config.group().members().get(1);
            assertRefused(m1, hello(MAGIC, VERSION, group, layout.checksum(), MEMBERS, layout.rowSize(), 2, 2, 9), "already connected");

            // bad heartbeat datagrams: a wrong token from the announced socket, a right one from another socket, and a
            // short one; each is dropped (the first per member logged) and nobody takes them for a sign of life
            final String[] beatReasons = {"wrong token for rank 3", "not the address that rank 3 announced", "length 7"};
            sendBeat(beats, config.group().members().get(0), beatPorts[0], beat(3, challenges[0] ^ 1, 0));
            sendBeat(stranger, config.group().members().get(1), beatPorts[1], beat(3, challenges[1], 0));
            sendBeat(beats, config.group().members().get(2), beatPorts[2], new byte[7]);
            for (int i = 0; i < 3; i++)
            {
                members.processes().get(i).awaitOutput(beatReasons[i], Duration.ofSeconds(30));
            }
            beats.close();
            stranger.close();

            // invalid frames from the authenticated member 3: each closes its connection, nothing is applied
            final int row = layout.rowSize();
            send(rogue[0], frame(1, row + 8, 0, row + 8));      // oversized
            send(rogue[1], frame(1, 8, row, 8));                // outside the row
            send(rogue[2], frame(9, 8, 0, 8));                  // unknown type
            for (final Socket s : rogue)
            {
                // the member's own pushes to member 3 may still be in flight; then the connection ends
                final byte[] sink = new byte[8192];
                while (s.getInputStream().read(sink) >= 0)
                {
                    // drain until the member closes it (the 30 s read timeout fails the test otherwise)
                }
                s.close();
            }

            final String[] reasons = {"oversized frame", "outside the row", "unknown frame type 9"};
            for (int i = 0; i < 3; i++)
            {
                final MemberProcess m = members.processes().get(i);
                final int code = m.awaitExit(Duration.ofSeconds(150));
                final String out = m.output();
                assertEquals(SstMember.EXIT_MEMBER_FAILED, code, out);
                assertTrue(out.contains("refused frame from member at rank 3") && out.contains(reasons[i]), out);
                assertTrue(out.contains("saw every live member's counter reach " + COUNT) && out.contains("violations=0"), out);
                assertTrue(out.contains("row of failed member 3: value=-1 finished=-1 (untouched)"), out);
            }
            final String out0 = members.processes().getFirst().output();
            for (final String logged : new String[] {"bad magic 0x13", "bad magic 0xdeadbeef", "protocol version 99",
                "group 'other-group'", "layout checksum", "member id 42", "no complete handshake"})
            {
                assertTrue(out0.contains("refused connection from") && out0.contains(logged), "not logged: " + logged + "\n" + out0);
            }
        }
    }

    private static void awaitListening(final MemberAddress m) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true)
        {
            try (Socket ignored = new Socket(m.host(), m.sstPort()))
            {
                return; // this probe itself is a stranger that sends nothing: refused after the handshake timeout
            }
            catch (final IOException ex)
            {
                assertTrue(System.nanoTime() < deadline, "member 0 never listened: " + ex);
                Thread.sleep(20);
            }
        }
    }

    /** Sends bytes, expects a refusal carrying {@code reason}, then the connection closed. */
    private static void assertRefused(final MemberAddress m, final byte[] bytes, final String reason) throws IOException
    {
        try (Socket s = new Socket(m.host(), m.sstPort()))
        {
            s.setSoTimeout(15_000);
            assertChallenge(s);
            s.getOutputStream().write(bytes);
            final ByteBuffer reply = ByteBuffer.wrap(readFully(s.getInputStream(), HANDSHAKE));
            assertEquals(MAGIC, reply.getInt(0));
            assertEquals(2, reply.getShort(6), "a refusal");
            final int length = reply.getShort(8);
            final String text = new String(reply.array(), 10, length, StandardCharsets.UTF_8);
            assertTrue(text.contains(reason), "refusal '" + text + "' does not say '" + reason + "'");
            assertEquals(-1, s.getInputStream().read(), "connection closed after the refusal");
        }
        catch (final ConnectException ex)
        {
            throw new AssertionError("member not listening", ex);
        }
    }

    /** The acceptor speaks first: a challenge (kind 3) carrying its nonce. */
    private static ByteBuffer assertChallenge(final Socket s) throws IOException
    {
        final ByteBuffer challenge = ByteBuffer.wrap(readFully(s.getInputStream(), HANDSHAKE));
        assertEquals(MAGIC, challenge.getInt(0));
        assertEquals(3, challenge.getShort(6), "a challenge first");
        return challenge;
    }

    /** A heartbeat datagram as BeatLane specifies it: magic, version 1, rank, the pair's token. */
    static byte[] beat(final int rank, final long challenge, final long dialNonce)
    {
        return ByteBuffer.allocate(24).putInt(BEAT_MAGIC).putShort((short)1).putShort((short)rank).putLong(challenge)
            .putLong(dialNonce).array();
    }

    private static void sendBeat(final DatagramChannel from, final MemberAddress to, final int port, final byte[] bytes)
        throws IOException
    {
        from.send(ByteBuffer.wrap(bytes), new InetSocketAddress(to.host(), port));
    }

    static byte[] hello(final int magic, final int version, final String group, final long checksum, final int rows,
        final int rowSize, final int memberId, final int rank, final int beatPort)
    {
        final ByteBuffer b = ByteBuffer.allocate(HANDSHAKE); // nonce and MAC zero: the group has no secret
        final byte[] name = group.getBytes(StandardCharsets.UTF_8);
        b.putInt(magic).putShort((short)version).putShort((short)1).putLong(checksum).putInt(rows).putInt(rowSize)
            .putInt(memberId).putInt(rank).putInt(beatPort).putShort((short)name.length).put(name);
        return b.array();
    }

    static byte[] frame(final int type, final int length, final int offset, final int payload)
    {
        final ByteBuffer b = ByteBuffer.allocate(16 + payload);
        b.put((byte)type).put((byte)0).putShort((short)0).putInt(length).putInt(offset).putInt(0);
        while (b.hasRemaining())
        {
            b.put((byte)0x7f); // would make any counter it reached absurdly large
        }
        return b.array();
    }

    private static void send(final Socket s, final byte[] bytes) throws IOException
    {
        s.getOutputStream().write(bytes);
        s.getOutputStream().flush();
    }

    private static byte[] readFully(final InputStream in, final int n) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] buf = new byte[n];
        while (out.size() < n)
        {
            final int r = in.read(buf, 0, n - out.size());
            if (r < 0)
            {
                throw new IOException("closed after " + out.size() + " of " + n + " bytes");
            }
            out.write(buf, 0, r);
        }
        return out.toByteArray();
    }
}

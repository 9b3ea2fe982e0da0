package io.weft.sst.tcp;

import io.weft.config.MembershipConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.testkit.Async;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13, item 6: with {@code weft.membership.secret} set, the data port's handshake is authenticated. A stranger
 * that knows the address book and the layout but not the secret cannot claim a rank (and so cannot write a row,
 * forged suspicions included), whether it sends no MAC, a MAC made with another secret, or a hello recorded from
 * another connection; the real member with the secret connects.
 */
@Timeout(60)
class TcpAuthTest
{
    private static final String SECRET = "tcp-auth-test-secret-0123456789";
    private static final SstLayout LAYOUT = SstLayout.builder().counter("count").build();

    @Test
    void onlyAPeerThatProvesTheSecretGetsARank() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 2)
            .membership(new MembershipConfig(List.of(), SECRET, ViewChangeSends.WAIT, Duration.ofSeconds(10)))
            .build();
        final CompletableFuture<Sst> opening = Async.open(() -> Sst.open(config, LAYOUT));
        final var m0 = config.group().members().get(0);
        final Hello mine = Hello.hello(LAYOUT.checksum(), 2, LAYOUT.rowSize(), 1, 1, 9, config.group().name());
        byte[] recorded = null;
        for (final String key : new String[] {null, "not-the-secret-0123456789", "replay"})
        {
            try (Socket s = connect(m0.host(), m0.sstPort()))
            {
                final Hello challenge = read(s.getInputStream());
                assertEquals(Hello.CHALLENGE, challenge.kind());
                final byte[] hello;
                if ("replay".equals(key))
                {
                    hello = recorded; // a correct hello, but signed over another connection's challenge
                }
                else
                {
                    hello = encode(key == null ? mine : mine.signed(key, Hello.DIAL, Hello.freshNonce(), challenge.nonce()));
                }
                s.getOutputStream().write(hello);
                final Hello reply = read(s.getInputStream());
                assertEquals(Hello.REJECT, reply.kind(), "stranger with " + key + " was accepted");
                assertTrue(reply.reason().contains("authentication failed"), reply.reason());
                if (key == null)
                {
                    recorded = encode(mine.signed(SECRET, Hello.DIAL, Hello.freshNonce(), challenge.nonce()));
                }
            }
        }
        try (Socket s = connect(m0.host(), m0.sstPort()))
        {
            final Hello challenge = read(s.getInputStream());
            final byte[] nonce = Hello.freshNonce();
            s.getOutputStream().write(encode(mine.signed(SECRET, Hello.DIAL, nonce, challenge.nonce())));
            final Hello reply = read(s.getInputStream());
            assertEquals(Hello.HELLO, reply.kind(), "the member with the secret is refused: " + reply.reason());
            assertTrue(reply.verifies(SECRET, Hello.ACCEPT, nonce), "member 0 proves the secret too");
            try (Sst sst = opening.get(30, TimeUnit.SECONDS))
            {
                assertEquals(0, sst.myRank());
            }
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            throw new AssertionError("member 0 did not open: " + ex.getCause(), ex);
        }
    }

    private static Socket connect(final String host, final int port) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true)
        {
            try
            {
                final Socket s = new Socket(host, port);
                s.setSoTimeout(15_000);
                return s;
            }
            catch (final IOException ex)
            {
                assertTrue(System.nanoTime() < deadline, "member 0 never listened: " + ex);
                Thread.sleep(20);
            }
        }
    }

    private static byte[] encode(final Hello h)
    {
        final ByteBuffer b = ByteBuffer.allocate(Hello.SIZE);
        h.encode(b);
        return b.array();
    }

    private static Hello read(final InputStream in) throws Exception
    {
        return Hello.decode(ByteBuffer.wrap(in.readNBytes(Hello.SIZE)));
    }
}

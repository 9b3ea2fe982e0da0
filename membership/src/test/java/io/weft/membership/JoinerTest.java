package io.weft.membership;

import io.weft.config.MembershipConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The joining side against a member that knows the group secret but answers wrongly (issue 13, item 6): a
 * REDIRECT shorter than 4 bytes or naming an unknown id, and a VIEW/STATE whose MAC does not match. Each is a clear
 * error naming what was wrong, never an unchecked exception out of {@code join()}.
 */
@Timeout(30)
class JoinerTest
{
    private static final String SECRET = "joiner-test-secret-0123456789";

    @Test
    void aShortRedirectIsAClearError() throws Exception
    {
        final IllegalStateException ex = joinAgainst(new byte[] {0, 1}, null);
        assertTrue(ex.getMessage().contains("malformed REDIRECT of 2 bytes"), ex.getMessage());
    }

    @Test
    void aRedirectToAnUnknownMemberIsAClearError() throws Exception
    {
        final IllegalStateException ex = joinAgainst(ByteBuffer.allocate(4).putInt(77).array(), null);
        assertTrue(ex.getMessage().contains("redirected to member 77, which is not in weft.group.members"),
            ex.getMessage());
    }

    /**
     * A leader with the joiner's own id (its previous run, not yet found failed, or another process with the id):
     * the join goes on trying, and its timeout says so. It said "redirected to member 1, which is not another member
     * of weft.group.members", as if the group's configuration were wrong.
     */
    @Test
    void aRedirectToTheJoinersOwnIdSaysAMemberWithItsIdLeads() throws Exception
    {
        final IllegalStateException ex = joinAgainst(ByteBuffer.allocate(4).putInt(1).array(), null);
        assertTrue(ex.getMessage().contains("member 0: its leader is member 1, this member's id: member 1's previous " +
            "run is still in the view (it leaves once found failed), or another process runs with id 1"),
            ex.getMessage());
    }

    @Test
    void anAdmissionWithAWrongMacIsRefused() throws Exception
    {
        final IllegalStateException ex = joinAgainst(null, new byte[32]);
        assertTrue(ex.getMessage().contains("failed authentication"), ex.getMessage());
    }

    @Test
    void aJoinNoMemberAnswersEndsAtTheJoinTimeoutNamingTheLastAnswer() throws Exception
    {
        final WeftConfig config = joiner(Duration.ofSeconds(1));
        final var member0 = config.group().members().get(0);
        final long start = System.nanoTime();
        final GroupJoinException ex = assertThrows(GroupJoinException.class, () -> Joiner.join(config, new byte[0]));
        final long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 1000, "gave up after " + tookMs + " ms, before the join timeout");
        assertTrue(ex.getMessage().startsWith("member 1 could not join group " + config.group().name() +
            " within PT1S: member 0 at " + member0.host() + ":" + member0.controlPort() + ": java.net.Connect"),
            ex.getMessage());
    }

    private static WeftConfig joiner(final Duration joinTimeout)
    {
        final WeftConfig base = TestGroups.config(TransportKind.TCP, 2);
        return WeftConfig.builder().memberId(1).groupName(base.group().name())
            .members(base.group().members()).transport(TransportKind.TCP)
            .membership(new MembershipConfig(List.of(0), SECRET, ViewChangeSends.WAIT, joinTimeout))
            .build();
    }

    /** Runs a join of member 1 against a fake member 0 that answers with {@code redirect} or a forged admission. */
    private static IllegalStateException joinAgainst(final byte[] redirect, final byte[] forgedMac) throws Exception
    {
        final WeftConfig config = joiner(Duration.ofSeconds(2));
        final var member0 = config.group().members().get(0);
        try (ServerSocket server = new ServerSocket(member0.controlPort(), 8, InetAddress.getByName(member0.host())))
        {
            final Thread fake = Thread.ofPlatform().daemon(true).start(() ->
            {
                while (!server.isClosed())
                {
                    try (Socket s = server.accept())
                    {
                        answer(s, config.group().name(), redirect, forgedMac);
                    }
                    catch (final IOException ignored)
                    {
                        // the joiner hung up: wait for its next attempt
                    }
                }
            });
            try
            {
                return assertThrows(GroupJoinException.class, () -> Joiner.join(config, new byte[0]));
            }
            finally
            {
                server.close();
                fake.join(5000);
            }
        }
    }

    private static void answer(final Socket s, final String group, final byte[] redirect, final byte[] forgedMac)
        throws IOException
    {
        final DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        final byte[] join = ControlWire.expect(in, ControlWire.MAX_REQUEST, ControlWire.JOIN).payload();
        final byte[] joinerNonce = Arrays.copyOfRange(join, join.length - ControlWire.NONCE, join.length);
        final byte[] myNonce = ControlWire.nonce();
        final ByteBuffer challenge = ByteBuffer.allocate(2 * ControlWire.NONCE);
        challenge.put(myNonce).put(ControlWire.proof(SECRET, "weft-member", group, 1, joinerNonce));
        ControlWire.write(out, ControlWire.CHALLENGE, challenge.array());
        ControlWire.expect(in, ControlWire.MAX_REQUEST, ControlWire.RESPONSE);
        if (redirect != null)
        {
            ControlWire.write(out, ControlWire.REDIRECT, redirect);
            return;
        }
        ControlWire.write(out, ControlWire.ACCEPTED, new byte[0]);
        ControlWire.write(out, ControlWire.VIEW, ControlWire.encodeView(new View(1, List.of(0, 1), List.of(1),
            List.of(), List.of()), List.of()));
        ControlWire.write(out, ControlWire.ADMIT_MAC, forgedMac);
        in.read(); // until the joiner hangs up
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's own state, as redis-server 7.0.15 answered the same commands (docs/kv.md): CLIENT REPLY (which
 * replies are sent is decided once each command ran), AUTH and HELLO with and without a password.
 */
@Timeout(10)
class ClientSessionTest
{
    private static final Reply NO_AUTH_HELLO = Reply.error("NOAUTH HELLO must be called with the client already " +
        "authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and " +
        "select the RESP protocol version at the same time");

    private final ClientSession session = new ClientSession(1, DefaultUser.NO_PASSWORD);

    @TempDir
    Path dir;

    /** OFF mutes until ON; SKIP mutes itself and the next; SKIP while OFF does nothing; ON and RESET are answered. */
    @Test
    void clientReplyMutesAsRedis()
    {
        assertEquals(List.of("SET", "CLIENT REPLY ON", "GET"),
            sent("SET", "CLIENT REPLY OFF", "SET", "GET", "CLIENT REPLY ON", "GET"));
        assertEquals(List.of("GET"), sent("CLIENT REPLY SKIP", "SET", "GET"));
        assertEquals(List.of("GET"), sent("CLIENT REPLY SKIP", "CLIENT REPLY SKIP", "GET", "GET"));
        assertEquals(List.of("CLIENT REPLY ON", "GET"),
            sent("CLIENT REPLY OFF", "CLIENT REPLY SKIP", "GET", "CLIENT REPLY FOO", "CLIENT REPLY ON", "GET"));
        assertEquals(List.of("CLIENT REPLY ON", "PING"), sent("CLIENT REPLY SKIP", "CLIENT REPLY ON", "PING"));
        assertEquals(List.of("RESET", "GET"), sent("CLIENT REPLY OFF", "SET", "RESET", "GET"));
        assertEquals(Reply.error("ERR syntax error"), client("CLIENT REPLY FOO"));
        session.resp3 = true;
        client("CLIENT REPLY OFF");
        assertTrue(session.push(Reply.OK).unsent, "a published message is dropped while OFF");
        session.reset();
        assertFalse(session.resp3, "RESET: RESP2");
        assertFalse(session.push(Reply.OK).unsent);
    }

    /** Without a password every connection is in; AUTH default takes any password, as Redis's nopass user. */
    @Test
    void withoutAPasswordAuthAnswersAsRedis()
    {
        assertTrue(session.authenticated);
        assertEquals(Reply.error("ERR AUTH <password> called without any password configured for the default " +
            "user. Are you sure your configuration is correct?"), auth(session, "AUTH x"));
        assertEquals(Reply.OK, auth(session, "AUTH default anything"));
        assertEquals(DefaultUser.WRONG_PASS, auth(session, "AUTH bob x"));
        assertEquals(Reply.error("ERR syntax error"), auth(session, "AUTH a b c"));
        assertInstanceOf(Reply.Map.class, hello(session, "HELLO 3 AUTH default x"));
        assertTrue(session.resp3);
        assertEquals(Reply.error("ERR Protocol version is not an integer or out of range"), hello(session, "HELLO +3"));
        assertEquals(Reply.error("NOPROTO unsupported protocol version"), hello(session, "HELLO 4"));
    }

    /**
     * With a password: nothing until AUTH or HELLO AUTH takes it; a wrong one leaves the connection as it was; RESET
     * asks again; HELLO's syntax errors come before its password is checked.
     */
    @Test
    void withAPasswordAConnectionAuthenticatesFirst() throws IOException
    {
        final DefaultUser user = DefaultUser.fromFile(Files.writeString(dir.resolve("pass"), "s3cret\r\nnot this"));
        final ClientSession s = new ClientSession(2, user);
        assertFalse(s.authenticated);
        assertEquals(NO_AUTH_HELLO, hello(s, "HELLO 3"));
        assertFalse(s.resp3, "refused: the protocol stays");
        assertEquals(DefaultUser.WRONG_PASS, hello(s, "HELLO 3 AUTH default wrong"));
        assertEquals(Reply.error("ERR Syntax error in HELLO option 'FOO'"), hello(s, "HELLO 3 AUTH default s3cret FOO"));
        assertFalse(s.authenticated, "a syntax error first: the password is not checked");
        assertEquals(DefaultUser.WRONG_PASS, auth(s, "AUTH wrong"));
        assertEquals(DefaultUser.WRONG_PASS, auth(s, "AUTH Default s3cret"));
        assertEquals(DefaultUser.WRONG_PASS, auth(s, "AUTH s3cret\r\n"), "the line end is not the password's");
        assertEquals(Reply.OK, auth(s, "AUTH s3cret"));
        assertTrue(s.authenticated);
        assertEquals(DefaultUser.WRONG_PASS, auth(s, "AUTH default wrong"));
        assertTrue(s.authenticated, "a wrong password later leaves it in, as Redis");
        s.reset();
        assertFalse(s.authenticated);
        assertInstanceOf(Reply.Map.class, hello(s, "HELLO 3 AUTH default s3cret"));
        assertTrue(s.authenticated && s.resp3);

        Files.writeString(dir.resolve("empty"), "\nsecond");
        assertEquals("the password file " + dir.resolve("empty") + " has an empty first line: put the password there",
            assertThrows(IllegalArgumentException.class, () -> DefaultUser.fromFile(dir.resolve("empty"))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DefaultUser.fromFile(dir.resolve("none")))
            .getMessage().startsWith("cannot read the password file " + dir.resolve("none") + " ("));
    }

    private static Reply auth(final ClientSession s, final String command)
    {
        return s.auth(words(command));
    }

    private static Reply hello(final ClientSession s, final String command)
    {
        return s.hello(words(command));
    }

    private static List<byte[]> words(final String command)
    {
        return Arrays.stream(command.split(" ")).map(w -> w.getBytes(StandardCharsets.UTF_8)).toList();
    }

    /** The replies sent of {@code commands} (words; CLIENT and RESET run as the connection runs them), in order. */
    private List<String> sent(final String... commands)
    {
        final List<String> sent = new ArrayList<>();
        for (final String command : commands)
        {
            if (command.startsWith("CLIENT"))
            {
                client(command);
            }
            else if (command.equals("RESET"))
            {
                session.reset();
            }
            if (!session.answerOrNot(Command.answered(Reply.OK, false)).unsent)
            {
                sent.add(command);
            }
        }
        return sent;
    }

    private Reply client(final String command)
    {
        return session.client(words(command), null, null);
    }
}

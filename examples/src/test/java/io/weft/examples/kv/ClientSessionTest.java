package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLIENT REPLY as redis-server 7.0.15 answered the same commands on one connection (docs/kv.md): which replies are
 * sent is decided once each command ran.
 */
@Timeout(10)
class ClientSessionTest
{
    private final ClientSession session = new ClientSession(1);

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
        return session.client(Arrays.stream(command.split(" ")).map(w -> w.getBytes(StandardCharsets.UTF_8))
            .toList(), null, null);
    }
}

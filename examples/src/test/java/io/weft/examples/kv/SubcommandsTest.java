package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The subcommands of CLIENT, COMMAND, CONFIG, MEMORY, PUBSUB and SCRIPT, found before the command runs as Redis finds
 * them.
 * The refusals were also asked of redis-server 7.0.15 through a member of weft kv: alike (docs/kv.md, Subcommands).
 */
@Timeout(10)
class SubcommandsTest
{
    /** An unknown subcommand and a wrong count are refused with Redis's words; a known one with its count is not. */
    @Test
    void refusesAsRedisBeforeTheCommandRuns()
    {
        refused("ERR unknown subcommand 'FOO'. Try CLIENT HELP.", "CLIENT", "FOO");
        refused("ERR unknown subcommand 'foo'. Try CONFIG HELP.", "config", "foo", "bar");
        refused("ERR unknown subcommand '" + "x".repeat(128) + "'. Try SCRIPT HELP.", "SCRIPT", "x".repeat(200));
        refused("ERR wrong number of arguments for 'client|setname' command", "CLIENT", "SETNAME");
        refused("ERR wrong number of arguments for 'client|setname' command", "client", "setname", "a", "b");
        refused("ERR wrong number of arguments for 'config|get' command", "CONFIG", "GET");
        refused("ERR wrong number of arguments for 'command|getkeys' command", "COMMAND", "GETKEYS", "GET");
        refused("ERR wrong number of arguments for 'pubsub|numpat' command", "PUBSUB", "NUMPAT", "x");
        refused("ERR wrong number of arguments for 'script|kill' command", "SCRIPT", "KILL", "x");
        refused("ERR wrong number of arguments for 'client' command", "CLIENT");
        refused("ERR unknown subcommand 'FOO'. Try MEMORY HELP.", "MEMORY", "FOO");
        refused("ERR wrong number of arguments for 'memory|purge' command", "MEMORY", "PURGE", "x");
        refused("ERR wrong number of arguments for 'memory|usage' command", "MEMORY", "USAGE");
        refused("ERR unknown command 'FOO', with args beginning with: 'a' ", "FOO", "a");
        refused("ERR wrong number of arguments for 'get' command", "GET");
        for (final List<String> fine : List.of(List.of("COMMAND"), List.of("CLIENT", "LIST", "TYPE"),
            List.of("CLIENT", "PAUSE", "10"), List.of("CONFIG", "set", "a", "b"), List.of("PUBSUB", "CHANNELS", "a",
            "b"), List.of("SCRIPT", "FLUSH", "a", "b"), List.of("GET", "k")))
        {
            assertNull(CommandTable.refusal(fine.getFirst().toUpperCase(Locale.ROOT), args(fine.toArray(String[]::new))),
                fine.toString());
        }
    }

    /** CLIENT LIST's cmd: a container's with its subcommand, NULL when the command or subcommand is unknown. */
    @Test
    void clientListNamesTheCommandRun()
    {
        assertEquals("CLIENT|LIST", CommandTable.listed("CLIENT", args("client", "list")));
        assertEquals("CONFIG|GET", CommandTable.listed("CONFIG", args("CONFIG", "GET")));
        assertEquals("CLIENT", CommandTable.listed("CLIENT", args("CLIENT")));
        assertEquals("GET", CommandTable.listed("GET", args("GET", "k")));
        assertNull(CommandTable.listed("CLIENT", args("CLIENT", "FOO")), "Redis's NULL");
        assertNull(CommandTable.listed("FOO", args("FOO")));
    }

    /** HELP lists the subcommands answered, each with what it does, and not those refused. */
    @Test
    void helpListsTheSubcommandsAnswered()
    {
        for (final String container : List.of("ACL", "CLIENT", "COMMAND", "CONFIG", "MEMORY", "PUBSUB", "SCRIPT"))
        {
            final List<String> lines = ((Reply.Array)Subcommands.help(container)).items().stream()
                .map(line -> ((Reply.Simple)line).text()).toList();
            assertEquals(container + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", lines.getFirst());
            assertEquals(List.of("HELP", "    Prints this help."), lines.subList(lines.size() - 2, lines.size()));
            for (int i = 1; i < lines.size(); i += 2)
            {
                assertFalse(lines.get(i).startsWith(" "), container + ": a usage line at " + i);
                assertTrue(lines.get(i + 1).startsWith("    "), container + ": what it does at " + i);
                while (i + 2 < lines.size() && lines.get(i + 2).startsWith("    "))
                {
                    i++;
                }
            }
        }
        final String client = Subcommands.help("CLIENT").toString();
        assertTrue(client.contains("NO-EVICT (ON|OFF)") && client.contains("KILL <ip:port>"), client);
        assertTrue(client.contains("REPLY (ON|OFF|SKIP)"), client);
        for (final String refused : Set.of("PAUSE", "TRACKING", "CACHING"))
        {
            assertFalse(client.contains(refused + " "), refused);
        }
    }

    /** A subcommand Redis has and this store does not answer is refused with the reason; one it answers never is. */
    @Test
    void aSubcommandNotAnsweredIsRefusedWithTheReason()
    {
        final Reply.Error pause = (Reply.Error)Subcommands.unsupported("CLIENT", args("CLIENT", "pause", "10"));
        assertTrue(pause.text().startsWith("ERR CLIENT PAUSE is not supported by this store: "), pause.text());
        final Reply.Error set = (Reply.Error)Subcommands.unsupported("CONFIG", args("CONFIG", "SET", "a", "b"));
        assertTrue(set.text().startsWith("ERR CONFIG SET is not supported by this store: its settings are fixed"));
        assertThrows(NullPointerException.class, () -> Subcommands.unsupported("CLIENT", args("CLIENT", "ID")));
    }

    /** Inside MULTI, an unknown subcommand or a wrong count is refused while queuing: EXEC discards all. */
    @Test
    void aTransactionRefusesWhileQueuing()
    {
        final Transaction t = new Transaction(1 << 20, List.of());
        assertEquals(Transaction.QUEUED, t.offer("SET", args("SET", "a", "1")));
        assertEquals(Transaction.QUEUED, t.offer("CLIENT", args("CLIENT", "SETNAME", "x")));
        assertFalse(t.refused());
        assertEquals(Reply.error("ERR unknown subcommand 'FOO'. Try CLIENT HELP."), t.offer("CLIENT",
            args("CLIENT", "FOO")));
        assertTrue(t.refused());
        final Transaction u = new Transaction(1 << 20, List.of());
        assertEquals(Reply.error("ERR wrong number of arguments for 'config|get' command"), u.offer("CONFIG",
            args("CONFIG", "GET")));
        assertTrue(u.refused());
        assertEquals(Transaction.QUEUED, new Transaction(1 << 20, List.of()).offer("AUTH", args("AUTH", "p")),
            "AUTH is queued and runs at EXEC, as in Redis");
        final Transaction r = new Transaction(1 << 20, List.of());
        assertTrue(((Reply.Error)r.offer("CLIENT", args("CLIENT", "REPLY", "OFF"))).text().startsWith(
            "ERR CLIENT REPLY inside MULTI: "), "Redis would leave EXEC's reply shorter than its count");
        assertTrue(r.refused());
        final Transaction m = new Transaction(1 << 20, List.of()); // MEMORY is the store's: refused while queuing too
        assertEquals(Reply.error("ERR unknown subcommand 'FOO'. Try MEMORY HELP."), m.offer("MEMORY",
            args("MEMORY", "FOO")));
        assertTrue(m.refused());
    }

    private static void refused(final String error, final String... words)
    {
        assertEquals(Reply.error(error), CommandTable.refusal(words[0].toUpperCase(Locale.ROOT), args(words)),
            String.join(" ", words));
    }

    private static List<byte[]> args(final String... words)
    {
        return Arrays.stream(words).map(w -> w.getBytes(StandardCharsets.UTF_8)).toList();
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SlowLog}: which commands it keeps and how, and SLOWLOG's replies and errors as redis-server 7.0.15 gave them
 * (its entries' arguments cut as Redis cuts them: 42 arguments, a 200-byte one).
 */
@Timeout(10)
class SlowLogTest
{
    private final SlowLog log = new SlowLog();
    private final ClientSession alice = new ClientSession(1, DefaultUser.NO_PASSWORD);

    /** At the threshold or past it a command is logged, newest first, the oldest dropped past the length. */
    @Test
    void keepsTheNewestCommandsAtOrPastTheThreshold()
    {
        alice.addr = "127.0.0.1:5000";
        alice.name = "alice";
        log.configure(100, 2);
        log.offer(command("GET", "a"), 99_999); // 99 µs: under 100
        assertEquals("0", text("LEN"));
        log.offer(command("GET", "b"), 100_000);
        log.offer(command("GET", "c"), 5_000_000);
        log.offer(command("GET", "d"), 200_999);
        final String entries = text("GET");
        assertTrue(entries.matches("2 \\d+ 200 GET d 127\\.0\\.0\\.1:5000 alice 1 \\d+ 5000 GET c 127\\.0\\.0\\.1:5000 " +
            "alice"), entries);
        assertTrue(text("GET", "1").startsWith("2 "));
        assertEquals("", text("GET", "0"));
        log.configure(100, 1); // a shorter log keeps the newest
        assertEquals("1", text("LEN"));
        assertEquals("OK", text("RESET"));
        assertEquals("", text("GET", "-1"));
        log.offer(new Command(List.of(StoreClient.bytes("GET"), StoreClient.bytes("e")), false, false, null, null, 0),
            1_000_000);
        assertTrue(text("GET").endsWith(" 1000 GET e  "), "no client: no address, no name");
    }

    /**
     * An EXEC is not logged, the commands it ran are, as its client's; a script's calls as no client's: {@code ?:0}
     * without a name (redis-server 7.0.15's SLOWLOG GET after a MULTI and an EVAL).
     */
    @Test
    void anExecsCommandsAndAScriptsCallsAreLoggedEach()
    {
        alice.addr = "127.0.0.1:5000";
        alice.name = "alice";
        log.configure(0, 128);
        log.offer(command("EXEC", "2", "INCR", "t"), 1_000);
        assertEquals("0", text("LEN"));
        log.offer(StoreClient.args("INCR", "t"), alice, 2_000);
        log.offer(StoreClient.args("get", "s"), null, 3_000);
        final String entries = text("GET");
        assertTrue(entries.matches("1 \\d+ 3 get s \\?:0  0 \\d+ 2 INCR t 127\\.0\\.0\\.1:5000 alice"), entries);
    }

    /** A command is logged as its client sent it: an EVALSHA, which travels as EVAL with its script's body. */
    @Test
    void aCommandIsLoggedAsSent()
    {
        alice.addr = "127.0.0.1:5000";
        alice.name = "alice";
        log.configure(0, 128);
        log.offer(command("EVAL", "return 1", "0").sent(List.of(StoreClient.args("evalsha", "E0E1", "0"))), 4_000);
        final String entries = text("GET");
        assertTrue(entries.matches("0 \\d+ 4 evalsha E0E1 0 127\\.0\\.0\\.1:5000 alice"), entries);
    }

    /** Secrets are logged as {@code (redacted)}, as redis-server 7.0.15 logged these commands. */
    @Test
    void secretsAreRedacted()
    {
        alice.addr = "127.0.0.1:5000";
        log.configure(0, 128);
        for (final String command : List.of("AUTH u p", "HELLO 2 AUTH default x", "HELLO 2 SETNAME nm",
            "CONFIG SET requirepass x maxmemory 0 masterauth y", "ACL SETUSER bob on >pw", "ACL DELUSER bob"))
        {
            log.offer(StoreClient.args(command.split(" ")), alice, 0);
        }
        assertEquals("5 T 0 ACL DELUSER bob 127.0.0.1:5000  4 T 0 ACL SETUSER (redacted) (redacted) (redacted) " +
            "127.0.0.1:5000  3 T 0 CONFIG SET requirepass (redacted) maxmemory 0 masterauth (redacted) 127.0.0.1:5000  " +
            "2 T 0 HELLO 2 SETNAME nm 127.0.0.1:5000  1 T 0 HELLO 2 AUTH (redacted) (redacted) 127.0.0.1:5000  0 T 0 " +
            "AUTH (redacted) (redacted) 127.0.0.1:5000 ", text("GET", "-1").replaceAll(" \\d{10} ", " T "));
    }

    /** 0 logs every command; a negative threshold none. */
    @Test
    void zeroLogsEveryCommandANegativeThresholdNone()
    {
        log.configure(0, 128);
        log.offer(command("PING"), 0);
        assertEquals("1", text("LEN"));
        log.configure(-1, 128);
        log.offer(command("PING"), Long.MAX_VALUE);
        assertEquals("1", text("LEN"));
        assertThrows(IllegalArgumentException.class, () -> log.configure(0, -1));
    }

    /** At most 32 arguments, the last saying how many more; each at most 128 bytes, saying how many more. */
    @Test
    void argumentsAreCutAsRedisCutsThem()
    {
        log.configure(0, 128);
        final List<String> words = new ArrayList<>(List.of("RPUSH", "l"));
        for (int i = 0; i < 40; i++)
        {
            words.add(String.valueOf(i));
        }
        log.offer(command(words.toArray(String[]::new)), 0);
        assertTrue(text("GET").contains(" RPUSH l 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 " +
            "25 26 27 28 ... (11 more arguments)  "), text("GET"));
        log.offer(command("SET", "k", "x".repeat(200)), 0);
        assertTrue(text("GET", "1").contains(" SET k " + "x".repeat(128) + "... (72 more bytes)  "));
        final List<String> exact = new ArrayList<>(words.subList(0, 32));
        log.offer(command(exact.toArray(String[]::new)), 0);
        assertTrue(text("GET", "1").contains(" 28 29  "), "32 arguments are kept whole");
    }

    /** SLOWLOG's errors in redis-server 7.0.15's words. */
    @Test
    void refusesAsRedis()
    {
        assertEquals("ERR count should be greater than or equal to -1",
            assertThrows(KvStore.SyntaxError.class, () -> text("GET", "-2")).getMessage());
        assertEquals("ERR count should be greater than or equal to -1",
            assertThrows(KvStore.SyntaxError.class, () -> text("GET", "x")).getMessage());
        assertEquals("ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP.",
            text("get", "1", "2"));
        assertEquals(Reply.error("ERR unknown subcommand 'foo'. Try SLOWLOG HELP."),
            CommandTable.refusal("SLOWLOG", StoreClient.args("SLOWLOG", "foo")));
        assertEquals(Reply.error("ERR wrong number of arguments for 'slowlog|len' command"),
            CommandTable.refusal("SLOWLOG", StoreClient.args("SLOWLOG", "LEN", "x")));
        assertEquals(Reply.error("ERR wrong number of arguments for 'slowlog' command"),
            CommandTable.refusal("SLOWLOG", StoreClient.args("SLOWLOG")));
        assertTrue(text("HELP").startsWith("SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are: " +
            "GET [<count>]"), text("HELP"));
    }

    private Command command(final String... words)
    {
        return new Command(StoreClient.args(words), false, alice, () -> { });
    }

    private String text(final String... words)
    {
        final List<String> all = new ArrayList<>(List.of("SLOWLOG"));
        all.addAll(List.of(words));
        return StoreClient.text(log.answer(StoreClient.args(all.toArray(String[]::new))));
    }
}

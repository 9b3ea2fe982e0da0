package io.weft.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.args.LatencyEvent;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.LatencyHistoryInfo;
import redis.clients.jedis.resps.LatencyLatestInfo;
import redis.clients.jedis.resps.Slowlog;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SLOWLOG and LATENCY through two member processes of {@code weft kv}, with {@code --slowlog-log-slower-than 0} (every
 * command logged, so that nothing here rests on how long a command takes), {@code --slowlog-max-len 3} and
 * {@code --latency-monitor-threshold 1}: a member logs the commands of its own clients as Redis logs them, and not the
 * other member's; a script that loops 300,000 times (tens of milliseconds) is a latency spike of its member.
 */
@Timeout(120)
class KvSlowCommandsTest
{
    @TempDir
    Path dir;

    @Test
    void aMemberLogsItsOwnClientsCommandsAsRedisDoes() throws Exception
    {
        try (KvProcesses kv = KvProcesses.with(dir, 2, "--slowlog-log-slower-than", "0", "--slowlog-max-len", "3",
            "--latency-monitor-threshold", "1");
            Jedis a = new Jedis("127.0.0.1", kv.ports.get(0));
            Jedis b = new Jedis("127.0.0.1", kv.ports.get(1)))
        {
            assertEquals(Map.of("slowlog-log-slower-than", "0", "slowlog-max-len", "3"), a.configGet("slowlog*"));
            a.clientSetname("alice");
            final String addr = a.clientInfo().split("addr=", 2)[1].split(" ", 2)[0];
            assertEquals("OK", a.set("k", "v"));
            final List<String> many = new ArrayList<>(List.of("l"));
            for (int i = 0; i < 40; i++)
            {
                many.add(String.valueOf(i));
            }
            assertEquals(40, a.rpush("l", many.subList(1, many.size()).toArray(String[]::new)));
            assertEquals("OK", a.set("big", "x".repeat(200)));
            assertEquals("OK", b.set("at-b", "1")); // member 1's client: logged there, not at member 0

            final List<Slowlog> logged = a.slowlogGet(-1);
            assertEquals(3, logged.size(), "the newest three of four");
            assertEquals(List.of("SET", "big", "x".repeat(128) + "... (72 more bytes)"), logged.get(0).getArgs());
            final List<String> rpush = logged.get(1).getArgs();
            assertEquals(32, rpush.size());
            assertEquals(List.of("RPUSH", "l", "0"), rpush.subList(0, 3));
            assertEquals("... (11 more arguments)", rpush.get(31));
            assertEquals(List.of("SET", "k", "v"), logged.get(2).getArgs());
            for (int i = 0; i < 3; i++)
            {
                final Slowlog entry = logged.get(i);
                assertEquals(logged.get(0).getId() - i, entry.getId(), "newest first, ids in turn");
                assertEquals(addr, entry.getClientIpPort().toString());
                assertEquals("alice", entry.getClientName());
                assertTrue(entry.getExecutionTime() >= 0);
                assertTrue(Math.abs(entry.getTimeStamp() - System.currentTimeMillis() / 1000) < 60);
            }
            assertEquals(1, a.slowlogGet(1).size());
            assertEquals(3, a.slowlogLen());

            final List<Slowlog> atB = b.slowlogGet();
            assertEquals(1, atB.size(), "member 1 logs its own client's SET alone");
            assertEquals(List.of("SET", "at-b", "1"), atB.getFirst().getArgs());

            assertEquals("ERR count should be greater than or equal to -1",
                assertThrows(JedisDataException.class, () -> a.slowlogGet(-2)).getMessage());
            assertEquals("OK", a.slowlogReset());
            assertEquals(1, a.slowlogLen(), "the RESET itself, logged once it ran, as Redis logs it");
            assertEquals(List.of("SLOWLOG", "LEN"), a.slowlogGet().getFirst().getArgs(), "the connection's commands");
            transactionsAndScriptsAreLoggedCallByCall(a, addr);
            latencySpikesAreEachMembersOwn(a, b);
        }
    }

    /**
     * As redis-server 7.0.15 logs them: not an EXEC but each command it ran, as its client's; a script's calls before
     * the script, as no client's ({@code ?:0}, no name). Before, a transaction was one entry, its EXEC as it travels,
     * and the commands a connection answers itself (MULTI, SLOWLOG, AUTH, ...) were not logged.
     */
    private static void transactionsAndScriptsAreLoggedCallByCall(final Jedis a, final String addr)
    {
        final Transaction t = a.multi();
        t.set("t", "1");
        t.incr("t");
        assertEquals(List.of("OK", 2L), t.exec());
        final List<Slowlog> ran = a.slowlogGet(-1);
        assertEquals(List.of(List.of("INCR", "t"), List.of("SET", "t", "1"), List.of("MULTI")), ran.stream()
            .map(Slowlog::getArgs).toList());
        for (final Slowlog entry : ran)
        {
            assertEquals(addr, entry.getClientIpPort().toString());
            assertEquals("alice", entry.getClientName());
        }
        assertEquals("OK", a.slowlogReset());
        final String script = "redis.call('set', 's', '1') return redis.call('get', 's')";
        assertEquals("1", a.eval(script));
        final List<Slowlog> called = a.slowlogGet(-1);
        assertEquals(List.of(List.of("EVAL", script, "0"), List.of("get", "s"), List.of("set", "s", "1")),
            called.stream().map(Slowlog::getArgs).toList());
        assertEquals(List.of(addr, "?:0", "?:0"), called.stream().map(e -> e.getClientIpPort().toString()).toList());
        assertEquals(List.of("alice", "", ""), called.stream().map(Slowlog::getClientName).toList());
        evalshaIsLoggedAsSent(a, addr);
        assertEquals("OK", a.slowlogReset());
        assertEquals("OK", a.configResetStat()); // the latency histogram's calls start from here
    }

    /**
     * An EVALSHA is logged as sent, the SHA-1 as written, and counted as {@code evalsha}, in an EXEC too; an EXEC's
     * EVAL's calls are the Lua client's ({@code ?:0}): redis-server 7.0.15's SLOWLOG GET and INFO commandstats after
     * these commands, word for word. Before, an EVALSHA was logged and counted as the EVAL with its script's body it
     * travels as, and an EXEC's EVAL's calls as the EXEC's client's.
     */
    private static void evalshaIsLoggedAsSent(final Jedis a, final String addr)
    {
        final String sha = a.scriptLoad("return redis.call('set', 'a', '1')");
        final String upper = sha.toUpperCase(Locale.ROOT);
        assertEquals("OK", a.slowlogReset());
        assertEquals("OK", a.evalsha(upper));
        final List<Slowlog> alone = a.slowlogGet(-1); // the newest three (slowlog-max-len)
        assertEquals(List.of(List.of("EVALSHA", upper, "0"), List.of("set", "a", "1"), List.of("SLOWLOG", "RESET")),
            alone.stream().map(Slowlog::getArgs).toList());
        assertEquals(List.of(addr, "?:0", addr), alone.stream().map(e -> e.getClientIpPort().toString()).toList());
        final Transaction t = a.multi();
        t.evalsha(sha);
        t.eval("return redis.call('get', 'a')");
        assertEquals(List.of("OK", "1"), t.exec());
        final List<Slowlog> inExec = a.slowlogGet(-1);
        assertEquals(List.of(List.of("EVAL", "return redis.call('get', 'a')", "0"), List.of("get", "a"),
            List.of("EVALSHA", sha, "0")), inExec.stream().map(Slowlog::getArgs).toList());
        assertEquals(List.of(addr, "?:0", addr), inExec.stream().map(e -> e.getClientIpPort().toString()).toList());
        final String stats = a.info("commandstats");
        assertTrue(stats.contains("cmdstat_evalsha:calls=2,"), stats);
    }

    /** A's client runs a long script: a spike of event {@code command} at a; none at b, which applied it too. */
    private static void latencySpikesAreEachMembersOwn(final Jedis a, final Jedis b)
    {
        assertEquals(Map.of("latency-monitor-threshold", "1"), a.configGet("latency-monitor-*"));
        a.latencyReset(); // whatever took 1 ms or more so far (a SET that met a pause)
        b.latencyReset();
        assertEquals(300_000L, a.eval("local i = 0 while i < 300000 do i = i + 1 end return i"));
        final LatencyLatestInfo spike = a.latencyLatest().get("command");
        assertTrue(spike.getLastEventLatency() >= 1 && spike.getMaxEventLatency() == spike.getLastEventLatency(),
            spike.getLastEventLatency() + " ms, " + spike.getMaxEventLatency());
        assertTrue(Math.abs(spike.getTimestamp() - System.currentTimeMillis() / 1000) < 60);
        final List<LatencyHistoryInfo> history = a.latencyHistory(LatencyEvent.COMMAND);
        assertEquals(1, history.size());
        assertEquals(spike.getLastEventLatency(), history.getFirst().getLatency());
        assertTrue(a.latencyDoctor().contains("\n1. command: 1 spike ("), a.latencyDoctor());
        assertEquals(Map.of(), b.latencyLatest(), "b applied the script too, for a's client: no spike of b's");
        final List<Object> histogram = castList(a.sendCommand(Protocol.Command.LATENCY, "HISTOGRAM", "eval"));
        assertEquals("eval", new String((byte[])histogram.get(0)));
        assertEquals(1L, castList(histogram.get(1)).get(1), "calls");
        assertEquals(1L, a.latencyReset());
        assertEquals(Map.of(), a.latencyLatest());
    }

    @SuppressWarnings("unchecked")
    private static List<Object> castList(final Object reply)
    {
        return (List<Object>)reply;
    }
}

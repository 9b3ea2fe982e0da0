package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link CommandStats}: what counts as a call, a failure, a rejection and an error reply, and INFO's lines. */
@Timeout(10)
class CommandStatsTest
{
    private final CommandStats stats = new CommandStats();

    /**
     * A reply counts under the command's listed name: an error from running it as a failed call, one from a refusal
     * as a rejected call (not a call); the time is the sum of the calls', in microseconds.
     */
    @Test
    void callsFailuresAndRejectionsAreCountedPerCommand()
    {
        stats.replied(ran("SET", 1_500), Reply.OK);
        stats.replied(ran("SET", 2_600), Reply.OK);
        stats.replied(ran("INCR", 1_000), Reply.error("ERR value is not an integer or out of range"));
        stats.replied(ran("LPUSH", 0), Reply.error("WRONGTYPE Operation against a key holding the wrong kind of " +
            "value"));
        final Command arity = Command.refused(Reply.error("ERR wrong number of arguments for 'get' command"), false);
        arity.listed = "GET";
        stats.replied(arity, arity.reply());
        stats.replied(ran("CLIENT|LIST", 7_000), new Reply.Simple("id=1"));
        assertEquals("# Commandstats\r\n" +
            "cmdstat_client|list:calls=1,usec=7,usec_per_call=7.00,rejected_calls=0,failed_calls=0\r\n" +
            "cmdstat_get:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n" +
            "cmdstat_incr:calls=1,usec=1,usec_per_call=1.00,rejected_calls=0,failed_calls=1\r\n" +
            "cmdstat_lpush:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1\r\n" +
            "cmdstat_set:calls=2,usec=4,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n", stats.commandstats());
        assertEquals("# Errorstats\r\nerrorstat_ERR:count=2\r\nerrorstat_WRONGTYPE:count=1\r\n", stats.errorstats());
        assertEquals(totals(0, 5, 3),
            stats.stats());
    }

    /**
     * An unknown command (no listed name) counts as an error reply only; a QUEUED reply and a published message count
     * nothing; CONFIG RESETSTAT sets everything back to 0.
     */
    @Test
    void unknownCommandsQueuedCommandsAndPushesAndReset()
    {
        stats.connected();
        stats.replied(Command.answered(Reply.error("ERR unknown command 'foo'"), false),
            Reply.error("ERR unknown command 'foo'"));
        stats.replied(ran("SET", 10), Transaction.QUEUED);
        final Reply.Push message = new Reply.Push(List.of(Reply.Bulk.of("message")));
        stats.replied(Command.answered(message, false), message);
        assertEquals("# Commandstats\r\n", stats.commandstats());
        assertEquals("# Errorstats\r\nerrorstat_ERR:count=1\r\n", stats.errorstats());
        assertEquals(totals(1, 0, 1),
            stats.stats());
        stats.reset();
        assertEquals("# Errorstats\r\n", stats.errorstats());
        assertEquals(totals(0, 0, 0),
            stats.stats());
    }

    /** Past 128 error prefixes a new one counts in the total only, as Redis caps them; known ones still count. */
    @Test
    void errorPrefixesAreCappedAsRedisCapsThem()
    {
        for (int i = 0; i < CommandStats.MAX_ERROR_PREFIXES + 10; i++)
        {
            stats.replied(ran("EVAL", 0), Reply.error("E" + i + " raised by a script"));
        }
        stats.replied(ran("EVAL", 0), Reply.error("E0 again"));
        final String errors = stats.errorstats();
        assertEquals(CommandStats.MAX_ERROR_PREFIXES + 1L, errors.lines().count(), errors);
        assertTrue(errors.contains("errorstat_E0:count=2\r\n"), errors);
        assertFalse(errors.contains("errorstat_E128:"), errors);
        assertEquals(totals(0, 139, 139),
            stats.stats());
        assertEquals("E0", CommandStats.prefix("E0"));
    }

    /**
     * The commands an EXEC or a script ran count under their own names (calls, failures, errors), as Redis counts
     * them, and the EXEC or EVAL as failed when one of them failed; a command's error a script answers (raised by
     * redis.call, or taken by pcall and returned or raised) counts once, as the command's. Through a store, as the
     * delivery thread applies them for an own client.
     */
    @Test
    void whatAnExecOrAScriptRanCountsUnderItsOwnName()
    {
        final KvStore store = new KvStore();
        final Transaction t = new Transaction(1_000, List.of());
        t.offer("SET", StoreClient.args("SET", "t", "1"));
        t.offer("INCR", StoreClient.args("INCR", "t"));
        t.offer("LPUSH", StoreClient.args("LPUSH", "t", "x"));
        final Command exec = applied(store, t.exec());
        assertTrue(exec.inner.anyFailed(), "LPUSH failed");
        stats.replied(exec, exec.reply());
        final Command raised = applied(store, StoreClient.args("EVAL",
            "redis.call('set', 's', '1'); return redis.call('lpush', 's', 'x')", "0"));
        assertTrue(((Reply.Error)raised.reply()).text().startsWith("WRONGTYPE "), raised.reply().toString());
        stats.replied(raised, raised.reply());
        final Command caught = applied(store, StoreClient.args("EVAL", "redis.pcall('lpush', 's', 'y'); return 1",
            "0"));
        stats.replied(caught, caught.reply());
        final Command mine = applied(store, StoreClient.args("EVAL", "return redis.error_reply('MINE own')", "0"));
        stats.replied(mine, mine.reply());
        // a command's error that pcall returned, answered by returning it or raising it: once too (before, twice)
        for (final String script : List.of("return redis.pcall('lpush', 's', 'z')",
            "error(redis.pcall('lpush', 's', 'w'))"))
        {
            final Command answered = applied(store, StoreClient.args("EVAL", script, "0"));
            assertTrue(((Reply.Error)answered.reply()).text().startsWith("WRONGTYPE "), answered.reply().toString());
            stats.replied(answered, answered.reply());
        }
        assertEquals("# Commandstats\r\n" +
            "cmdstat_eval:calls=5,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=5\r\n" +
            "cmdstat_exec:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1\r\n" +
            "cmdstat_incr:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=0\r\n" +
            "cmdstat_lpush:calls=5,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=5\r\n" +
            "cmdstat_set:calls=2,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=0\r\n",
            untimed(stats.commandstats()));
        assertEquals("# Errorstats\r\nerrorstat_MINE:count=1\r\nerrorstat_WRONGTYPE:count=5\r\n",
            stats.errorstats());
        assertEquals(totals(0, 14, 6),
            stats.stats());
    }

    /**
     * An EVAL in an EXEC whose script raises a command's error: the error counts once, as the command's (before,
     * twice: as the command's and as the EVAL's), and both count as failed.
     */
    @Test
    void aScriptInATransactionAnsweringACommandsErrorCountsItOnce()
    {
        final KvStore store = new KvStore();
        final Transaction t = new Transaction(1_000, List.of());
        t.offer("EVAL", StoreClient.args("EVAL", "redis.call('set', 'm', '1'); return redis.call('lpush', 'm', 'x')",
            "0"));
        final Command exec = applied(store, t.exec());
        stats.replied(exec, exec.reply());
        assertEquals("# Commandstats\r\n" +
            "cmdstat_eval:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1\r\n" +
            "cmdstat_exec:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1\r\n" +
            "cmdstat_lpush:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1\r\n" +
            "cmdstat_set:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=0\r\n",
            untimed(stats.commandstats()));
        assertEquals("# Errorstats\r\nerrorstat_WRONGTYPE:count=1\r\n", stats.errorstats());
        assertEquals(totals(0, 4, 1),
            stats.stats());
    }

    /**
     * A script's calls count as they run, before its reply is written, and nothing is kept per call: a script may
     * make millions within its instruction limit (before, a list of every call was kept until the reply).
     */
    @Test
    void aScriptsCallsCountAsTheyRun()
    {
        final KvStore store = new KvStore();
        final Command loop = applied(store, StoreClient.args("EVAL",
            "for i = 1, 20000 do redis.call('incr', 'n') end return redis.call('get', 'n')", "0"));
        assertTrue(stats.commandstats().contains("\r\ncmdstat_incr:calls=20000,"), stats.commandstats());
        assertTrue(stats.stats().endsWith("\r\nkeyspace_hits:1\r\nkeyspace_misses:0\r\n"), stats.stats());
        stats.replied(loop, loop.reply());
        assertTrue(stats.commandstats().contains("\r\ncmdstat_eval:calls=1,"), stats.commandstats());
    }

    /**
     * keyspace_hits and keyspace_misses: each key a read names, live or not (an expired one is a miss; XREAD's
     * streams twice, {@link KeyspaceLookupsTest}); writes that read nothing, scripts' own keys, a wrong count of words
     * and a blocked command woken count nothing; the reads an EXEC or a script runs count, and SORT's patterns' as it
     * looks them up; CONFIG RESETSTAT sets them back to 0.
     */
    @Test
    void readsCountTheirKeysAsHitsOrMisses()
    {
        final KvStore store = new KvStore();
        final long now = 1_000_000;
        store.apply(StoreClient.args("SET", "a", "1"), now);
        store.apply(StoreClient.args("SET", "gone", "1", "PX", "10"), now);
        store.apply(StoreClient.args("XADD", "s", "1-1", "f", "v"), now);
        store.apply(StoreClient.args("RPUSH", "l", "a"), now);
        for (final String[] read : List.of(new String[] {"GET", "a"}, new String[] {"GET", "b"},
            new String[] {"MGET", "a", "b", "gone"}, new String[] {"EXISTS", "a", "a"}, new String[] {"SET", "b", "2"},
            new String[] {"EVAL_RO", "return 1", "1", "a"}, new String[] {"GET"}, new String[] {"TYPE", "s"},
            new String[] {"XREAD", "COUNT", "1", "STREAMS", "s", "t", "0", "0"}))
        {
            stats.read(store, read[0], StoreClient.args(read), null, now + 20);
        }
        final Command info = new Command(StoreClient.args("XINFO", "STREAM", "s"), false, false, null, null, 0);
        info.listed = "XINFO|STREAM"; // as the connection names it
        stats.read(store, info, null, now + 20);
        final Command woken = new Command(StoreClient.args("XREAD", "BLOCK", "0", "STREAMS", "s", "$"), false, false,
            null, null, 0);
        woken.listed = "XREAD";
        woken.waitingSince = 1; // it waited, and comes back from the group
        assertNull(stats.read(store, woken, null, now + 20), "nor as it runs");
        assertTrue(stats.stats().endsWith("\r\nkeyspace_hits:8\r\nkeyspace_misses:5\r\n"), stats.stats());
        final Transaction t = new Transaction(1_000, List.of());
        t.offer("GET", StoreClient.args("GET", "a"));
        t.offer("GET", StoreClient.args("GET", "c"));
        applied(store, t.exec());
        applied(store, StoreClient.args("EVAL", "return redis.call('get', KEYS[1])", "1", "d"));
        assertTrue(stats.stats().endsWith("\r\nkeyspace_hits:9\r\nkeyspace_misses:7\r\n"), stats.stats());
        // its key l a hit; as it runs, BY's x_a a miss and GET's a a hit
        applied(store, StoreClient.args("SORT_RO", "l", "BY", "x_*", "GET", "*"));
        assertTrue(stats.stats().endsWith("\r\nkeyspace_hits:11\r\nkeyspace_misses:8\r\n"), stats.stats());
        stats.reset();
        assertTrue(stats.stats().endsWith("\r\nkeyspace_hits:0\r\nkeyspace_misses:0\r\n"), stats.stats());
    }

    /**
     * The bytes read from and written to clients add up; the instantaneous rates are Redis's: per second over the
     * last 16 samples of 100 ms, the places not yet sampled counting as 0; CONFIG RESETSTAT clears both.
     */
    @Test
    void bytesAndInstantaneousRates()
    {
        stats.received(2_000);
        stats.sent(500);
        stats.sent(524);
        assertTrue(stats.stats().contains("\r\ninstantaneous_ops_per_sec:0\r\ninstantaneous_input_kbps:0.00\r\n" +
            "instantaneous_output_kbps:0.00\r\ntotal_net_input_bytes:2000\r\ntotal_net_output_bytes:1024\r\n"),
            stats.stats());
        long nanos = 5_000_000_000L;
        stats.sample(nanos); // the base
        for (int i = 0; i < 8; i++)
        {
            for (int c = 0; c < 10; c++)
            {
                stats.replied(ran("GET", 0), Reply.NIL);
            }
            stats.received(1_024);
            stats.sent(2_048);
            stats.sample(nanos += 100_000_000L);
        }
        // 100 commands, 10 KiB in and 20 KiB out a second, over 8 samples of 16
        assertTrue(stats.stats().contains("\r\ninstantaneous_ops_per_sec:50\r\ninstantaneous_input_kbps:5.00\r\n" +
            "instantaneous_output_kbps:10.00\r\n"), stats.stats());
        for (int i = 0; i < 16; i++)
        {
            stats.sample(nanos += 100_000_000L);
        }
        assertTrue(stats.stats().contains("\r\ninstantaneous_ops_per_sec:0\r\n"), "idle: " + stats.stats());
        stats.reset();
        assertEquals(totals(0, 0, 0), stats.stats());
    }

    /**
     * INFO latencystats: per command that ran, the 50th, 99th and 99.9th percentiles of its times in microseconds, as
     * Redis 7's histograms give them (two significant digits: 1,000 ns reads 1.003); a time past 1 s counts as 1 s; a
     * command only rejected has no line; CONFIG RESETSTAT clears them.
     */
    @Test
    void latencyPercentilesPerCommand()
    {
        for (int i = 0; i < 998; i++)
        {
            stats.replied(ran("GET", 1_000), Reply.NIL);
        }
        stats.replied(ran("GET", 50_000), Reply.NIL);
        stats.replied(ran("GET", 5_000_000_000L), Reply.NIL);
        stats.replied(ran("CLIENT|LIST", 7_000), new Reply.Simple("id=1"));
        final Command arity = Command.refused(Reply.error("ERR wrong number of arguments for 'set' command"), false);
        arity.listed = "SET";
        stats.replied(arity, arity.reply());
        assertEquals("# Latencystats\r\n" +
            "latency_percentiles_usec_client|list:p50=7.007,p99=7.007,p99.9=7.007\r\n" +
            "latency_percentiles_usec_get:p50=1.003,p99=1.003,p99.9=50.175\r\n", stats.latencystats());
        stats.replied(ran("GET", 5_000_000_000L), Reply.NIL);
        assertTrue(stats.latencystats().contains(",p99.9=1002438.655\r\n"), stats.latencystats()); // 1 s, to 2 digits
        stats.reset();
        assertEquals("# Latencystats\r\n", stats.latencystats());
    }

    /** Commandstats with every time 0: the counts are what a test can know. */
    private static String untimed(final String commandstats)
    {
        return commandstats.replaceAll("usec=\\d+,usec_per_call=[\\d.]+", "usec=0,usec_per_call=0.00");
    }

    /** INFO's totals as CommandStats writes them, with no hits, misses, bytes or rates. */
    private static String totals(final long connections, final long processed, final long errors)
    {
        return "total_connections_received:" + connections + "\r\ntotal_commands_processed:" + processed +
            "\r\ninstantaneous_ops_per_sec:0\r\ninstantaneous_input_kbps:0.00\r\ninstantaneous_output_kbps:0.00" +
            "\r\ntotal_net_input_bytes:0\r\ntotal_net_output_bytes:0\r\ntotal_error_replies:" + errors +
            "\r\nkeyspace_hits:0\r\nkeyspace_misses:0\r\n";
    }

    /** {@code args} applied to {@code store} as the delivery thread applies an own client's command. */
    private Command applied(final KvStore store, final List<byte[]> args)
    {
        final Command command = new Command(args, false, false, null, null, 0);
        command.listed = CommandTable.listed(Commands.name(args), args);
        store.counting = new InnerCalls(stats, new SlowLog(), null, null);
        store.lookups = stats.read(store, command, null, 1_000_000); // as BatchApplier applies its own
        command.inner = store.counting;
        command.complete(store.apply(args, 1_000_000));
        store.counting = null;
        store.lookups = null;
        return command;
    }

    /** A command named {@code listed} that ran for {@code nanos}. */
    private static Command ran(final String listed, final long nanos)
    {
        final Command command = Command.answered(Reply.OK, false);
        command.listed = listed;
        command.runNanos = nanos;
        return command;
    }
}

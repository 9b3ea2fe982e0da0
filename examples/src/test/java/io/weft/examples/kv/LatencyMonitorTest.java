package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LatencyMonitor}: which commands make spikes, how an event keeps them, and LATENCY's replies and errors, the
 * shapes and the histogram's buckets as redis-server 7.0.15 gave them.
 */
@Timeout(10)
class LatencyMonitorTest
{
    private static final long NOW = 1_800_000_000L;

    private final LatencyMonitor monitor = new LatencyMonitor();
    private final CommandStats stats = new CommandStats();

    /** Off by default (DOCTOR says how to start it); on, a command at or past the threshold is a spike of its event. */
    @Test
    void commandsAtOrPastTheThresholdAreSpikesOfTheirEvent()
    {
        monitor.offer(command("SET", "k", "v"), Long.MAX_VALUE);
        assertEquals("", text("LATEST"));
        assertTrue(monitor.doctor(NOW).startsWith("Latency monitoring is off at this member: start it with weft kv " +
            "--latency-monitor-threshold <milliseconds>"), monitor.doctor(NOW));
        monitor.threshold(10);
        assertTrue(monitor.doctor(NOW).startsWith("No latency spike at this member: no command of its clients took " +
            "10 ms or more"), monitor.doctor(NOW));
        monitor.offer(command("GET", "k"), 9_999_999);
        assertEquals("", text("LATEST"), "under 10 ms");
        monitor.offer(command("GET", "k"), 10_000_000);
        monitor.offer(command("SET", "k", "v"), 25_900_000);
        final String latest = text("LATEST");
        assertTrue(latest.matches("command \\d+ 25 25 fast-command \\d+ 10 10"), latest); // SET is not fast in Redis
        assertTrue(text("HISTORY", "command").matches("\\d+ 25"), text("HISTORY", "command"));
        assertTrue(monitor.doctor(NOW).contains("\n1. command: 1 spike (average 25 ms, mean deviation 0 ms)"),
            monitor.doctor(NOW));
        assertThrows(IllegalArgumentException.class, () -> monitor.threshold(-1));
    }

    /** One spike a second, the longest; the newest 160 kept, oldest first; the longest ever outlives them. */
    @Test
    void anEventKeepsOneSpikeASecondTheNewest160()
    {
        monitor.add("command", 30, NOW);
        monitor.add("command", 50, NOW);
        monitor.add("command", 20, NOW);
        assertEquals("1800000000 50", text("HISTORY", "command"));
        monitor.add("command", 20, NOW + 1);
        assertEquals("1800000000 50 1800000001 20", text("HISTORY", "command"));
        for (int i = 2; i <= LatencyMonitor.SAMPLES; i++)
        {
            monitor.add("command", i, NOW + i);
        }
        final String history = text("HISTORY", "command");
        assertTrue(history.startsWith("1800000001 20 1800000002 2 ") && history.endsWith(" 1800000160 160"), history);
        assertEquals("command 1800000160 160 160", text("LATEST"));
        monitor.add("command", 1, NOW + 161);
        assertEquals("command 1800000161 1 160", text("LATEST"), "the longest ever stays");
        assertEquals("", text("HISTORY", "fork"), "an event never seen: no spikes, as Redis");
        monitor.threshold(1);
        final String doctor = monitor.doctor(NOW + 200);
        assertTrue(doctor.contains("1. command: 160 spikes (average 81 ms, mean deviation 40 ms) from 3m to 39s " +
            "ago; the longest ever 160 ms."), doctor);
    }

    /** RESET forgets the events named or all, and says how many there were. */
    @Test
    void resetForgetsTheEventsNamedOrAll()
    {
        monitor.add("command", 30, NOW);
        monitor.add("fast-command", 30, NOW);
        assertEquals("1", text("RESET", "command", "nosuch", "command"));
        assertEquals("fast-command 1800000000 30 30", text("LATEST"));
        assertEquals("1", text("RESET"));
        assertEquals("0", text("RESET"));
        assertEquals("", text("LATEST"));
    }

    /** GRAPH: Redis's first line, a column a spike scaled from the lowest to the highest, the ages; Redis's error. */
    @Test
    void graphDrawsAColumnASpike()
    {
        assertEquals("ERR No samples available for event 'command'", text("GRAPH", "command"));
        monitor.add("command", 10, NOW - 120);
        monitor.add("command", 40, NOW - 60);
        monitor.add("command", 20, NOW - 5);
        assertEquals("command - high 40 ms, low 10 ms (all time high 40 ms)\n" + "-".repeat(80) + "\n" +
            " # \n # \n ##\n###\noldest 2m ago, newest 5s ago\n", text("GRAPH", "command"));
    }

    /**
     * HISTOGRAM: per command that ran, its calls and its power-of-two buckets in microseconds (9.7 and 29 ms: the
     * 16908:1 and 33816:2 that redis-server 7.0.15 gave for two EVALs of under 16.9 ms and of 29 ms; 100 µs: 132, its
     * bucket for a SET of about that); a container's name takes its subcommands, an unknown name or a command only
     * rejected adds nothing.
     */
    @Test
    void histogramGivesEachCommandsBucketsAsRedis()
    {
        stats.ran("EVAL", 9_700_000, null, false);
        stats.ran("EVAL", 29_000_000, null, false);
        stats.ran("CONFIG|GET", 100_000, null, false);
        stats.ran("GET", 700, null, false);
        stats.replied(rejected(), Reply.error("ERR wrong number of arguments for 'set' command"));
        assertEquals("eval calls 2 histogram_usec 16908 1 33816 2", text("HISTOGRAM", "eval", "nosuch", "set"));
        assertEquals("config|get calls 1 histogram_usec 132 1", text("HISTOGRAM", "Config"));
        assertEquals("config|get calls 1 histogram_usec 132 1", text("HISTOGRAM", "config|get"));
        assertEquals("", text("HISTOGRAM", "config|set"));
        assertEquals("config|get calls 1 histogram_usec 132 1 eval calls 2 histogram_usec 16908 1 33816 2 " +
            "get calls 1 histogram_usec 1 1", text("HISTOGRAM"));
    }

    /** LATENCY's errors in redis-server 7.0.15's words, and its HELP. */
    @Test
    void refusesAsRedis()
    {
        assertEquals(Reply.error("ERR wrong number of arguments for 'latency|history' command"),
            CommandTable.refusal("LATENCY", StoreClient.args("LATENCY", "HISTORY")));
        assertEquals(Reply.error("ERR wrong number of arguments for 'latency|latest' command"),
            CommandTable.refusal("LATENCY", StoreClient.args("LATENCY", "latest", "x")));
        assertEquals(Reply.error("ERR unknown subcommand 'foo'. Try LATENCY HELP."),
            CommandTable.refusal("LATENCY", StoreClient.args("LATENCY", "foo")));
        assertEquals(Reply.error("ERR wrong number of arguments for 'latency' command"),
            CommandTable.refusal("LATENCY", StoreClient.args("LATENCY")));
        assertTrue(text("HELP").startsWith("LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are: " +
            "DOCTOR "), text("HELP"));
    }

    private static Command command(final String... words)
    {
        return new Command(StoreClient.args(words), false, false, null, null, 0);
    }

    private static Command rejected()
    {
        final Command c = command("SET", "k");
        c.listed = "SET";
        c.rejected = true;
        return c;
    }

    private String text(final String... words)
    {
        final List<String> all = new ArrayList<>(List.of("LATENCY"));
        all.addAll(List.of(words));
        return StoreClient.text(monitor.answer(StoreClient.args(all.toArray(String[]::new)), stats, NOW));
    }
}

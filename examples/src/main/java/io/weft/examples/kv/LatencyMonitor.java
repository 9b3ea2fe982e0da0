package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * LATENCY: this member's latency spikes, kept as Redis's latency monitor keeps them, and its commands' histograms.
 * A command of this member's clients that took at least {@code latency-monitor-threshold} milliseconds to apply (the
 * time {@link SlowLog} takes: the delivery thread's, applying it; 0, the default, keeps none, as Redis's) is a spike
 * of the event {@code fast-command} if Redis flags the command fast ({@link CommandTable#isFast}), else of
 * {@code command}. Each event keeps its newest {@value #SAMPLES} spikes, one a second at most (the second's longest),
 * and its longest ever. Redis's other events (fork, AOF, eviction, expiry cycles) have no counterpart here. The
 * delivery thread adds spikes, event loops read them: both under this object's monitor.
 */
final class LatencyMonitor
{
    /** Spikes kept per event: Redis's {@code LATENCY_TS_LEN}. */
    static final int SAMPLES = 160;
    private static final int GRAPH_ROWS = 4;

    /** One event's spikes: a ring of Unix seconds (0: empty) and milliseconds, and the longest ever. */
    private static final class Series
    {
        final long[] seconds = new long[SAMPLES];
        final long[] millis = new long[SAMPLES];
        int next;
        long max;

        /** Where the newest spike is. */
        int last()
        {
            return (next + SAMPLES - 1) % SAMPLES;
        }

        void add(final long second, final long ms)
        {
            max = Math.max(max, ms);
            final int last = last();
            if (seconds[last] == second)
            {
                millis[last] = Math.max(millis[last], ms);
                return;
            }
            seconds[next] = second;
            millis[next] = ms;
            next = (next + 1) % SAMPLES;
        }

        /** The places of the spikes kept, oldest first. */
        List<Integer> kept()
        {
            final List<Integer> places = new ArrayList<>();
            for (int k = 0; k < SAMPLES; k++)
            {
                final int i = (next + k) % SAMPLES;
                if (seconds[i] != 0)
                {
                    places.add(i);
                }
            }
            return places;
        }
    }

    private final Map<String, Series> events = new TreeMap<>();
    private volatile long thresholdMillis;

    /**
     * Keeps the spikes of commands that take at least {@code millis} milliseconds (0: none).
     *
     * @throws IllegalArgumentException {@code millis} is negative.
     */
    void threshold(final long millis)
    {
        if (millis < 0)
        {
            throw new IllegalArgumentException("latency-monitor-threshold must be 0 or more milliseconds, was " +
                millis);
        }
        thresholdMillis = millis;
    }

    long threshold()
    {
        return thresholdMillis;
    }

    /** Delivery thread: {@code command} took {@code nanos} to apply; a spike if that reaches the threshold. */
    void offer(final Command command, final long nanos)
    {
        final long threshold = thresholdMillis;
        final long millis = nanos / 1_000_000;
        if (threshold > 0 && millis >= threshold)
        {
            add(CommandTable.isFast(Commands.name(command.args)) ? "fast-command" : "command", millis,
                System.currentTimeMillis() / 1000);
        }
    }

    /** A spike of {@code event} of {@code millis} milliseconds at Unix second {@code second}. */
    synchronized void add(final String event, final long millis, final long second)
    {
        events.computeIfAbsent(event, e -> new Series()).add(second, millis);
    }

    /**
     * LATENCY's subcommands but HELP's (the subcommand and its words checked: {@link Subcommands}), at Unix second
     * {@code now}; HISTOGRAM from {@code stats}.
     */
    Reply answer(final List<byte[]> args, final CommandStats stats, final long now)
    {
        return switch (Commands.word(args.get(1)))
        {
            case "LATEST" -> latest();
            case "HISTORY" -> history(Commands.text(args.get(2)));
            case "RESET" -> new Reply.Int(reset(args.subList(2, args.size()).stream().map(Commands::text).toList()));
            case "GRAPH" -> graph(Commands.text(args.get(2)), now);
            case "DOCTOR" -> new Reply.Text(doctor(now));
            case "HISTOGRAM" -> stats.histogram(args);
            default -> Subcommands.help("LATENCY");
        };
    }

    /** LATEST: per event, by name, its newest spike's Unix second and milliseconds, and its longest ever. */
    private synchronized Reply latest()
    {
        final List<Reply> out = new ArrayList<>();
        events.forEach((event, s) ->
        {
            final int last = s.last();
            out.add(new Reply.Array(List.of(Reply.Bulk.of(event), new Reply.Int(s.seconds[last]),
                new Reply.Int(s.millis[last]), new Reply.Int(s.max))));
        });
        return new Reply.Array(out);
    }

    /** HISTORY event: its spikes, oldest first, each its Unix second and milliseconds; none for an unknown event. */
    private synchronized Reply history(final String event)
    {
        final Series s = events.get(event);
        final List<Reply> out = new ArrayList<>();
        if (s != null)
        {
            for (final int i : s.kept())
            {
                out.add(new Reply.Array(List.of(new Reply.Int(s.seconds[i]), new Reply.Int(s.millis[i]))));
            }
        }
        return new Reply.Array(out);
    }

    /** RESET [event ...]: forgets the events named, or all; how many there were of them. */
    private synchronized int reset(final List<String> named)
    {
        if (named.isEmpty())
        {
            final int n = events.size();
            events.clear();
            return n;
        }
        int n = 0;
        for (final String event : named)
        {
            n += events.remove(event) != null ? 1 : 0;
        }
        return n;
    }

    /**
     * GRAPH event: Redis's first line (the spikes' highest and lowest, the longest ever), a rule, then a column per
     * spike, oldest first, its height the spike between the lowest (one row) and the highest ({@value #GRAPH_ROWS}),
     * and the ages of the oldest and the newest. An unknown event gets Redis's error.
     */
    private synchronized Reply graph(final String event, final long now)
    {
        final Series s = events.get(event);
        if (s == null)
        {
            return Reply.error("ERR No samples available for event '" + event + "'");
        }
        final List<Integer> kept = s.kept();
        long high = 0;
        long low = Long.MAX_VALUE;
        for (final int i : kept)
        {
            high = Math.max(high, s.millis[i]);
            low = Math.min(low, s.millis[i]);
        }
        final StringBuilder g = new StringBuilder().append(event).append(" - high ").append(high).append(" ms, low ")
            .append(low).append(" ms (all time high ").append(s.max).append(" ms)\n").append("-".repeat(80))
            .append('\n');
        for (int row = GRAPH_ROWS; row >= 1; row--)
        {
            for (final int i : kept)
            {
                final long height = high == low ? GRAPH_ROWS :
                    1 + (s.millis[i] - low) * (GRAPH_ROWS - 1) / (high - low);
                g.append(height >= row ? '#' : ' ');
            }
            g.append('\n');
        }
        g.append("oldest ").append(age(now - s.seconds[kept.getFirst()])).append(" ago, newest ")
            .append(age(now - s.seconds[kept.getLast()])).append(" ago\n");
        return new Reply.Text(g.toString());
    }

    /** An age as Redis's graph labels it: seconds, minutes, hours or days. */
    private static String age(final long seconds)
    {
        return seconds < 60 ? seconds + "s" : seconds < 3600 ? seconds / 60 + "m" : seconds < 86_400 ?
            seconds / 3600 + "h" : seconds / 86_400 + "d";
    }

    /** DOCTOR: whether spikes are kept, and per event its spikes, their average and spread, and the longest. */
    synchronized String doctor(final long now)
    {
        final long threshold = thresholdMillis;
        if (threshold == 0)
        {
            return "Latency monitoring is off at this member: start it with weft kv --latency-monitor-threshold " +
                "<milliseconds> to keep the commands that take that long or longer (CONFIG SET is refused here: " +
                "the settings are the command line's).\n";
        }
        if (events.isEmpty())
        {
            return "No latency spike at this member: no command of its clients took " + threshold +
                " ms or more to apply since it started or since LATENCY RESET.\n";
        }
        final StringBuilder r = new StringBuilder("Latency spikes at this member (commands of its clients that took ")
            .append(threshold).append(" ms or more to apply here):\n\n");
        int n = 0;
        for (final Map.Entry<String, Series> e : events.entrySet())
        {
            final Series s = e.getValue();
            final List<Integer> kept = s.kept();
            double sum = 0;
            for (final int i : kept)
            {
                sum += s.millis[i];
            }
            final double average = sum / kept.size();
            double deviation = 0;
            for (final int i : kept)
            {
                deviation += Math.abs(s.millis[i] - average);
            }
            r.append(++n).append(". ").append(e.getKey()).append(": ").append(kept.size()).append(kept.size() == 1 ?
                " spike" : " spikes").append(String.format(Locale.ROOT, " (average %.0f ms, mean deviation %.0f ms)",
                average, deviation / kept.size())).append(" from ").append(age(now - s.seconds[kept.getFirst()]))
                .append(" to ").append(age(now - s.seconds[kept.getLast()])).append(" ago; the longest ever ")
                .append(s.max).append(" ms.\n");
        }
        return r.append("""

            A command applies at every member in the group's order, and the commands after it wait for it: SLOWLOG GET \
            names the slow ones (those past slowlog-log-slower-than), LATENCY HISTOGRAM gives each command's times. \
            Long ones are scripts that loop and commands over many items (KEYS, SMEMBERS, HGETALL, LRANGE, SORT, DEL \
            of a large value); a host short of CPU makes every command slower.
            """).toString();
    }
}

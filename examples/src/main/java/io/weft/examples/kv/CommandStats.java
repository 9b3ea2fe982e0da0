package io.weft.examples.kv;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What INFO's {@code Commandstats}, {@code Errorstats} and part of {@code Stats} report: per command of this member's
 * clients, the calls, the time they took and how many failed (an error from running it) or were rejected (refused
 * before it ran: arity, NOAUTH, a command not allowed while subscribed); per error prefix ({@code ERR},
 * {@code WRONGTYPE}, ...), the error replies; the totals; the keyspace's hits and misses ({@link #read}); the bytes
 * read from and written to clients, and the instantaneous rates ({@link InstantaneousRates}). A command that went
 * through the group is timed as the {@link SlowLog} times it (the delivery thread applying it here, not its batch's
 * wait for its turn); one the connection answers itself, for its dispatch. Commands queued in a transaction and those
 * a script calls count under their own names too, as in Redis ({@link InnerCalls}). {@code CONFIG RESETSTAT} sets
 * everything back to 0. Counted on the event loops as replies are written ({@link #replied}), the commands of an
 * EXEC or a script and the hits and misses where they run ({@link #ran}, {@link #read}); read by INFO on any thread.
 * Each command's times also go to a histogram: INFO's {@code Latencystats}.
 */
final class CommandStats
{
    /** Redis's limit on distinct error prefixes: an error of a new prefix past it counts in the totals only. */
    static final int MAX_ERROR_PREFIXES = 128;

    /** Redis's latency histograms: 1 ns to 1 s (longer times count as 1 s), two significant digits. */
    private static final long MAX_LATENCY_NANOS = 1_000_000_000L;
    /** LATENCY HISTOGRAM's first bucket: Redis's, up to 1,024 ns. */
    private static final long FIRST_BUCKET_NANOS = 1024;
    /** INFO latencystats' percentiles, Redis's default {@code latency-tracking-info-percentiles}. */
    static final List<String> PERCENTILES = List.of("50", "99", "99.9");

    /** One command's counters, under its monitor: the delivery thread counts a transaction's, the event loop others. */
    private static final class Calls
    {
        /** Each call's time; its count is the calls'. */
        private final Histogram latency = new Histogram(1, MAX_LATENCY_NANOS, 2);
        private long nanos;
        private long rejected;
        private long failed;

        synchronized void ran(final long took, final boolean fails)
        {
            latency.recordValue(Math.clamp(took, 1, MAX_LATENCY_NANOS));
            nanos += took;
            failed += fails ? 1 : 0;
        }

        synchronized void rejected()
        {
            rejected++;
        }

        /** Its commandstats line under {@code name}. */
        synchronized void commandstat(final StringBuilder s, final String name)
        {
            final long calls = latency.getTotalCount();
            final long micros = nanos / 1000;
            s.append("cmdstat_").append(name).append(":calls=").append(calls).append(",usec=").append(micros)
                .append(",usec_per_call=")
                .append(String.format(Locale.ROOT, "%.2f", calls == 0 ? 0.0 : (double)micros / calls))
                .append(",rejected_calls=").append(rejected).append(",failed_calls=").append(failed).append("\r\n");
        }

        /**
         * Its LATENCY HISTOGRAM entry under {@code name}, as Redis 7 answers it, none if it never ran: its calls, then
         * each power-of-two bound from 1,024 ns (in microseconds, the bucket's highest value: 1, 2, 4, 8, 16, 33, ...)
         * with the calls up to it, where that count grew.
         */
        synchronized void histogram(final List<Reply> out, final String name)
        {
            final long calls = latency.getTotalCount();
            if (calls == 0)
            {
                return;
            }
            final List<Reply> buckets = new ArrayList<>();
            long before = 0;
            // as hdr_histogram's log iterator in C counts: the values up to each bound's highest equivalent value
            for (long bound = FIRST_BUCKET_NANOS; before < calls; bound *= 2)
            {
                final long upTo = latency.getCountBetweenValues(0, bound);
                if (upTo > before)
                {
                    buckets.add(new Reply.Int(latency.highestEquivalentValue(bound) / 1000));
                    buckets.add(new Reply.Int(upTo));
                }
                before = upTo;
            }
            out.add(Reply.Bulk.of(name.toLowerCase(Locale.ROOT)));
            out.add(new Reply.Map(List.of(Reply.Bulk.of("calls"), new Reply.Int(calls),
                Reply.Bulk.of("histogram_usec"), new Reply.Map(buckets))));
        }

        /** Its latencystats line under {@code name}; none if it never ran (rejected only). */
        synchronized void latencystat(final StringBuilder s, final String name)
        {
            if (latency.getTotalCount() == 0)
            {
                return;
            }
            s.append("latency_percentiles_usec_").append(name);
            char separator = ':';
            for (final String p : PERCENTILES)
            {
                s.append(separator).append('p').append(p).append('=').append(String.format(Locale.ROOT, "%.3f",
                    latency.getValueAtPercentile(Double.parseDouble(p)) / 1000.0));
                separator = ',';
            }
            s.append("\r\n");
        }
    }

    private final Map<String, Calls> commands = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final LongAdder processed = new LongAdder();
    private final LongAdder errorReplies = new LongAdder();
    private final LongAdder connections = new LongAdder();
    private final KeyspaceLookups lookups = new KeyspaceLookups();
    private final LongAdder input = new LongAdder();
    private final LongAdder output = new LongAdder();
    private final InstantaneousRates rates = new InstantaneousRates();

    /** A client connected: INFO's {@code total_connections_received}. */
    void connected()
    {
        connections.increment();
    }

    /**
     * Event loop: {@code command}'s reply {@code reply} is written, or dropped by CLIENT REPLY OFF; counted under its
     * {@link Command#listed} name (a push, or an unknown command or subcommand, has none and counts only as an
     * error reply, as in Redis). A QUEUED reply counts nothing: the command counts at EXEC. An EXEC or EVAL counts as
     * failed if a command it ran failed ({@link Command#inner}; those counted as they ran, {@link #ran}).
     */
    void replied(final Command command, final Reply reply)
    {
        if (reply == Transaction.QUEUED || reply instanceof Reply.Push)
        {
            return;
        }
        final InnerCalls inner = command.inner;
        final boolean error = reply instanceof Reply.Error;
        if (command.listed != null)
        {
            called(command.listed, command.runNanos, error && command.rejected,
                error || inner != null && inner.anyFailed());
        }
        if (error && (inner == null || !inner.answeredCounted())) // a command's error a script answered: counted
        {
            errorReply(((Reply.Error)reply).text());
        }
    }

    /**
     * The delivery thread (an event loop for a connection command answered at EXEC): a command that an own client's
     * EXEC or script ran, {@link Command#listed} {@code name} (null: none), took {@code nanos} and replied
     * {@code error} (null: none), an error {@code counted} already if a script answered with a command's
     * ({@link InnerCalls}).
     */
    void ran(final String name, final long nanos, final String error, final boolean counted)
    {
        if (name != null)
        {
            called(name, nanos, false, error != null);
        }
        if (error != null && !counted)
        {
            errorReply(error);
        }
    }

    private void called(final String name, final long nanos, final boolean rejected, final boolean failed)
    {
        final Calls c = commands.computeIfAbsent(name, n -> new Calls()); // a lookup once the name is known
        if (rejected)
        {
            c.rejected();
            return;
        }
        c.ran(nanos, failed);
        processed.increment();
    }

    private void errorReply(final String error)
    {
        errorReplies.increment();
        final String prefix = prefix(error);
        final LongAdder seen = errors.get(prefix);
        final LongAdder count = seen != null ? seen : newPrefix(prefix);
        if (count != null)
        {
            count.increment();
        }
    }

    /**
     * A command of this member's client, {@code args} named {@code cmd} (upper case), whose first key is {@code first}
     * (null: not made yet), about to run at {@code now} where {@code store} may be read: the keys it looks up as
     * Redis's reads do ({@link KeyspaceLookups}: keyspace_hits and keyspace_misses).
     */
    void read(final KvStore store, final String cmd, final List<byte[]> args, final Key first, final long now)
    {
        lookups.count(store, cmd, args, first, now);
    }

    /**
     * {@link #read} of an own client's command through the group, named by its {@link Command#listed} name; not again
     * when a blocked command woken comes back (Redis serves a woken client without counting its lookups). Where the
     * lookups it makes as it runs count too ({@link KvStore#lookups}: SORT's patterns); null where none counts.
     */
    KeyspaceLookups read(final KvStore store, final Command command, final Key first, final long now)
    {
        final String listed = command.listed;
        if (listed == null || command.waitingSince != 0) // unknown (refused as it runs), or woken
        {
            return null;
        }
        read(store, listed.indexOf('|') < 0 ? listed : Commands.name(command.args), command.args, first, now);
        return lookups;
    }

    /** Event loop: {@code bytes} read from a client (INFO's total_net_input_bytes). */
    void received(final int bytes)
    {
        input.add(bytes);
    }

    /** Event loop: {@code bytes} written to a client (INFO's total_net_output_bytes). */
    void sent(final int bytes)
    {
        output.add(bytes);
    }

    /** The event loop's timer, every {@value InstantaneousRates#PERIOD_MS} ms: INFO's instantaneous rates. */
    void sample(final long nanos)
    {
        rates.sample(nanos, processed.sum(), input.sum(), output.sum());
    }

    /** The counter of a prefix not seen before, or null past {@value #MAX_ERROR_PREFIXES} of them. */
    private synchronized LongAdder newPrefix(final String prefix)
    {
        return errors.size() < MAX_ERROR_PREFIXES ? errors.computeIfAbsent(prefix, p -> new LongAdder()) :
            errors.get(prefix);
    }

    /** An error's first word, as Redis keys its errorstats: "ERR", "WRONGTYPE", "NOSCRIPT", ... */
    static String prefix(final String error)
    {
        final int space = error.indexOf(' ');
        return space < 0 ? error : error.substring(0, space);
    }

    /** CONFIG RESETSTAT. */
    void reset()
    {
        commands.clear();
        errors.clear();
        processed.reset();
        errorReplies.reset();
        connections.reset();
        lookups.reset();
        input.reset();
        output.reset();
        rates.reset();
    }

    /** The lines INFO's {@code Stats} section takes from here. */
    String stats()
    {
        return "total_connections_received:" + connections.sum() + "\r\ntotal_commands_processed:" +
            processed.sum() + "\r\n" + rates.lines() + "total_net_input_bytes:" + input.sum() +
            "\r\ntotal_net_output_bytes:" + output.sum() + "\r\ntotal_error_replies:" + errorReplies.sum() +
            "\r\nkeyspace_hits:" + lookups.hits() + "\r\nkeyspace_misses:" + lookups.misses() + "\r\n";
    }

    /** INFO's {@code Commandstats} section, a line per command that was called or rejected, by name. */
    String commandstats()
    {
        final StringBuilder s = new StringBuilder("# Commandstats\r\n");
        new TreeMap<>(commands).forEach((name, c) -> c.commandstat(s, name.toLowerCase(Locale.ROOT)));
        return s.toString();
    }

    /**
     * INFO's {@code Latencystats} section, as Redis 7 writes it: a line per command called, by name, with the
     * {@link #PERCENTILES} of its times in microseconds ({@code latency_percentiles_usec_get:p50=1.003,...}).
     */
    String latencystats()
    {
        final StringBuilder s = new StringBuilder("# Latencystats\r\n");
        new TreeMap<>(commands).forEach((name, c) -> c.latencystat(s, name.toLowerCase(Locale.ROOT)));
        return s.toString();
    }

    /**
     * LATENCY HISTOGRAM [command ...]: the commands named (a container's name takes in its subcommands, as
     * {@code config|get}; any case), or all, by name, each that ran here with its {@link Calls#histogram}; a name
     * unknown or of a command that never ran adds nothing, as in Redis.
     */
    Reply histogram(final List<byte[]> args)
    {
        final Map<String, Calls> byName = new TreeMap<>(commands);
        final List<Reply> out = new ArrayList<>();
        if (args.size() == 2)
        {
            byName.forEach((name, c) -> c.histogram(out, name));
        }
        for (final byte[] asked : args.subList(2, args.size()))
        {
            final String named = Commands.text(asked).toUpperCase(Locale.ROOT);
            byName.forEach((name, c) ->
            {
                if (name.equals(named) || name.startsWith(named + "|"))
                {
                    c.histogram(out, name);
                }
            });
        }
        return new Reply.Map(out);
    }

    /** INFO's {@code Errorstats} section, a line per error prefix, by prefix. */
    String errorstats()
    {
        final StringBuilder s = new StringBuilder("# Errorstats\r\n");
        new TreeMap<>(errors).forEach((prefix, count) ->
            s.append("errorstat_").append(prefix).append(":count=").append(count.sum()).append("\r\n"));
        return s.toString();
    }
}

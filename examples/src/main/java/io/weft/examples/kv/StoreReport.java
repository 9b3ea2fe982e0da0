package io.weft.examples.kv;

import io.weft.membership.Group;
import io.weft.membership.View;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What a member tells about itself: INFO's sections, and CONFIG GET's settings under Redis's names with this store's
 * values, so that tools that read them see what holds here (redis-benchmark reads {@code save} and {@code appendonly}
 * at its start and warned "Could not fetch server CONFIG" at the empty answer this store gave before).
 */
final class StoreReport
{
    private StoreReport()
    {
    }

    /**
     * The INFO text: server, clients, memory (the store's estimate), persistence (SAVE and BGSAVE), stats (this
     * member's connections, commands, errors and pub/sub), replication (the view), errorstats, keyspace, commandstats
     * and latencystats sections.
     */
    static String info(final KvReplica r)
    {
        final Group g = r.group;
        final View view = g.view();
        final long now = System.currentTimeMillis();
        final long uptime = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - r.startedNanos);
        return "# Server\r\nredis_version:7.2.0\r\nweft_store:replicated key-value store on a Weft group\r\n" +
            "process_id:" + ProcessHandle.current().pid() + "\r\nuptime_in_seconds:" + uptime + "\r\n" +
            "uptime_in_days:" + uptime / 86_400 + "\r\n" +
            "\r\n# Clients\r\nconnected_clients:" + r.connectedClients.get() + "\r\nblocked_clients:" +
            r.store.blocked.size() + "\r\nweft_clients_paused_for_output:" + r.clientsPausedForOutput.get() + "\r\n" +
            "\r\n# Memory\r\nused_memory:" + r.store.bytes() + "\r\nmaxmemory:" + r.maxMemory +
            "\r\nmaxmemory_policy:noeviction\r\n" +
            "\r\n# Persistence\r\nloading:0\r\n" + r.saver.persistence(r.applier.writes.get()) +
            "\r\n# Stats\r\n" + r.stats.stats() + "pubsub_channels:" + r.pubSub.count(PubSub.Kind.CHANNEL) +
            "\r\npubsub_patterns:" + r.pubSub.count(PubSub.Kind.PATTERN) + "\r\npubsubshard_channels:" +
            r.pubSub.count(PubSub.Kind.SHARD) + "\r\n" +
            "\r\n# Replication\r\nrole:master\r\nweft_member_id:" + r.me + "\r\nweft_view_id:" + view.id() + "\r\n" +
            "weft_view_members:" + view.members() + "\r\nweft_view_leader:" + view.members().getFirst() + "\r\n" +
            "weft_transport:" + g.config().transport().kind().name().toLowerCase(Locale.ROOT) + "\r\n" +
            "weft_reads:" + (r.localReads() ? "local" : "linearizable") + "\r\n" +
            "weft_log:" + (r.log == null ? "none" : r.log.directory().toString()) + "\r\nweft_write_position:" +
            r.applied + "\r\nweft_writes_applied:" + r.applier.writes.get() + "\r\nweft_reads_served:" +
            r.applier.reads.get() + "\r\nweft_local_reads_ordered:" + r.store.sequence.ordered() +
            "\r\nweft_batches_sent:" + r.proposer.batchesSent() + "\r\nweft_status:" +
            Objects.requireNonNullElse(r.down(), "ok") + "\r\n" +
            "\r\n" + r.stats.errorstats() +
            "\r\n# Keyspace\r\ndb0:keys=" + r.store.size(now) + ",expires=" + r.store.expiring(now) + ",avg_ttl=0\r\n" +
            "\r\n" + r.stats.commandstats() + "\r\n" + r.stats.latencystats();
    }

    /**
     * CONFIG GET pattern [pattern ...]: each setting whose name a pattern matches (a glob, in any case) once, as name
     * and value (a map in RESP3); a pattern that matches none adds nothing, as in Redis. CONFIG's other subcommands
     * are refused ({@link Subcommands}): the settings are the command line's, fixed while a member runs.
     */
    static Reply config(final KvReplica r, final List<byte[]> args)
    {
        final String sub = Commands.word(args.get(1));
        if (sub.equals("RESETSTAT"))
        {
            r.stats.reset();
            return Reply.OK;
        }
        if (!sub.equals("GET"))
        {
            return sub.equals("HELP") ? Subcommands.help("CONFIG") : Subcommands.unsupported("CONFIG", args);
        }
        final List<byte[]> patterns = args.subList(2, args.size()).stream().map(StoreReport::lowerCase).toList();
        final List<Reply> pairs = new ArrayList<>();
        for (final Map.Entry<String, String> setting : settings(r).entrySet())
        {
            final byte[] name = setting.getKey().getBytes(StandardCharsets.US_ASCII);
            for (final byte[] pattern : patterns)
            {
                if (Glob.matches(pattern, name))
                {
                    pairs.add(Reply.Bulk.of(setting.getKey()));
                    pairs.add(Reply.Bulk.of(setting.getValue()));
                    break;
                }
            }
        }
        return new Reply.Map(pairs);
    }

    /** The settings, by Redis's names, that hold for this store. */
    private static Map<String, String> settings(final KvReplica r)
    {
        final Map<String, String> s = new LinkedHashMap<>();
        s.put("appendonly", r.log == null ? "no" : "yes"); // with --log every write is logged before it is applied
        s.put("appendfsync", "no"); // appends reach the page cache of a mapped file; the kernel writes them out
        s.put("databases", "1");
        s.put("dbfilename", RdbSaver.FILE);
        s.put("dir", r.saver.directory().toString()); // where SAVE and BGSAVE write
        s.put("latency-monitor-threshold", Long.toString(r.latency.threshold())); // LATENCY's spikes
        s.put("latency-tracking", "yes"); // INFO latencystats
        s.put("latency-tracking-info-percentiles", String.join(" ", CommandStats.PERCENTILES));
        s.put("maxmemory", Long.toString(r.maxMemory));
        s.put("maxmemory-policy", "noeviction"); // writes that may grow a full store are refused, nothing evicted
        s.put("notify-keyspace-events", "");
        s.put("proto-max-bulk-len", Integer.toString(r.maxCommandBytes())); // a longer bulk string: protocol error
        s.put("save", ""); // no automatic snapshot files: the log, where there is one, holds the store
        s.put("slowlog-log-slower-than", Long.toString(r.slowLog.slowerThanMicros()));
        s.put("slowlog-max-len", Integer.toString(r.slowLog.maxLen()));
        s.put("timeout", "0"); // an idle client is never closed
        return s;
    }

    /** {@code pattern} in lower case (ASCII): the settings' names are, and Redis matches them in any case. */
    private static byte[] lowerCase(final byte[] pattern)
    {
        final byte[] lower = pattern.clone();
        for (int i = 0; i < lower.length; i++)
        {
            lower[i] = lower[i] >= 'A' && lower[i] <= 'Z' ? (byte)(lower[i] + 32) : lower[i];
        }
        return lower;
    }

    /**
     * INFO [section ...]: the sections of {@code info} named by the arguments in any case (Redis 7 takes several);
     * for none or "default", all but commandstats and latencystats, as Redis; all of them for "all" or "everything";
     * an unknown name adds nothing.
     */
    static String sections(final String info, final List<byte[]> args)
    {
        final List<String> names = args.subList(1, args.size()).stream()
            .map(a -> Commands.text(a).toLowerCase(Locale.ROOT)).toList();
        final boolean every = names.contains("all") || names.contains("everything");
        final boolean usual = names.isEmpty() || names.contains("default");
        final StringBuilder out = new StringBuilder();
        for (final String section : info.split("\r\n\r\n"))
        {
            final int end = section.indexOf("\r\n"); // none in an empty section (no errors yet)
            final String name = section.substring(2, end < 0 ? section.length() : end).toLowerCase(Locale.ROOT);
            final boolean usually = !name.equals("commandstats") && !name.equals("latencystats");
            if (every || names.contains(name) || usual && usually)
            {
                out.append(out.isEmpty() ? "" : "\r\n").append(section.strip()).append("\r\n");
            }
        }
        return out.toString();
    }

    /**
     * ROLE: master, as every member takes writes, with its write position (INFO's weft_write_position) where Redis
     * gives its replication offset, and no replicas: the other members are peers, not replicas of this one.
     */
    static Reply role(final KvReplica r)
    {
        return new Reply.Array(List.of(Reply.Bulk.of("master"), new Reply.Int(r.applied),
            new Reply.Array(List.of())));
    }

    /** TIME: this member's clock, seconds and microseconds since the epoch. */
    static Reply time()
    {
        final java.time.Instant t = java.time.Instant.now();
        return time(t.getEpochSecond(), t.getNano() / 1_000);
    }

    /** TIME in a transaction or a script: the batch's clock ({@code now}, milliseconds), the same at every member. */
    static Reply time(final long now)
    {
        return time(now / 1000, now % 1000 * 1000);
    }

    private static Reply time(final long seconds, final long micros)
    {
        return new Reply.Array(List.of(Reply.Bulk.of(Long.toString(seconds)), Reply.Bulk.of(Long.toString(micros))));
    }

    /**
     * WAIT numreplicas timeout: the other members of the view, at once. Each write of the connection answered before
     * was delivered, which needs every member to have received it, and this reply follows those (replies keep their
     * order). Asked for more replicas than the view has, Redis answers at the timeout; this store answers at once.
     */
    static Reply waitReplicas(final KvReplica replica, final List<byte[]> args)
    {
        ValueEdits.integer(args.get(1)); // a bad word throws Redis's error, answered by the connection
        return ValueEdits.atLeast(args.get(2), Long.MIN_VALUE, "ERR timeout is not an integer or out of range") < 0 ?
            Reply.error("ERR timeout is negative") : new Reply.Int(replica.replicas());
    }
}

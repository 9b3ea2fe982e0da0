package io.weft.tools;

import io.weft.examples.kv.DefaultUser;
import io.weft.examples.kv.KvLog;
import io.weft.examples.kv.KvReplica;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How each replica of the key-value store serves reads, compacts its log and lets clients in: {@code kv} hands them to
 * its members.
 */
final class KvReplicaOptions
{
    @Option(names = "--reads", defaultValue = "linearizable",
        description = "linearizable (reads ordered through the group) or local (sequentially consistent, faster).")
    String reads;

    @Option(names = "--compact-after", defaultValue = "" + KvLog.COMPACT_AFTER_BYTES,
        description = "With --log: compact a log once this many bytes of writes follow its last snapshot " +
            "(default ${DEFAULT-VALUE}, 64 MiB).")
    long compactAfter;

    @Option(names = "--max-memory", defaultValue = "0",
        description = "Refuse writes that may grow the store (SET, APPEND, INCR, ...) with Redis's OOM error " +
            "while it holds more than this many bytes (its estimate: keys, values and 256 bytes an entry); 0: half " +
            "of each member's heap (default).")
    long maxMemory;

    @Option(names = "--slowlog-log-slower-than", defaultValue = "" + KvReplica.SLOWLOG_SLOWER_THAN_MICROS,
        description = "SLOWLOG keeps the commands of a member's clients that take at least this many microseconds " +
            "to apply (default ${DEFAULT-VALUE}; 0: every command; negative: none), as Redis's setting of this name.")
    long slowlogSlowerThan;

    @Option(names = "--slowlog-max-len", defaultValue = "" + KvReplica.SLOWLOG_MAX_LEN,
        description = "The most commands SLOWLOG keeps at each member, the newest (default ${DEFAULT-VALUE}).")
    int slowlogMaxLen;

    @Option(names = "--latency-monitor-threshold", defaultValue = "0",
        description = "LATENCY keeps the spikes of a member's clients' commands that take at least this many " +
            "milliseconds to apply (default ${DEFAULT-VALUE}: none), as Redis's setting of this name.")
    long latencyMonitorThreshold;

    @Option(names = "--requirepass-file", description = "Clients must AUTH with the password on this file's first " +
        "line before their commands run, as with Redis's requirepass (default: no password). A file, so that the " +
        "password is not on a command line for ps to show.")
    Path requirePassFile;

    /** What is wrong with these options, or null. */
    String problem()
    {
        if (!reads.equals("linearizable") && !reads.equals("local"))
        {
            return "--reads takes linearizable or local, not '" + reads + "'";
        }
        if (maxMemory < 0)
        {
            return "--max-memory must be 0 (half the heap) or a number of bytes, was " + maxMemory;
        }
        if (slowlogMaxLen < 0)
        {
            return "--slowlog-max-len must be 0 or more, was " + slowlogMaxLen;
        }
        if (latencyMonitorThreshold < 0)
        {
            return "--latency-monitor-threshold must be 0 (off) or a number of milliseconds, was " +
                latencyMonitorThreshold;
        }
        if (compactAfter < 1)
        {
            return "--compact-after must be a positive number of bytes, was " + compactAfter;
        }
        try
        {
            user();
            return null;
        }
        catch (final IllegalArgumentException ex)
        {
            return "--requirepass-file: " + ex.getMessage();
        }
    }

    /** Who may use the store: the password of {@code --requirepass-file}, or none. */
    DefaultUser user()
    {
        return requirePassFile == null ? DefaultUser.NO_PASSWORD : DefaultUser.fromFile(requirePassFile);
    }

    /** The same options for a kv-member. */
    List<String> forward()
    {
        final List<String> options = new ArrayList<>(List.of("--reads", reads, "--compact-after",
            String.valueOf(compactAfter), "--max-memory", String.valueOf(maxMemory), "--slowlog-log-slower-than",
            String.valueOf(slowlogSlowerThan), "--slowlog-max-len", String.valueOf(slowlogMaxLen),
            "--latency-monitor-threshold", String.valueOf(latencyMonitorThreshold)));
        if (requirePassFile != null)
        {
            options.addAll(List.of("--requirepass-file", requirePassFile.toAbsolutePath().toString()));
        }
        return options;
    }
}

package io.weft.tools;

import io.weft.config.ConfigWriter;
import io.weft.config.LocalPorts;
import io.weft.config.MembershipConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The key-value store's member processes for a test: a tcp group on loopback, each member with its Redis port. */
final class KvProcesses implements AutoCloseable
{
    final List<MemberProcess> processes = new ArrayList<>();
    final List<Integer> ports;
    private final Path dir;
    private final Path config;
    private final String reads;
    private final Path logs;
    private final long compactAfter;
    private final List<String> options;

    /** Starts {@code members} members and waits until each serves. */
    KvProcesses(final Path dir, final int members, final String reads) throws Exception
    {
        this(dir, members, reads, null);
    }

    /** Starts {@code members} durable members (with {@code logs}: member i logs in logs/member-i). */
    KvProcesses(final Path dir, final int members, final String reads, final Path logs) throws Exception
    {
        this(dir, members, reads, logs, io.weft.examples.kv.KvLog.COMPACT_AFTER_BYTES);
    }

    /** As above, each log compacted once {@code compactAfter} bytes of writes follow its last snapshot. */
    KvProcesses(final Path dir, final int members, final String reads, final Path logs, final long compactAfter)
        throws Exception
    {
        this(dir, members, members, reads, logs, compactAfter, true, List.of());
    }

    /** Starts {@code members} members in memory, each with these further kv-member options ({@code --max-memory}). */
    static KvProcesses with(final Path dir, final int members, final String... options) throws Exception
    {
        return new KvProcesses(dir, members, members, "linearizable", null,
            io.weft.examples.kv.KvLog.COMPACT_AFTER_BYTES, true, List.of(options));
    }

    /**
     * Starts {@code members} durable members and returns at once: the test watches their cold start itself. Members
     * from {@code initial} on are outside view 0 and join.
     */
    static KvProcesses starting(final Path dir, final int members, final int initial, final Path logs)
        throws Exception
    {
        return new KvProcesses(dir, members, initial, "linearizable", logs,
            io.weft.examples.kv.KvLog.COMPACT_AFTER_BYTES, false, List.of());
    }

    private KvProcesses(final Path dir, final int members, final int initial, final String reads, final Path logs,
        final long compactAfter, final boolean awaitServing, final List<String> options) throws Exception
    {
        this.compactAfter = compactAfter;
        this.options = options;
        this.dir = dir;
        this.reads = reads;
        this.logs = logs;
        final List<Integer> free = LocalPorts.free(3 * members);
        final WeftConfig all = KvCommand.config(TransportKind.TCP, free.subList(0, 2 * members));
        final MembershipConfig m = all.membership();
        final WeftConfig cfg = new WeftConfig(all.memberId(), all.group(), all.transport(), all.idle(), all.failure(),
            all.subgroups(), all.smc(), new MembershipConfig(m.initialView().subList(0, initial),
            m.secret(), m.sendDuringViewChange(), m.joinTimeout(), m.runtimeSubgroups()), all.dds());
        this.config = Files.writeString(dir.resolve("kv.conf"), ConfigWriter.render(cfg));
        this.ports = free.subList(2 * members, 3 * members);
        try
        {
            for (int i = 0; i < members; i++)
            {
                processes.add(start(i, i >= initial));
            }
            for (int i = 0; i < members && awaitServing; i++)
            {
                awaitServing(i);
            }
        }
        catch (final Exception | AssertionError ex)
        {
            close();
            throw ex;
        }
    }

    /** Starts member {@code i} (again: {@code join}) in place of its process. */
    MemberProcess start(final int i, final boolean join) throws IOException
    {
        final List<String> args = new ArrayList<>(List.of("kv-member", "--config", config.toString(), "--member",
            String.valueOf(i), "--port", String.valueOf(ports.get(i)), "--reads", reads));
        if (logs != null)
        {
            args.addAll(List.of("--log", logs.resolve("member-" + i).toString(), "--compact-after",
                String.valueOf(compactAfter)));
        }
        else // SAVE's dump.rdb in the test's directory, not the module's
        {
            args.addAll(List.of("--dir", dir.resolve("member-" + i).toString()));
        }
        args.addAll(options);
        if (join)
        {
            args.add("--join");
        }
        final MemberProcess p = MemberProcess.start("kv" + i + (join ? "j" : ""), dir, Weft.class,
            args.toArray(String[]::new));
        if (i < processes.size())
        {
            processes.set(i, p);
        }
        return p;
    }

    /** Kills every member with kill -9 and starts the group again from its logs: each replays, then they recover. */
    void killAllAndColdStart() throws IOException
    {
        for (final MemberProcess p : processes)
        {
            p.kill();
        }
        for (int i = 0; i < processes.size(); i++)
        {
            start(i, false);
        }
        for (int i = 0; i < processes.size(); i++)
        {
            awaitServing(i);
        }
    }

    void awaitServing(final int i)
    {
        processes.get(i).awaitOutput("member " + i + ": kv serving", Duration.ofSeconds(60));
    }

    MemberProcess get(final int i)
    {
        return processes.get(i);
    }

    @Override
    public void close()
    {
        processes.forEach(MemberProcess::close);
    }
}

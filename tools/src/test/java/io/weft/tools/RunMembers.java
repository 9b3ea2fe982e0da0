package io.weft.tools;

import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The member processes of one test's group, by member id: {@link VsRun} and {@link DdsRun} start, command and kill
 * theirs through this. Each process runs a member command of the CLI on the group's configuration file, in the
 * test's directory; closing stops every process started and removes the group's files.
 */
final class RunMembers implements AutoCloseable
{
    final Path dir;
    final Path file;
    final Map<Integer, MemberProcess> live = new HashMap<>();
    private final Members members;
    private int started;

    RunMembers(final WeftConfig config, final Path dir)
    {
        this.dir = dir;
        this.file = TestGroups.write(config, dir);
        this.members = new Members(config);
    }

    /**
     * Starts member {@code id} with {@code command} (vs-member, dds-member), its {@code options}, {@code --join}
     * if it joins, then {@code extra}; the process is named after the command, the id and how many came before.
     */
    MemberProcess start(final String command, final int id, final boolean join, final List<String> options,
        final String... extra)
    {
        return start(List.of(), command, id, join, options, extra);
    }

    /** Like {@link #start(String, int, boolean, List, String...)} with JVM flags that override the defaults. */
    MemberProcess start(final List<String> jvmFlags, final String command, final int id, final boolean join,
        final List<String> options, final String... extra)
    {
        final List<String> args = new ArrayList<>(List.of(command, "--config", file.toString(), "--member",
            String.valueOf(id), "--dir", dir.toString()));
        args.addAll(options);
        if (join)
        {
            args.add("--join");
        }
        args.addAll(List.of(extra));
        final String name = command.substring(0, command.indexOf('-')) + id + "-" + started++;
        final MemberProcess p = members.add(MemberProcess.start(jvmFlags, name, dir, Weft.class,
            args.toArray(String[]::new)));
        live.put(id, p);
        return p;
    }

    /** Gives a live member a command through its command file (end, leave, burst, ...). */
    void command(final int id, final String command) throws IOException
    {
        CommandFile.give(dir, id, command);
    }

    @Override
    public void close() throws IOException
    {
        members.close();
    }
}

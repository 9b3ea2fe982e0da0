package io.weft.tools;

import io.weft.config.DdsConfig;
import io.weft.config.MembershipConfig;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.dds.DomainParticipant;
import io.weft.dds.LoggedSample;
import io.weft.dds.SampleLog;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.TestGroups;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A DDS domain of dds-member processes for one test: start, kill, command, then read what each read and logged. */
final class DdsRun implements AutoCloseable
{
    /**
     * One line of a read log: the sample's position, its publisher, the publisher's process (incarnation) and
     * counter, and whether it came from storage.
     */
    record Read(long position, int publisher, int incarnation, long counter, boolean stored)
    {
        /** The same sample whether stored or live (a log entry does not say). */
        Read sample()
        {
            return new Read(position, publisher, incarnation, counter, false);
        }
    }

    final WeftConfig config;
    final Path dir;
    private final RunMembers members;
    private final Map<Integer, MemberProcess> live;

    DdsRun(final TransportKind kind, final int addressBook, final List<Integer> initialView, final Path dir,
        final List<TopicConfig> topics)
    {
        this.config = TestGroups.builder(kind, addressBook)
            .membership(new MembershipConfig(initialView, VsRun.SECRET, ViewChangeSends.WAIT, Duration.ofSeconds(60)))
            .dds(new DdsConfig(dir.resolve("logs"), topics)).build();
        this.dir = dir;
        this.members = new RunMembers(config, dir);
        this.live = members.live;
    }

    MemberProcess start(final int id, final boolean join, final String... extra)
    {
        return members.start("dds-member", id, join, List.of(), extra);
    }

    /** Starts member {@code id} with a heap of {@code heapMiB} instead of the default. */
    MemberProcess startWithHeap(final int heapMiB, final int id, final boolean join, final String... extra)
    {
        return members.start(List.of("-Xmx" + heapMiB + "m"), "dds-member", id, join, List.of(), extra);
    }

    MemberProcess process(final int id)
    {
        return live.get(id);
    }

    /**
     * Waits for {@code text} from member {@code id}; a timeout also shows every other live member's output and threads,
     * since the member that waits is often not the one that is stuck (a peer's log thread, say).
     */
    void awaitOutput(final int id, final String text, final Duration timeout)
    {
        try
        {
            live.get(id).awaitOutput(text, timeout);
        }
        catch (final AssertionError ex)
        {
            final StringBuilder all = new StringBuilder(String.valueOf(ex.getMessage()));
            live.forEach((other, process) ->
            {
                if (other != id)
                {
                    all.append("\n--- member ").append(other).append(", output with its threads:\n")
                        .append(process.outputWithThreadDump());
                }
            });
            throw new AssertionError(all.toString(), ex);
        }
    }

    void kill(final int id)
    {
        live.remove(id).kill();
    }

    void command(final int id, final String command) throws IOException
    {
        members.command(id, command);
    }

    /** Tells every live member to end, in id order, and checks that each exits 0. */
    void endAll() throws IOException
    {
        for (final int id : new java.util.TreeSet<>(live.keySet()))
        {
            command(id, "end");
            final int code = live.get(id).awaitExit(Duration.ofSeconds(60));
            org.junit.jupiter.api.Assertions.assertEquals(0, code, live.get(id).output());
        }
    }

    /** Every read log of a topic, per member incarnation (file name), in the order written. */
    Map<String, List<Read>> reads(final String topic) throws IOException
    {
        final Map<String, List<Read>> result = new HashMap<>();
        try (var files = Files.newDirectoryStream(dir, "dds-" + topic + "-*.log"))
        {
            for (final Path f : files)
            {
                final List<Read> lines = new ArrayList<>();
                for (final String line : Files.readAllLines(f))
                {
                    final String[] p = line.split(" ");
                    if (p.length == 5)
                    {
                        lines.add(new Read(Long.parseLong(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2]),
                            Long.parseLong(p[3]), "stored".equals(p[4])));
                    }
                }
                result.put(f.getFileName().toString(), lines);
            }
        }
        return result;
    }

    /** The log of a logged topic at member {@code id}, as (position, publisher, counter). */
    List<Read> log(final int id, final String topic)
    {
        final List<Read> entries = new ArrayList<>();
        try (SampleLog log = SampleLog.openReadOnly(DomainParticipant.logDirectory(config.forMember(id), topic)))
        {
            log.read(0, (LoggedSample s) ->
            {
                final ByteBuffer b = ByteBuffer.wrap(s.payload());
                entries.add(new Read(s.position(), b.getInt(0), b.getInt(12), b.getLong(4), false));
            });
        }
        return entries;
    }

    @Override
    public void close() throws IOException
    {
        members.close();
    }
}

package io.weft.tools;

import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.WeftConfig;
import io.weft.dds.Codecs;
import io.weft.dds.DataReader;
import io.weft.dds.DataWriter;
import io.weft.dds.DomainParticipant;
import io.weft.dds.Topic;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A DDS participant for tests: on every topic it publishes it writes {@code count} samples ({@code member:4
 * counter:8 pid:4}, padded to the size) at a rate, waits on logged topics until they are durable, and logs every
 * sample its readers get to {@code dds-<topic>-<member>-<pid>.log} as {@code position publisher pid counter
 * stored|live} lines. Prints
 * READY, WRITTEN (with how many), DURABLE, FRONTIER (a logged topic's durability frontier, when it moves) and, once
 * it has read {@code count} samples of every publisher of every topic, READ-ALL. Obeys the command file
 * {@code cmd-<member>}: "stop" stops writing, "end" ends.
 */
final class DdsMember
{
    private final WeftConfig config;
    private final boolean join;
    private final long count;
    private final long rate;
    private final int size;
    private final Path dir;
    private final Duration timeout;
    private final int me;
    private final long pid = ProcessHandle.current().pid();
    private final Map<String, BufferedWriter> logs = new HashMap<>();
    private final Map<String, Map<Integer, Long>> readFrom = new HashMap<>();
    private volatile boolean writing = true;

    DdsMember(final WeftConfig config, final boolean join, final long count, final long rate, final int size,
        final Path dir, final Duration timeout)
    {
        this.config = config;
        this.join = join;
        this.count = count;
        this.rate = rate;
        this.size = size;
        this.dir = dir;
        this.timeout = timeout;
        this.me = config.memberId();
    }

    int run() throws Exception
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        try (DomainParticipant participant = DomainParticipant.builder(config).create())
        {
            final List<DataReader<byte[]>> readers = new ArrayList<>();
            final List<DataWriter<byte[]>> writers = new ArrayList<>();
            for (final String name : participant.topics())
            {
                final Topic<byte[]> topic = participant.topic(name, Codecs.bytes());
                final TopicConfig t = config.dds().topic(name);
                final BufferedWriter log = Files.newBufferedWriter(dir.resolve("dds-" + name + "-" + me + "-" + pid +
                    ".log"));
                logs.put(name, log);
                final Map<Integer, Long> seen = new HashMap<>();
                readFrom.put(name, seen);
                if (t.qos().stored() || t.subscriberIds(config.group()).contains(me))
                {
                    readers.add(participant.createReader(topic, (bytes, info) ->
                    {
                        final ByteBuffer b = ByteBuffer.wrap(bytes);
                        final int publisher = b.getInt(0);
                        final long counter = b.getLong(4);
                        final int incarnation = b.getInt(12);
                        synchronized (log)
                        {
                            try
                            {
                                log.write(info.position() + " " + publisher + " " + incarnation + " " + counter + " " +
                                    (info.stored() ? "stored" : "live") + "\n");
                            }
                            catch (final IOException ex)
                            {
                                throw new UncheckedIOException(ex);
                            }
                        }
                        synchronized (seen)
                        {
                            seen.merge(publisher, 1L, Long::sum);
                        }
                    }));
                }
                if (t.publisherIds(config.group()).contains(me))
                {
                    writers.add(participant.createWriter(topic));
                }
            }
            participant.enable(join); // the readers exist: they get every sample from the first on
            final Thread flusher = Thread.ofPlatform().daemon(true).start(this::flushLoop);
            System.out.printf("member %d: READY in view %d%n", me, participant.group().view().id());
            final Thread writer = Thread.ofPlatform().name("dds-writer").start(() -> writeAll(writers));
            boolean all = false;
            final Path cmd = CommandFile.of(dir, me);
            final Map<String, Long> frontiers = new HashMap<>();
            while (System.nanoTime() < deadline)
            {
                if (writing) // after "stop", others may end and leave this member in a minority: the group stops
                {
                    printFrontiers(participant, frontiers);
                }
                if (!all && readAll(participant))
                {
                    all = true;
                    flush();
                    System.out.printf("member %d: READ-ALL%n", me);
                }
                final String command = CommandFile.take(cmd);
                if (command != null)
                {
                    writing = false;
                    writer.join();
                    if ("stop".equals(command))
                    {
                        continue;
                    }
                    flush();
                    System.out.printf("member %d: END%n", me);
                    flusher.interrupt();
                    return 0;
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
            System.out.printf("member %d: TIMEOUT after %s%n", me, timeout);
            return SstMember.EXIT_TIMEOUT;
        }
        finally
        {
            flush();
            for (final BufferedWriter w : logs.values())
            {
                w.close();
            }
        }
    }

    /** Prints each logged topic's durability frontier when it moved: tests compare it with the logs on disk. */
    private void printFrontiers(final DomainParticipant participant, final Map<String, Long> printed)
    {
        for (final String name : participant.topics())
        {
            if (config.dds().topic(name).qos() == QosLevel.LOGGED_STORAGE)
            {
                final long frontier = participant.durabilityFrontier(participant.topic(name, Codecs.bytes()));
                if (!Long.valueOf(frontier).equals(printed.put(name, frontier)))
                {
                    System.out.printf("member %d: FRONTIER %s %d%n", me, name, frontier);
                }
            }
        }
    }

    /** Writes, then waits on the logged topics until what it wrote is in every member's log. */
    private void writeAll(final List<DataWriter<byte[]>> writers)
    {
        final long n = write(writers);
        System.out.printf("member %d: WRITTEN %d samples per topic%n", me, n);
        for (final DataWriter<byte[]> w : writers)
        {
            if (w.topic().qos() == QosLevel.LOGGED_STORAGE)
            {
                final boolean durable = w.awaitDurable(Duration.ofMinutes(1));
                System.out.printf("member %d: DURABLE %s %b%n", me, w.topic().name(), durable);
            }
        }
    }

    private long write(final List<DataWriter<byte[]>> writers)
    {
        final byte[] sample = new byte[size];
        final ByteBuffer b = ByteBuffer.wrap(sample);
        final long period = rate > 0 ? 1_000_000_000L / rate : 0;
        long next = System.nanoTime();
        long counter = 0;
        for (; counter < count && writing; counter++)
        {
            b.putInt(0, me).putLong(4, counter).putInt(12, (int)pid);
            for (final DataWriter<byte[]> w : writers)
            {
                w.write(sample);
            }
            if (period > 0)
            {
                next += period;
                final long wait = next - System.nanoTime();
                if (wait > 0)
                {
                    LockSupport.parkNanos(wait);
                }
            }
        }
        return counter;
    }

    /** Whether every topic read {@code count} samples from each of its publishers. */
    private boolean readAll(final DomainParticipant participant)
    {
        for (final String name : participant.topics())
        {
            final TopicConfig t = config.dds().topic(name);
            if (!t.qos().stored() && !t.subscriberIds(config.group()).contains(me))
            {
                continue;
            }
            final Map<Integer, Long> seen = readFrom.get(name);
            synchronized (seen)
            {
                for (final int p : t.publisherIds(config.group()))
                {
                    if (seen.getOrDefault(p, 0L) < count)
                    {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private void flushLoop()
    {
        while (!Thread.currentThread().isInterrupted())
        {
            flush();
            LockSupport.parkNanos(100_000_000L);
        }
    }

    private void flush()
    {
        for (final BufferedWriter w : logs.values())
        {
            synchronized (w)
            {
                try
                {
                    w.flush();
                }
                catch (final IOException ignored)
                {
                    // closed at the end of the run
                }
            }
        }
    }
}

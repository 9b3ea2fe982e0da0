package io.weft.dds;

import io.weft.config.QosLevel;
import io.weft.config.WeftConfig;
import io.weft.membership.StateTransfer;
import io.weft.membership.StreamedStateTransfer;
import io.weft.membership.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The state a joining participant installs before its first delivery: per topic this member is in, the next
 * position, and for storage topics the stored samples: the volatile history, or the log entries the joiner lacks.
 * Big-endian: {@code magic "WDDS":4 version:2 topics:4 (name:UTF position:8 from:8 samples:8 (position:8
 * publisher:4 nanos:8 length:4 payload crc:4)*)*}, where {@code from} is the first log position sent (0: all).
 * It is written as it is read from the logs and installed as it arrives (a log's entries are appended one batch at a
 * time): a log of any size travels without being whole in memory at either end.
 *
 * <p>The joiner's request names, per logged topic, how many entries its log holds and the CRC of the last one:
 * {@code magic:4 version:2 topics:4 (name:UTF count:8 crc:4)*}; a donor whose log has that entry with that CRC sends
 * only the entries after it (a restarted member catches up on what it missed, not the whole log again). A member of
 * view 0 whose logs are shorter than others' fetches what they lack ({@link ViewZeroLogs}) with the same request
 * under another magic, {@code "WDDF"}: the state then holds only the topics it names.
 */
final class DomainState implements StreamedStateTransfer
{
    private static final Logger LOG = LoggerFactory.getLogger(DomainState.class);
    private static final int MAGIC = 0x57444453;
    private static final int FETCH_MAGIC = 0x57444446;
    private static final short VERSION = 3; // 3: sample counts as longs, logs streamed
    /** Larger than any topic's max-sample: a length past it is not a sample. */
    private static final int MAX_SAMPLE = 64 << 20;
    private static final int MAX_REQUEST = StateTransfer.MAX_JOIN_REQUEST;
    /** A request's magic, version and topic count. */
    private static final int REQUEST_HEADER = 10;

    private final Map<String, TopicState> topics;
    private final WeftConfig config;
    private final Path logRoot;

    /**
     * @param topics the member's topics (those created at run time are added as the group agrees on them).
     * @param config the member's configuration; its topic logs live under {@link DomainParticipant#logRoot}, one
     *               directory per topic: a restarted member also asks with the logs of topics created at run time,
     *               which it learns of only with its view.
     */
    DomainState(final Map<String, TopicState> topics, final WeftConfig config)
    {
        this.topics = topics;
        this.config = config;
        this.logRoot = DomainParticipant.logRoot(config);
    }

    @Override
    public byte[] joinRequest()
    {
        final List<TopicState> all;
        synchronized (topics)
        {
            all = List.copyOf(topics.values());
        }
        final Map<String, long[]> logs = new LinkedHashMap<>();
        for (final TopicState t : all)
        {
            logs.put(t.config.name(), t.logHeld());
        }
        logsOnDisk(logs);
        final Map<String, long[]> held = new LinkedHashMap<>();
        int size = REQUEST_HEADER;
        for (final Map.Entry<String, long[]> e : logs.entrySet())
        {
            final long[] h = e.getValue();
            final int entry = requestBytes(e.getKey());
            if (h != null && h[0] > 0 && size + entry <= MAX_REQUEST) // past the limit: those get the whole log
            {
                held.put(e.getKey(), h);
                size += entry;
            }
        }
        return request(MAGIC, held);
    }

    /** Adds the count and last CRC of each log on disk that no topic of {@code logs} holds open (runtime topics). */
    private void logsOnDisk(final Map<String, long[]> logs)
    {
        if (!Files.isDirectory(logRoot))
        {
            return;
        }
        try (Stream<Path> dirs = Files.list(logRoot))
        {
            for (final Path dir : dirs.filter(Files::isDirectory).sorted().toList())
            {
                final String name = dir.getFileName().toString();
                if (logs.containsKey(name))
                {
                    continue;
                }
                try (SampleLog log = SampleLog.openReadOnly(dir))
                {
                    logs.put(name, log.held());
                }
                catch (final RuntimeException ex)
                {
                    LOG.warn("the log in {} is not offered on joining: {}", dir, ex.getMessage());
                }
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot list the logs in {}: {}", logRoot, ex.getMessage());
        }
    }

    /**
     * The requests with which this member fetches what its logs of {@code topics} lack (each at most a join
     * request's size): each names how many entries the log holds and the CRC of its last one.
     */
    static List<byte[]> fetchRequests(final List<TopicState> topics)
    {
        final List<byte[]> requests = new ArrayList<>();
        final Map<String, long[]> held = new LinkedHashMap<>();
        int size = REQUEST_HEADER;
        for (final TopicState t : topics)
        {
            final int entry = requestBytes(t.config.name());
            if (size + entry > MAX_REQUEST)
            {
                requests.add(request(FETCH_MAGIC, held));
                held.clear();
                size = REQUEST_HEADER;
            }
            final long[] h = t.logHeld();
            held.put(t.config.name(), h != null ? h : new long[] {0, 0}); // no log: the position (and history)
            size += entry;
        }
        if (!held.isEmpty())
        {
            requests.add(request(FETCH_MAGIC, held));
        }
        return requests;
    }

    /** The most a topic's entry of a request takes: its name in modified UTF-8, its count and its CRC. */
    private static int requestBytes(final String topic)
    {
        return 2 + topic.length() * 3 + 8 + 4;
    }

    private static byte[] request(final int magic, final Map<String, long[]> held)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeInt(magic);
            out.writeShort(VERSION);
            out.writeInt(held.size());
            for (final Map.Entry<String, long[]> e : held.entrySet())
            {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue()[0]);
                out.writeInt((int)e.getValue()[1]);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /**
     * What a join or fetch request says each logged topic's log holds (empty for an empty or foreign request), and
     * whether it fetches (only the topics named).
     */
    private record Request(Map<String, long[]> held, boolean fetch)
    {
    }

    private static Request parse(final byte[] request)
    {
        final Map<String, long[]> held = new java.util.HashMap<>();
        final boolean fetch = request.length >= 4 && ByteBuffer.wrap(request).getInt() == FETCH_MAGIC;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(request)))
        {
            if (request.length < 10 || in.readInt() != (fetch ? FETCH_MAGIC : MAGIC) || in.readShort() != VERSION)
            {
                if (fetch)
                {
                    throw new IllegalStateException("a fetch request of another version (a member of another build)");
                }
                return new Request(held, false); // another build's joiner, or none: the whole state
            }
            final int n = in.readInt();
            for (int i = 0; i < n; i++)
            {
                held.put(in.readUTF(), new long[] {in.readLong(), in.readInt()});
            }
        }
        catch (final IOException ex)
        {
            if (fetch)
            {
                throw new IllegalStateException("a malformed fetch request", ex);
            }
            held.clear(); // malformed (it passed the handshake's MAC, so a bug, not an attack): the whole state
        }
        return new Request(held, fetch);
    }

    /** A member that fetches ({@link ViewZeroLogs}, a joiner's install) gets the cut of the topics it names, now. */
    @Override
    public Snapshot captureNow(final byte[] request)
    {
        return capture(request); // each topic is cut under its own monitor, as the delivery thread updates it
    }

    /**
     * Cuts every topic at the view boundary (a fetch: the topics it names, now); the samples are written later, the
     * logs read beside their appends.
     */
    @Override
    public Snapshot capture(final byte[] request)
    {
        final Request r = parse(request);
        final List<TopicState> all;
        synchronized (topics) // topics created at run time are added on this (the membership) thread
        {
            all = List.copyOf(topics.values());
        }
        final List<TopicState.Cut> cuts = new ArrayList<>();
        for (final TopicState t : all)
        {
            if (!r.fetch() || r.held().containsKey(t.config.name()))
            {
                cuts.add(t.cut(r.held().get(t.config.name())));
            }
        }
        if (r.fetch() && cuts.size() != r.held().size())
        {
            throw new IllegalStateException("a fetch names topics this member does not have: " + r.held().keySet());
        }
        return out -> write(cuts, new DataOutputStream(new BufferedOutputStream(out, 64 * 1024)));
    }

    private static void write(final List<TopicState.Cut> cuts, final DataOutputStream out) throws IOException
    {
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeInt(cuts.size());
        for (final TopicState.Cut c : cuts)
        {
            out.writeUTF(c.topic().config.name());
            out.writeLong(c.position());
            if (c.history() != null)
            {
                out.writeLong(0);
                out.writeLong(c.history().size());
                for (final LoggedSample s : c.history())
                {
                    write(s, out);
                }
            }
            else
            {
                final long from = c.logFrom();
                out.writeLong(from);
                out.writeLong(c.logCount() - from);
                try
                {
                    c.readLog(from, s ->
                    {
                        try
                        {
                            write(s, out);
                        }
                        catch (final IOException ex)
                        {
                            throw new UncheckedIOException(ex);
                        }
                    });
                }
                catch (final UncheckedIOException ex)
                {
                    throw ex.getCause();
                }
            }
        }
        out.flush();
    }

    private static void write(final LoggedSample s, final DataOutputStream out) throws IOException
    {
        out.writeLong(s.position());
        out.writeInt(s.publisherId());
        out.writeLong(s.sourceNanos());
        out.writeInt(s.payload().length);
        out.write(s.payload());
        out.writeInt(s.crc());
    }

    /** Installs topic after topic as the state arrives: a log's entries are appended as they come. */
    @Override
    public void install(final InputStream state) throws IOException
    {
        readTopics(state);
    }

    /**
     * Installs the admitting member's state, then fetches the cut of each ordered topic it is not in (it has no
     * position there) from a member of that topic that was in the view before: a joiner took position 0 there, and
     * one sample had different positions at the joiner and at the others.
     */
    @Override
    public void install(final InputStream state, final Joining joining) throws IOException
    {
        final Set<String> installed = readTopics(state);
        final List<TopicState> all;
        synchronized (topics)
        {
            all = List.copyOf(topics.values());
        }
        for (final TopicState t : all)
        {
            if (!installed.contains(t.config.name()) && t.config.qos() != QosLevel.UNORDERED)
            {
                fetchCut(t, joining);
            }
        }
    }

    private void fetchCut(final TopicState t, final Joining joining)
    {
        final View view = joining.view();
        final List<Integer> donors = t.config.subgroup().memberIds(config.group()).stream()
            .filter(id -> view.contains(id) && !view.joined().contains(id)).toList();
        if (donors.isEmpty())
        {
            return; // every member of the topic joins now: its positions start again at each, alike
        }
        final byte[] request = fetchRequests(List.of(t)).getFirst();
        // a donor that has not installed the view yet refuses; the join's watch allows a join timeout without reads
        final long deadline = System.nanoTime() + config.membership().joinTimeout().toNanos() / 2;
        Exception last = null;
        for (int i = 0; System.nanoTime() - deadline < 0; i++)
        {
            final int donor = donors.get(i % donors.size());
            try
            {
                joining.fetch(donor, request, this::readTopics);
                LOG.info("topic {}: position {} fetched from member {}, a member of the topic (the admitting member " +
                    "is not)", t.config.name(), t.position(), donor);
                return;
            }
            catch (final IOException | IllegalStateException ex)
            {
                last = ex;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        throw new IllegalStateException("topic " + t.config.name() + ": no member of it in " + view + " gave this " +
            "joiner its position: " + (last == null ? "no time left" : last.getMessage()), last);
    }

    /** Installs the topics of a state as it arrives; returns their names. */
    private Set<String> readTopics(final InputStream state) throws IOException
    {
        final Set<String> installed = new HashSet<>();
        final DataInputStream in = new DataInputStream(state); // unbuffered: it reads no further than the state
        final int first = in.read();
        if (first < 0)
        {
            return installed; // the donor has no DDS state (no participant there)
        }
        try
        {
            if (((first << 24) | (in.readUnsignedByte() << 16) | in.readUnsignedShort()) != MAGIC ||
                in.readShort() != VERSION)
            {
                throw new IllegalStateException("the state received on joining is not a DDS domain state of version " +
                    VERSION + " (a member of another build?)");
            }
            final int count = in.readInt();
            for (int i = 0; i < count; i++)
            {
                final String name = in.readUTF();
                final long position = in.readLong();
                final long from = in.readLong();
                final long n = in.readLong();
                final TopicState.SampleSource source = () -> read(in);
                final TopicState t = topics.get(name);
                if (t != null)
                {
                    t.install(position, from, n, source);
                    installed.add(name);
                }
                else
                {
                    for (long k = 0; k < n; k++)
                    {
                        source.next(); // a topic this member does not have
                    }
                }
            }
        }
        catch (final EOFException ex)
        {
            throw new IllegalStateException("the state received on joining is truncated", ex);
        }
        return installed;
    }

    private static LoggedSample read(final DataInputStream in) throws IOException
    {
        final long p = in.readLong();
        final int publisher = in.readInt();
        final long nanos = in.readLong();
        final int length = in.readInt();
        if (length < 0 || length > MAX_SAMPLE)
        {
            throw new IllegalStateException("the state received on joining holds a sample of " + length + " bytes");
        }
        final byte[] payload = new byte[length];
        in.readFully(payload);
        return new LoggedSample(p, publisher, nanos, payload, in.readInt());
    }
}

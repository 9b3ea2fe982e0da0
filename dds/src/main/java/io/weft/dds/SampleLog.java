package io.weft.dds;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

import java.io.IOError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The log of one logged-storage topic at one member: a Chronicle Queue in its own directory of entries, one per
 * delivered sample, appended in delivery order (so position {@code n} holds the same sample at every member).
 * Entry layout, little-endian: {@code position:8 publisher:4 sourceNanos:8 length:4 payload:length crc:4}, the
 * CRC-32C over everything before it but the length ({@link EntryCrc}). An excerpt holds one entry or a run of
 * consecutive ones ({@link #appendRun}): Chronicle's cost is per excerpt (header, index), so a run of small samples
 * shares it. Appends go to the page cache of a memory-mapped file: they survive the process (kill -9), not a crash of
 * the host.
 *
 * <p>A read from position {@code n} starts at the excerpt of the last mark at or before {@code n}: every
 * {@value #MARK_EVERY} entries the first entry of an excerpt and its Chronicle index are kept in memory (found again
 * by the check at open), so a read near the end of a long log does not walk it from the start.
 *
 * <p>One appending thread at a time (the topic's delivery thread); reading ({@link #read}) works from any thread
 * and from other processes ({@code weft log}).
 */
public final class SampleLog implements AutoCloseable
{
    private static final int HEADER = 8 + 4 + 8 + 4;
    /** Bytes an entry takes beyond its payload: the header and the CRC. */
    public static final int ENTRY_OVERHEAD = HEADER + 4;
    private static final BooleanSupplier NEVER = () -> false;
    /** Bytes of entries one excerpt takes at most: far below Chronicle's limit, large enough to share its cost. */
    static final int RUN_BYTES = 256 * 1024;
    /** Entries between two marks of the in-memory index: 16 bytes of heap per this many entries. */
    static final int MARK_EVERY = 4096;
    /** Usable bytes below which a faulted write is put down to a full disk: less than a few excerpts. */
    private static final long FULL_BELOW = 4L * RUN_BYTES;

    private final Path directory;
    private final ChronicleQueue queue;
    private final ExcerptAppender appender;
    /** The appending thread's; a reader checks with its own, as it may run beside an append (a catch-up's read). */
    private final EntryCrc crc = new EntryCrc();
    private long count;
    /** Entry position of an excerpt's first entry to its Chronicle index, every {@link #MARK_EVERY} entries. */
    private final ConcurrentSkipListMap<Long, Long> marks = new ConcurrentSkipListMap<>();
    private long nextMark; // the appending thread's (and the check's at open)
    /** Excerpts read so far, by every reader (tests check that a read seeks). */
    private final LongAdder excerptsRead = new LongAdder();
    /** The appending thread's: the log's pages leave the page cache once on disk, well behind the appender. */
    private final DropBehind dropBehind; // null: the kernel decides

    private SampleLog(final Path directory, final ChronicleQueue queue, final boolean append, final boolean dropBehind)
    {
        this.directory = directory;
        this.queue = queue;
        this.appender = append ? queue.createAppender() : null;
        this.dropBehind = append && dropBehind ? new DropBehind() : null;
        if (appender != null)
        {
            // one appending thread at a time, handed over with a happens-before edge (a view change, a joiner's
            // state): Chronicle's per-call check of the calling thread only costs here (a quarter of the log
            // thread's samples in JFR)
            appender.singleThreadedCheckDisabled(true);
        }
    }

    /**
     * Opens (creating it if needed) the log in {@code directory} for appending, after checking every entry it holds:
     * positions in order from 0 and CRCs right. Its pages leave the page cache once on disk ({@link DropBehind}). A
     * cycle file whose creation a kill cut short is set aside first ({@link UnfinishedCycles}).
     *
     * @param directory the log's directory (a Chronicle Queue).
     * @return the log, open for appending after its last entry.
     * @throws IllegalStateException naming the first bad entry.
     */
    public static SampleLog open(final Path directory)
    {
        return open(directory, true);
    }

    /**
     * {@return the log, open for appending} As {@link #open(Path)}.
     *
     * @param directory  the log's directory (a Chronicle Queue).
     * @param dropBehind false leaves the log's pages to the kernel.
     */
    public static SampleLog open(final Path directory, final boolean dropBehind)
    {
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot create the log directory " + directory + ": " + ex.getMessage(),
                ex);
        }
        UnfinishedCycles.setAside(directory);
        final SampleLog log = new SampleLog(directory, build(directory, false), true, dropBehind);
        try
        {
            final String bad = log.verify();
            if (bad != null)
            {
                throw new IllegalStateException("the log in " + directory + " is damaged: " + bad);
            }
        }
        catch (final RuntimeException ex)
        {
            log.close();
            throw ex;
        }
        return log;
    }

    /**
     * {@return an existing log, open for reading only} For the command line.
     *
     * @param directory the log's directory (a Chronicle Queue).
     * @throws IllegalArgumentException no such directory.
     */
    public static SampleLog openReadOnly(final Path directory)
    {
        if (!Files.isDirectory(directory))
        {
            throw new IllegalArgumentException("no log at " + directory + " (no such directory)");
        }
        return new SampleLog(directory, build(directory, true), false, false);
    }

    private static ChronicleQueue build(final Path directory, final boolean readOnly)
    {
        return SingleChronicleQueueBuilder.single(directory.toFile()).readOnly(readOnly).timeoutMS(2_000).build();
    }

    /** {@return the log's directory (a Chronicle Queue)} */
    public Path directory()
    {
        return directory;
    }

    /** {@return the count of entries in the log} */
    public long count()
    {
        return count;
    }

    /** What the log holds, as a join request names it: its count and the CRC of its last entry ({0, 0} if empty). */
    long[] held()
    {
        final long[] held = {count, 0};
        if (count > 0)
        {
            read(count - 1, s -> held[1] = s.crc());
        }
        return held;
    }

    /**
     * Appends the next entry (position {@link #count()}): the first {@code length} bytes of {@code payload}; returns
     * the new count. The log thread of {@link LogWriter} appends from its ring's arrays.
     *
     * @param publisherId the member that wrote the sample.
     * @param sourceNanos {@code System.nanoTime()} at the publisher when it wrote the sample.
     * @param payload     the sample's bytes.
     * @param length      how many of them, from the first.
     * @return the count of entries, this one included.
     */
    public long append(final int publisherId, final long sourceNanos, final byte[] payload, final int length)
    {
        return append(count, publisherId, sourceNanos, payload, length);
    }

    /**
     * Appends entries {@code from} to {@code to} (exclusive) of a ring of {@code capacity} samples (index {@code n %
     * capacity}), as few excerpts as {@link #RUN_BYTES} allows; returns the new count. {@link LogWriter}'s thread
     * appends each run it takes this way.
     */
    long appendRun(final int[] publishers, final long[] nanos, final byte[][] payloads, final int[] lengths,
        final long from, final long to)
    {
        final int capacity = publishers.length;
        long n = from;
        while (n < to)
        {
            final long first = count;
            try (DocumentContext dc = appender.writingDocument())
            {
                try
                {
                    final Bytes<?> b = dc.wire().bytes();
                    int bytes = 0;
                    do
                    {
                        final int i = (int)(n % capacity);
                        write(b, count, publishers[i], nanos[i], payloads[i], lengths[i]);
                        bytes += ENTRY_OVERHEAD + lengths[i];
                        count++;
                        n++;
                    }
                    while (n < to && bytes + ENTRY_OVERHEAD + lengths[(int)(n % capacity)] <= RUN_BYTES);
                }
                catch (final RuntimeException | Error ex)
                {
                    count = first;
                    throw unwritten(dc, first, ex);
                }
            }
            mark(first, appender.lastIndexAppended());
        }
        dropBehind();
        return count;
    }

    /**
     * An append that failed part way, from entry {@code first} on: its excerpt is rolled back, so the log holds
     * nothing of it (Chronicle would commit the bytes written so far, and the log would not open again). A full disk
     * faults the write to the mapped file (the kernel cannot back a new page), which the JVM raises as an
     * {@link InternalError}; the error names the space left.
     */
    private IOError unwritten(final DocumentContext dc, final long first, final Throwable ex)
    {
        dc.rollbackOnClose();
        String why = ex.toString();
        if (ex instanceof InternalError)
        {
            try
            {
                final long usable = Files.getFileStore(directory).getUsableSpace();
                why = (usable < FULL_BELOW ? "the disk of " + directory + " is full, " : "a write to its mapped " +
                    "file faulted, ") + usable + " bytes usable there (" + ex.getMessage() + ")";
            }
            catch (final IOException | RuntimeException unknown)
            {
                why += " (free space unknown: " + unknown.getMessage() + ")";
            }
        }
        return new IOError(new IOException("appending entry " + first + " to the log in " + directory +
            " failed: " + why, ex));
    }

    /** After appends: the pages the appender has left far enough behind leave the page cache. */
    private void dropBehind()
    {
        final net.openhft.chronicle.wire.Wire wire = appender.wire();
        if (dropBehind != null && wire != null)
        {
            dropBehind.advance(appender.currentFile(), wire.bytes().writePosition());
        }
    }

    /** The excerpt at Chronicle {@code index} begins with entry {@code first}: kept if a mark is due. */
    private void mark(final long first, final long index)
    {
        if (first >= nextMark)
        {
            marks.put(first, index);
            nextMark = (first / MARK_EVERY + 1) * MARK_EVERY;
        }
    }

    /** Appends an entry received by state transfer; its position must be {@link #count()}. */
    long append(final LoggedSample sample)
    {
        if (sample.position() != count)
        {
            throw new IllegalStateException("entry " + sample.position() + " cannot follow entry " + (count - 1) +
                " of " + directory);
        }
        return append(sample.position(), sample.publisherId(), sample.sourceNanos(), sample.payload(),
            sample.payload().length);
    }

    private long append(final long position, final int publisherId, final long sourceNanos, final byte[] payload,
        final int length)
    {
        try (DocumentContext dc = appender.writingDocument())
        {
            try
            {
                write(dc.wire().bytes(), position, publisherId, sourceNanos, payload, length);
            }
            catch (final RuntimeException | Error ex)
            {
                throw unwritten(dc, position, ex);
            }
        }
        mark(count, appender.lastIndexAppended());
        count++;
        dropBehind();
        return count;
    }

    private void write(final Bytes<?> b, final long position, final int publisherId, final long sourceNanos,
        final byte[] payload, final int length)
    {
        final int sum = crc.of(position, publisherId, sourceNanos, payload, length);
        b.writeLong(position).writeInt(publisherId).writeLong(sourceNanos).writeInt(length);
        b.write(payload, 0, length);
        b.writeInt(sum);
    }

    /**
     * Reads entries from position {@code from} on, in order, to {@code consumer}; returns the position after the
     * last one read. Stops at the first entry that does not check out and throws naming it.
     *
     * @param from     the first position to read.
     * @param consumer told of each entry, in order.
     * @return the position after the last entry read.
     */
    public long read(final long from, final Consumer<LoggedSample> consumer)
    {
        return read(from, Long.MAX_VALUE, consumer);
    }

    /** As {@link #read(long, Consumer)}, up to position {@code to} (exclusive) at the most. */
    long read(final long from, final long to, final Consumer<LoggedSample> consumer)
    {
        try (ExcerptTailer tailer = queue.createTailer())
        {
            return read(tailer, seek(tailer, from), from, to, NEVER, consumer, false);
        }
    }

    /**
     * As {@link #read(long, Consumer)}, until {@code stop} says so, which it asks before each excerpt: a reader that
     * may end early (a key-value catch-up whose cold start ended) and holds no more than an excerpt's entries.
     *
     * @param from     the first position to read.
     * @param stop     asked before each excerpt; true ends the read.
     * @param consumer told of each entry, in order.
     * @return the position after the last entry read.
     */
    public long read(final long from, final BooleanSupplier stop, final Consumer<LoggedSample> consumer)
    {
        try (ExcerptTailer tailer = queue.createTailer())
        {
            return read(tailer, seek(tailer, from), from, Long.MAX_VALUE, stop, consumer, false);
        }
    }

    /**
     * Moves {@code tailer} to the excerpt of the last mark at or before entry {@code from}; returns the position of
     * that excerpt's first entry (0: the start of the log). A mark whose excerpt does not begin with its entry (an
     * index Chronicle numbers otherwise, say after recovering a killed writer's excerpt) is not trusted: the read
     * starts at the beginning, as it would without marks.
     */
    private long seek(final ExcerptTailer tailer, final long from)
    {
        final Map.Entry<Long, Long> mark = marks.floorEntry(from);
        if (mark != null && tailer.moveToIndex(mark.getValue()) && begins(tailer, mark.getKey()) &&
            tailer.moveToIndex(mark.getValue()))
        {
            return mark.getKey();
        }
        tailer.toStart();
        return 0;
    }

    /** Whether the tailer's next excerpt begins with entry {@code position} (it reads that excerpt). */
    private static boolean begins(final ExcerptTailer tailer, final long position)
    {
        try (DocumentContext dc = tailer.readingDocument())
        {
            if (!dc.isPresent())
            {
                return false;
            }
            final Bytes<?> b = dc.wire().bytes();
            return b.readRemaining() >= ENTRY_OVERHEAD && b.readLong() == position;
        }
    }

    /** Excerpts read so far by every reader of this log. */
    long excerptsRead()
    {
        return excerptsRead.sum();
    }

    /**
     * Reads entries from {@code from} on, waiting for those not yet appended (by this or another process) until
     * {@code stop} says so; the {@code weft log --follow} loop.
     *
     * @param from     the first position to read.
     * @param stop     asked between reads to the log's end; true ends the loop.
     * @param consumer told of each entry, in order.
     * @throws InterruptedException interrupted while waiting for entries.
     */
    public void follow(final long from, final BooleanSupplier stop,
        final Consumer<LoggedSample> consumer) throws InterruptedException
    {
        try (Reader reader = reader(from))
        {
            long next = reader.read(consumer);
            while (!stop.getAsBoolean())
            {
                final long after = reader.read(consumer);
                if (after == next)
                {
                    Thread.sleep(50); // a person is watching: 50 ms is immediate enough, and costs nothing
                }
                next = after;
            }
        }
    }

    /**
     * {@return a reader of the entries from position {@code from} on, each read going on from where the last stopped}
     *
     * @param from the first position to read.
     */
    public Reader reader(final long from)
    {
        return new Reader(from);
    }

    /**
     * Reads on from where it stopped, with one tailer: each read hands on the entries appended since the last, to the
     * log's end, without reading again the ones before (a key-value compaction's copy of what was appended meanwhile).
     */
    public final class Reader implements AutoCloseable
    {
        private final ExcerptTailer tailer = queue.createTailer();
        private final long from;
        private long next; // the entry that the tailer's next excerpt begins with

        private Reader(final long from)
        {
            this.from = from;
            this.next = seek(tailer, from);
        }

        /**
         * Hands on the entries from where the last read stopped to the log's end.
         *
         * @param consumer told of each entry, in order.
         * @return the position after them.
         */
        public long read(final Consumer<LoggedSample> consumer)
        {
            next = SampleLog.this.read(tailer, next, from, Long.MAX_VALUE, NEVER, consumer, false);
            return Math.max(next, from);
        }

        @Override
        public void close()
        {
            tailer.close();
        }
    }

    /**
     * Reads on from the tailer's place, which holds entry {@code expected}; hands on entries from {@code from}, up to
     * {@code to} (exclusive), while {@code stop} (asked before each excerpt) says not to stop; {@code marking}: the
     * check at open, which marks the excerpts as appends do.
     */
    private long read(final ExcerptTailer tailer, final long first, final long from, final long to,
        final BooleanSupplier stop, final Consumer<LoggedSample> consumer, final boolean marking)
    {
        long expected = first;
        final EntryCrc check = new EntryCrc();
        final java.util.List<LoggedSample> run = new java.util.ArrayList<>();
        while (expected < to && !stop.getAsBoolean())
        {
            run.clear();
            final long index;
            try (DocumentContext dc = tailer.readingDocument())
            {
                if (!dc.isPresent())
                {
                    break;
                }
                excerptsRead.increment();
                index = dc.index();
                final Bytes<?> b = dc.wire().bytes();
                do
                {
                    run.add(decode(b));
                }
                while (b.readRemaining() > 0);
            }
            if (marking)
            {
                mark(expected, index); // before the check: a bad entry in the run ends the log's count before it
            }
            for (final LoggedSample s : run) // outside the excerpt: the consumer may take its time
            {
                if (s.position() != expected)
                {
                    throw new IllegalStateException("entry " + expected + " of " + directory + " says position " +
                        s.position());
                }
                if (check.of(s.position(), s.publisherId(), s.sourceNanos(), s.payload(),
                    s.payload().length) != s.crc())
                {
                    throw new IllegalStateException("entry " + expected + " of " + directory + " fails its CRC");
                }
                if (s.position() >= to)
                {
                    break;
                }
                if (s.position() >= from)
                {
                    consumer.accept(s);
                }
                expected++;
            }
        }
        return expected;
    }

    private LoggedSample decode(final Bytes<?> b)
    {
        if (b.readRemaining() < ENTRY_OVERHEAD)
        {
            throw new IllegalStateException("an entry of " + directory + " is " + b.readRemaining() + " bytes long");
        }
        final long position = b.readLong();
        final int publisher = b.readInt();
        final long nanos = b.readLong();
        final int length = b.readInt();
        if (length < 0 || length > b.readRemaining() - 4)
        {
            throw new IllegalStateException("entry " + position + " of " + directory + " claims " + length +
                " payload bytes");
        }
        final byte[] payload = new byte[length];
        b.read(payload, 0, length);
        return new LoggedSample(position, publisher, nanos, payload, b.readInt());
    }

    /** {@return null if every entry checks out, else what is wrong} Sets the count of good entries. */
    public String verify()
    {
        final long[] good = {0};
        marks.clear();
        nextMark = 0;
        try (ExcerptTailer tailer = queue.createTailer())
        {
            count = read(tailer, 0, 0, Long.MAX_VALUE, NEVER, s -> good[0]++, true);
            return null;
        }
        catch (final IllegalStateException ex)
        {
            count = good[0];
            return ex.getMessage();
        }
    }

    @Override
    public void close()
    {
        if (dropBehind != null)
        {
            dropBehind.close();
        }
        if (appender != null)
        {
            appender.close();
        }
        queue.close();
    }
}

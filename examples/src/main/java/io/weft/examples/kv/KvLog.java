package io.weft.examples.kv;

import io.weft.dds.SampleLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOError;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/**
 * A member's durable record of the store (the DDS layer's {@link SampleLog}: a Chronicle Queue of CRC-checked
 * entries): every delivered batch that holds a write, numbered by its write position {@code g} (1, 2, ... in the
 * group's total order, the same at every member), appended before it is applied; and the state a joiner received,
 * as a snapshot at its position. Replaying it rebuilds the store as of the last entry. Appends go to the page cache
 * of a memory-mapped file: they survive the process (kill -9), not a crash of the host.
 *
 * <p>Compaction: once {@code compactAfter} bytes of batches follow the last snapshot, the replica replaces the log
 * with the batches other members may still need in a cold start (those past the group's logged frontier) and a
 * snapshot of the store, so the log holds about one state and a tail instead of every write ever made.
 */
public final class KvLog implements AutoCloseable
{
    /** Batches appended after which a compaction is due by default: 64 MiB of them. */
    public static final long COMPACT_AFTER_BYTES = 64L << 20;
    private static final Logger LOG = LoggerFactory.getLogger(KvLog.class);
    /**
     * A snapshot's bytes go in entries of at most this size: a run of parts, then the last one as the snapshot's
     * own entry. A Chronicle Queue entry holds at most about 16 MiB (a 17 MiB one fails the append with
     * {@code DecoratedBufferOverflowException}, which stopped every member at the compaction of a larger store).
     */
    static final int PART_BYTES = 4 << 20;
    private static final int BATCH = 0;
    private static final int SNAPSHOT = 1;
    private static final int SNAPSHOT_PART = 2;
    /** Write positions between two entries of the batch index ({@link #batchIndex}). */
    private static final long INDEX_EVERY = 1024;

    private final Path directory;
    private final LogGenerations generations;
    private final long compactAfter;
    private volatile SampleLog log; // replaced by a compaction's swap; a catch-up reads it
    /** Held by each append and by a compaction's swap: the delivery thread's fields below change under it. */
    private final ReentrantLock appending = new ReentrantLock();
    /** The first write position of the run of batches that reaches the log's end; the last + 1 with none. */
    private long firstBatch = 1;
    private long lastBatch;
    /** Bytes of batches appended since the last snapshot (or the start of the log). */
    private long sinceSnapshot;
    /**
     * The log entry of every write position that is a multiple of {@link #INDEX_EVERY}: batches lie in the log in
     * the order of their positions, so a read of the batches from a position starts at the entry indexed at or before
     * it instead of the log's first (a compaction's copy and a catch-up would read a whole snapshot before them).
     */
    private volatile ConcurrentSkipListMap<Long, Long> batchIndex = new ConcurrentSkipListMap<>();
    /** The thread of the compaction that runs, or null: the delivery thread starts one, and it clears this. */
    private volatile Thread compaction;
    /** What failed the last compaction: the next append throws it, and the member stops. */
    private volatile IOError compactionFailure;
    private volatile boolean closing;

    public KvLog(final Path directory)
    {
        this(directory, COMPACT_AFTER_BYTES);
    }

    /**
     * Opens the log in {@code directory} (its generations, and a link to the live one: {@link LogGenerations}), first
     * deleting what a crash left of a compaction.
     *
     * @param compactAfter bytes of batches after which {@link #compactionDue} says so.
     */
    public KvLog(final Path directory, final long compactAfter)
    {
        if (compactAfter < 1)
        {
            throw new IllegalArgumentException("compactAfter must be positive, was " + compactAfter);
        }
        this.directory = directory;
        this.generations = new LogGenerations(directory);
        this.compactAfter = compactAfter;
        this.log = SampleLog.open(generations.settle());
    }

    Path directory()
    {
        return directory;
    }

    /**
     * Rebuilds {@code store} from the log; returns the write position it reached (0 for an empty log). The state
     * starts at the last snapshot; batches before it are only kept for others' catch-up.
     *
     * @throws IllegalStateException on a gap in the positions (a damaged log), naming it.
     */
    long replay(final KvStore store, final KvReplica.Applier applier)
    {
        final long[] run = {-1, -1, -1}; // where the current run of entries began; the last snapshot's first, last
        final int[] previous = {BATCH};
        log.read(0, entry ->
        {
            if (previous[0] != SNAPSHOT_PART)
            {
                run[0] = entry.position(); // a snapshot's entry after its parts, or any other, starts a run
            }
            if (entry.publisherId() == SNAPSHOT)
            {
                run[1] = run[0];
                run[2] = entry.position();
            }
            previous[0] = entry.publisherId();
        });
        final long first = run[1];
        final long end = run[2];
        final long[] g = {0};
        final StoreLoader[] loader = {null};
        log.read(0, entry ->
        {
            if (entry.publisherId() != BATCH)
            {
                if (entry.position() >= first && entry.position() <= end)
                {
                    loader[0] = loader[0] == null ? store.loader() : loader[0];
                    loader[0].accept(entry.payload(), 0, entry.payload().length);
                }
                if (entry.publisherId() == SNAPSHOT)
                {
                    sinceSnapshot = 0;
                    if (entry.position() == end)
                    {
                        loader[0].finish();
                        g[0] = entry.sourceNanos();
                    }
                }
            }
            else
            {
                indexed(batchIndex, entry.sourceNanos(), entry.position());
                held(entry.sourceNanos());
                sinceSnapshot += entry.payload().length;
                if (entry.position() < end)
                {
                    return; // catch-up material from before the state the snapshot holds
                }
                if (entry.sourceNanos() == g[0] + 1)
                {
                    applier.apply(entry.sourceNanos(), entry.payload(), entry.payload().length);
                    g[0]++;
                }
                else if (entry.sourceNanos() > g[0] + 1)
                {
                    throw new IllegalStateException("the key-value log in " + directory + " jumps from write " +
                        g[0] + " to " + entry.sourceNanos() + " at entry " + entry.position());
                }
            }
        });
        if (lastBatch < g[0])
        {
            firstBatch = g[0] + 1; // no batch reaches the snapshot's position
        }
        return g[0];
    }

    /** A batch of write position {@code g} is in the log: it extends the run of batches or starts a new one. */
    private void held(final long g)
    {
        if (g != lastBatch + 1)
        {
            firstBatch = g;
        }
        lastBatch = g;
    }

    /** The batch of write position {@code g} is log entry {@code entry}: indexed if a mark is due. */
    private static void indexed(final ConcurrentSkipListMap<Long, Long> index, final long g, final long entry)
    {
        if (g % INDEX_EVERY == 0)
        {
            index.put(g, entry);
        }
    }

    /** The entry to read from for the batches from write position {@code g} on: none of them is before it. */
    private long entryOf(final long g)
    {
        final Map.Entry<Long, Long> at = batchIndex.floorEntry(g);
        return at == null ? 0 : at.getValue();
    }

    /** The batch at write position {@code g}: {@code length} bytes of {@code batch}. */
    public void appendBatch(final long g, final byte[] batch, final int length)
    {
        final IOError failed = compactionFailure;
        if (failed != null)
        {
            throw failed;
        }
        appending.lock();
        try
        {
            indexed(batchIndex, g, log.append(BATCH, g, batch, length) - 1);
            held(g);
            sinceSnapshot += length;
        }
        catch (final RuntimeException ex)
        {
            throw unwritable("appending write " + g, ex);
        }
        finally
        {
            appending.unlock();
        }
    }

    /**
     * A log that cannot be written is a serious I/O error, an {@link IOError}: thrown from the delivery callback it
     * stops the member (see the membership layer), where a callback's {@link RuntimeException} is counted and the
     * deliveries go on, this replica's store and log no longer the group's. A full disk faulting a write to the mapped
     * file raises an {@link InternalError} itself.
     */
    private IOError unwritable(final String what, final Throwable ex)
    {
        return new IOError(new IOException(what + " to the key-value log in " + directory + " failed: " + ex, ex));
    }

    /** Writes a store's state (a {@link StoreCut}'s format) to a stream. */
    @FunctionalInterface
    public interface StateWriter
    {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * The whole state at write position {@code g}, received by state transfer and written by {@code state} as it
     * arrives: the log starts again from it (what it held before is another history's and goes). Before any delivery.
     */
    public void appendSnapshot(final long g, final StateWriter state) throws IOException
    {
        lastBatch = g; // the batches it held are another history's
        compact(g + 1, g, log.count(), state);
    }

    /** Whether batches past the compaction threshold were appended since the last snapshot, and none compacts. */
    boolean compactionDue()
    {
        return compaction == null && sinceSnapshot >= compactAfter; // the volatile first: a swap's count is seen
    }

    /**
     * Starts a compaction at write position {@code g} with the store's {@code state}, keeping the batches past the
     * group's logged {@code frontier} (the least position logged over the view's members; -1 while one is unknown:
     * then it waits, and the next batch tries again). The delivery thread, after the batch of {@code g} is applied.
     * The compaction runs on a thread of its own while the deliveries go on; the batches they append meanwhile are
     * copied after the snapshot, the last of them while appends wait (a few: the swap is one rename). The delivery
     * thread only takes the cut of the store, a reference per key; before, it wrote the whole snapshot and copied the
     * kept batches itself (220-261 ms with no delivery for a store of 25 MB).
     */
    void compact(final long frontier, final long g, final Supplier<StoreCut> store)
    {
        if (frontier < 0 || compaction != null)
        {
            return;
        }
        final long began = System.nanoTime();
        final StoreCut state = store.get();
        final long cut = System.nanoTime() - began;
        final long start = Math.max(Math.min(frontier, g) + 1, firstBatch);
        final long cutAt = log.count();
        final Thread t = Thread.ofPlatform().name("kv-compaction").daemon(true).unstarted(() ->
        {
            try
            {
                final long[] done = compact(start, g, cutAt, state::writeTo);
                LOG.info("key-value log compacted at write {} in {} ms beside the deliveries (the cut {} us, appends " +
                    "held {} us): a snapshot of {} bytes, batches from {} kept, {} appended meanwhile", g,
                    (System.nanoTime() - began) / 1_000_000, cut / 1_000, done[1] / 1_000, done[0], start, done[2]);
            }
            catch (final Throwable ex)
            {
                if (!closing)
                {
                    LOG.warn("key-value log compaction at write {} failed: the next append stops this member", g, ex);
                    compactionFailure = unwritable("compacting at write " + g, ex);
                }
            }
            finally
            {
                compaction = null;
            }
        });
        compaction = t;
        t.start();
    }

    /**
     * Replaces the log with one that holds its batches {@code start .. g} (what other members may still ask for in a
     * cold start's catch-up), then {@code state}, the store at write position {@code g}, in parts, then the batches
     * after {@code g} appended from entry {@code cutAt} on. The new log is written as the next generation beside this
     * one and, still open, becomes the live one by one atomic rename ({@link LogGenerations#swap}); a start after a
     * crash deletes whichever of the two is not live, so the live log is whole at every moment. Returns the state's
     * bytes, the nanoseconds appends were held and the batches after g.
     */
    private long[] compact(final long start, final long g, final long cutAt, final StateWriter state)
        throws IOException
    {
        final Path next = generations.next();
        final SampleLog current = log;
        final ConcurrentSkipListMap<Long, Long> index = new ConcurrentSkipListMap<>();
        final long[] copied = {start - 1, 0}; // the last batch copied, the bytes of those after g
        final long bytes;
        final long held;
        final SampleLog fresh = SampleLog.open(next);
        boolean live = false;
        try (SampleLog.Reader tail = current.reader(cutAt))
        {
            copied[0] = batches(current, start, g, () -> closing, (batch, p) -> copy(fresh, index, p, batch));
            final long first = copied[0] == g ? start : g + 1; // kept batches short of g are no run of the log's end
            final SnapshotParts parts = new SnapshotParts((part, n, end) ->
            {
                if (closing)
                {
                    throw new IOException("the log closes");
                }
                fresh.append(end ? SNAPSHOT : SNAPSHOT_PART, g, part, n);
            });
            state.writeTo(parts);
            bytes = parts.end();
            copied[0] = g;
            copyTail(tail, fresh, index, copied);
            final long hold = System.nanoTime();
            appending.lock();
            try
            {
                copyTail(tail, fresh, index, copied); // the last few, appends held
                if (closing || copied[0] != Math.max(lastBatch, g))
                {
                    throw new IOException(closing ? "the log closes" : "the batches after write " + g + " reach " +
                        copied[0] + " in the copy, " + lastBatch + " in the log");
                }
                generations.swap(next); // the one step appends wait for: the new log is open, and stays so
                live = true;
                log = fresh;
                batchIndex = index;
                firstBatch = first;
                sinceSnapshot = copied[1];
            }
            finally
            {
                appending.unlock();
            }
            held = System.nanoTime() - hold;
        }
        finally
        {
            (live ? current : fresh).close();
            generations.drop(live ? current.directory() : next); // a start after a crash here deletes it
        }
        return new long[] {bytes, held, copied[0] - g};
    }

    /** Appends batch {@code p} to {@code into}, indexed in {@code index}. */
    private static void copy(final SampleLog into, final ConcurrentSkipListMap<Long, Long> index, final long p,
        final byte[] batch)
    {
        indexed(index, p, into.append(BATCH, p, batch, batch.length) - 1);
    }

    /** Copies the batches appended since the last read of {@code tail}, after the snapshot. */
    private static void copyTail(final SampleLog.Reader tail, final SampleLog into,
        final ConcurrentSkipListMap<Long, Long> index, final long[] copied)
    {
        tail.read(e ->
        {
            if (e.publisherId() == BATCH && e.sourceNanos() == copied[0] + 1)
            {
                copy(into, index, ++copied[0], e.payload());
                copied[1] += e.payload().length;
            }
        });
    }

    /** Takes a snapshot's bytes a part at a time: {@code last} for its final part (empty for an empty snapshot). */
    @FunctionalInterface
    private interface PartSink
    {
        void accept(byte[] part, int length, boolean last) throws IOException;
    }

    /** A stream cut into parts of {@link #PART_BYTES}; a full part goes once more bytes follow it. */
    private static final class SnapshotParts extends OutputStream
    {
        private final byte[] part = new byte[PART_BYTES];
        private final PartSink sink;
        private int length;
        private long bytes;

        SnapshotParts(final PartSink sink)
        {
            this.sink = sink;
        }

        @Override
        public void write(final int b) throws IOException
        {
            write(new byte[] {(byte)b}, 0, 1);
        }

        @Override
        public void write(final byte[] b, final int offset, final int n) throws IOException
        {
            for (int done = 0; done < n; )
            {
                if (length == part.length)
                {
                    sink.accept(part, length, false);
                    length = 0;
                }
                final int take = Math.min(n - done, part.length - length);
                System.arraycopy(b, offset + done, part, length, take);
                length += take;
                done += take;
            }
            bytes += n;
        }

        /** Hands on the final part; returns the snapshot's bytes. */
        long end() throws IOException
        {
            sink.accept(part, length, true);
            return bytes;
        }
    }

    long firstBatch()
    {
        return firstBatch;
    }

    /**
     * Hands on the run of consecutive batches from write position {@code from} (or the first of the run that reaches
     * the log's end, if later) up to {@code to}, in order, as it reads them, stopping once {@code stop} says so (asked
     * before each excerpt): a cold start's catch-up, which so never holds its stretch in memory, and a compaction.
     * Returns the position of the last one handed on (one before the first asked for, with none). No compaction may
     * replace the log meanwhile.
     */
    long forEachBatch(final long from, final long to, final BooleanSupplier stop,
        final ObjLongConsumer<byte[]> consumer)
    {
        return batches(log, Math.max(from, firstBatch), to, stop, consumer);
    }

    /** As {@link #forEachBatch}, from {@code first} exactly, in {@code from}. */
    private long batches(final SampleLog from, final long first, final long to, final BooleanSupplier stop,
        final ObjLongConsumer<byte[]> consumer)
    {
        final long[] last = {first - 1};
        from.read(entryOf(first), () -> last[0] >= to || stop.getAsBoolean(), e ->
        {
            final long p = e.sourceNanos();
            if (e.publisherId() == BATCH && p == last[0] + 1 && p <= to)
            {
                consumer.accept(e.payload(), p);
                last[0] = p;
            }
        });
        return last[0];
    }

    /** Ends a running compaction (it gives up at its next step: a log it cut short is dropped at the next start). */
    @Override
    public void close()
    {
        closing = true;
        awaitCompaction();
        log.close();
    }

    /** Returns once no compaction runs. */
    void awaitCompaction()
    {
        final Thread t = compaction;
        if (t != null)
        {
            try
            {
                t.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}

package io.weft.examples.kv;

import io.weft.dds.SampleLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOError;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static io.weft.examples.kv.StoreClient.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The key-value log's compaction: what it keeps, what a replay rebuilds, and a crash at each step of the swap. */
@Timeout(60)
class KvLogTest
{
    @TempDir
    Path dir;

    @Test
    void compactionKeepsTheTailPastTheFrontierAndTheState()
    {
        final Path path = dir.resolve("member-0");
        final KvStore store = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            for (long g = 1; g <= 100; g++)
            {
                append(log, store, g);
            }
            assertTrue(log.compactionDue(), "100 batches of about 40 bytes are past 1000 bytes");
            log.compact(90, 100, store::cut);
            log.awaitCompaction();
            assertFalse(log.compactionDue());
            assertEquals(91, log.firstBatch(), "batches past the frontier are kept for a cold start's catch-up");
            assertEquals(10, count(log, 91, 100));
            append(log, store, 101);
            assertEquals(11, count(log, 91, 101), "the kept tail and the new batch are one run");
        }
        assertEquals(12, entries(path), "10 batches, the snapshot, 1 batch: not 101 entries");
        final KvStore replayed = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(101, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)));
            assertEquals(91, log.firstBatch());
        }
        assertArrayEquals(store.snapshot(), replayed.snapshot(), "a replay rebuilds the store");
    }

    /**
     * A catch-up's read hands on a stretch in order as it reads it, and stops before the next excerpt once asked to:
     * it never holds the stretch.
     */
    @Test
    void aStretchIsHandedOnAsItIsReadAndTheReadStopsWhenAsked()
    {
        final KvStore store = new KvStore();
        try (KvLog log = new KvLog(dir.resolve("member-3")))
        {
            for (long g = 1; g <= 10_000; g++)
            {
                append(log, store, g);
            }
            final List<Long> handed = new java.util.ArrayList<>();
            assertEquals(9_000, log.forEachBatch(41, 9_000, () -> false, (b, p) -> handed.add(p)));
            assertEquals(8_960, handed.size());
            for (int i = 0; i < handed.size(); i++)
            {
                assertEquals(41 + i, handed.get(i), "in order, each once");
            }
            handed.clear();
            final long last = log.forEachBatch(41, 10_000, () -> handed.size() >= 5_000, (b, p) -> handed.add(p));
            assertEquals(5_040, last, "stopped before the excerpt after the 5,000th batch (one batch an excerpt)");
            assertEquals(5_000, handed.size());
        }
    }

    @Test
    void aJoinersStateStartsTheLogAnew() throws Exception
    {
        final Path path = dir.resolve("member-1");
        final KvStore store = new KvStore();
        try (KvLog log = new KvLog(path))
        {
            for (long g = 1; g <= 20; g++)
            {
                append(log, store, g); // another history, before the member left
            }
            log.appendSnapshot(50, store.cut()::writeTo);
            assertEquals(51, log.firstBatch());
        }
        assertEquals(1, entries(path), "only the state received");
    }

    /**
     * A store past what one log entry holds (about 16 MiB) is written in parts, by a compaction and as a joiner's
     * state, and a replay rebuilds it, with a list of 12 MiB that spans parts; before, the append failed and the
     * member stopped.
     */
    @Test
    void aStoreLargerThanALogEntryIsWrittenInParts() throws Exception
    {
        final KvStore store = largeStore(12_000);
        final Path compacted = dir.resolve("member-5");
        try (KvLog log = new KvLog(compacted, 1000))
        {
            append(log, store, 1);
            log.compact(1, 1, store::cut);
            log.awaitCompaction();
            append(log, store, 2);
        }
        final byte[] state = store.snapshot();
        assertTrue(state.length > 3 * KvLog.PART_BYTES, state.length + " bytes");
        assertEquals(state.length / KvLog.PART_BYTES + 2, entries(compacted), "parts, the snapshot's entry, a batch");
        final Path joined = dir.resolve("member-6");
        try (KvLog log = new KvLog(joined))
        {
            log.appendSnapshot(2, out -> out.write(state));
        }
        for (final Path path : List.of(compacted, joined))
        {
            final KvStore replayed = new KvStore();
            try (KvLog log = new KvLog(path))
            {
                assertEquals(2, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)), path.toString());
            }
            assertArrayEquals(state, replayed.snapshot(), path.toString());
        }
    }

    /**
     * Batches appended while a compaction writes a large store beside them follow its snapshot in the new log, and a
     * replay rebuilds the store with every one of them.
     */
    @Test
    void batchesAppendedDuringACompactionFollowItsSnapshot()
    {
        final KvStore store = largeStore(6_000);
        final Path path = dir.resolve("member-7");
        try (KvLog log = new KvLog(path, 1000))
        {
            for (long g = 1; g <= 100; g++)
            {
                append(log, store, g);
            }
            log.compact(90, 100, store::cut);
            for (long g = 101; g <= 3_000; g++)
            {
                append(log, store, g); // while the compaction runs, then once it swapped the logs
            }
            log.awaitCompaction();
            assertEquals(91, log.firstBatch());
            assertEquals(2_910, count(log, 91, 3_000), "the kept batches and every batch appended since: one run");
        }
        final KvStore replayed = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(3_000, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)));
        }
        assertArrayEquals(store.snapshot(), replayed.snapshot());
        assertTrue(entries(path) < 3_000, entries(path) + " entries");
    }

    /**
     * A read of the batches from a write position starts at the batch index's entry at or before it (one every 1,024
     * positions) and hands on each batch once, in order: after appends, after a compaction (a new index for the new
     * log) and after a replay.
     */
    @Test
    void readsFromAPositionHandOnEachBatchOnce()
    {
        final Path path = dir.resolve("member-8");
        final KvStore store = new KvStore();
        final long[] froms = {1, 1_023, 1_024, 1_025, 2_001, 2_047, 2_048, 3_000, 3_001, 4_095, 4_096, 5_000};
        try (KvLog log = new KvLog(path, Long.MAX_VALUE))
        {
            for (long g = 1; g <= 3_000; g++)
            {
                append(log, store, g);
            }
            assertEachOnce(log, new long[] {1, 1_024, 2_047, 2_048, 3_000}, 3_000);
            log.compact(2_000, 3_000, store::cut);
            for (long g = 3_001; g <= 5_000; g++)
            {
                append(log, store, g);
            }
            log.awaitCompaction();
            assertEquals(2_001, log.firstBatch());
            assertEachOnce(log, froms, 5_000);
        }
        try (KvLog log = new KvLog(path, Long.MAX_VALUE))
        {
            assertEquals(5_000, log.replay(new KvStore(), (g, b, n) -> { }));
            assertEachOnce(log, froms, 5_000);
        }
    }

    private static void assertEachOnce(final KvLog log, final long[] froms, final long to)
    {
        for (final long from : froms)
        {
            final List<Long> read = new java.util.ArrayList<>();
            final long first = Math.max(from, log.firstBatch());
            assertEquals(to, log.forEachBatch(from, to, () -> false, (b, p) -> read.add(p)), "from " + from);
            assertEquals(java.util.stream.LongStream.rangeClosed(first, to).boxed().toList(), read, "from " + from);
        }
    }

    /**
     * A log of the layout before generations (the directory itself, a compaction's {@code .next} and {@code .old}
     * beside it), left by a crash after the first of its two renames: the compaction is finished, and the log is
     * used where it is.
     */
    @Test
    void aCrashAfterTheFirstRenameFinishesTheCompaction()
    {
        final Path path = dir.resolve("member-2");
        final KvStore store = compacted(dir.resolve("written-2"));
        rename(live(dir.resolve("written-2")), sibling(path, ".next"));
        writeQueueAt(sibling(path, ".old"), 7); // the log before compaction, renamed aside
        final KvStore replayed = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(30, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)),
                "the compacted log took its place");
        }
        assertArrayEquals(store.snapshot(), replayed.snapshot());
        assertFalse(Files.exists(sibling(path, ".old")));
        assertFalse(Files.exists(sibling(path, ".next")));
        assertEquals(path, live(path));
    }

    /**
     * A log of the layout before goes on where it is until its first compaction, whose generation replaces it: the
     * queue's files leave the directory, and a start replays the new generation.
     */
    @Test
    void aLogOfTheLayoutBeforeIsReplacedByItsFirstCompaction() throws Exception
    {
        final Path path = dir.resolve("member-9");
        writeQueueAt(path, 20);
        final KvStore store = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(20, log.replay(store, (g, b, n) -> apply(store, g, b)));
            assertEquals(path, live(path), "used where it is");
            for (long g = 21; g <= 30; g++)
            {
                append(log, store, g);
            }
            log.compact(25, 30, store::cut);
            log.awaitCompaction();
            append(log, store, 31);
        }
        assertEquals(path.resolve("gen-1"), live(path));
        try (Stream<Path> inside = Files.list(path))
        {
            assertEquals(List.of("gen-1", "live"), inside.map(p -> p.getFileName().toString()).sorted().toList());
        }
        final KvStore replayed = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(31, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)));
        }
        assertArrayEquals(store.snapshot(), replayed.snapshot());
    }

    /**
     * A log whose link is gone with several generations beside it, or whose link names a generation that is gone, is
     * refused with a message naming what to do, and nothing is deleted.
     */
    @Test
    void aLogWithoutItsLinkOrItsLiveGenerationIsRefused() throws Exception
    {
        final Path path = dir.resolve("member-10");
        compacted(path);
        writeQueueAt(path.resolve("gen-5"), 3);
        Files.delete(path.resolve("live"));
        final IllegalStateException unlinked = assertThrows(IllegalStateException.class, () -> new KvLog(path, 1000));
        assertTrue(unlinked.getMessage().contains("has no link 'live'") &&
            unlinked.getMessage().contains("gen-1") && unlinked.getMessage().contains("gen-5"), unlinked.getMessage());
        assertTrue(Files.isDirectory(path.resolve("gen-1")) && Files.isDirectory(path.resolve("gen-5")));
        Files.createSymbolicLink(path.resolve("live"), Path.of("gen-7"));
        final IllegalStateException gone = assertThrows(IllegalStateException.class, () -> new KvLog(path, 1000));
        assertTrue(gone.getMessage().contains("which is missing"), gone.getMessage());
        assertTrue(Files.isDirectory(path.resolve("gen-1")) && Files.isDirectory(path.resolve("gen-5")));
    }

    /** A log of the layout before, left by a crash before its compaction's renames: it stays, the new one goes. */
    @Test
    void aCrashBeforeTheRenamesKeepsTheOldLog()
    {
        final Path path = dir.resolve("member-3");
        writeQueueAt(path, 7);
        writeQueueAt(sibling(path, ".next"), 3); // a compaction cut short: the log stays as it was
        final KvStore replayed = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(7, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)));
        }
        assertFalse(Files.exists(sibling(path, ".next")));
    }

    /**
     * A crash leaves beside the live generation a newer one (a compaction cut short before its swap) or an older one
     * (a compaction swapped and not yet deleted it): the next start replays the live one and deletes the other; a
     * compaction leaves only its own generation, and the log's name stays a link to it.
     */
    @Test
    void aStartReplaysTheLiveGenerationAndDropsTheOthers()
    {
        final Path path = dir.resolve("member-8");
        final KvStore store = compacted(path); // generation 1, after a compaction of generation 0
        assertEquals(path.resolve("gen-1"), live(path));
        assertFalse(Files.exists(path.resolve("gen-0")), "the generation it replaced is gone");
        writeQueueAt(path.resolve("gen-2"), 3); // a compaction cut short
        writeQueueAt(path.resolve("gen-0"), 5); // one replaced, not yet deleted
        final KvStore replayed = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(30, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)));
        }
        assertArrayEquals(store.snapshot(), replayed.snapshot());
        assertFalse(Files.exists(path.resolve("gen-0")) || Files.exists(path.resolve("gen-2")));
        assertEquals(path.resolve("gen-1"), live(path));
    }

    /**
     * A compaction whose swap fails (here the new link's name is taken by a directory that is not empty) makes the
     * next append throw an {@link IOError}, which stops the member; the next start drops what was left of it and
     * replays the whole log. Before, a {@link RuntimeException} from the delivery callback was counted
     * and the deliveries went on, the store's writes no longer in the log.
     */
    @Test
    void aLogThatCannotBeWrittenIsAnIoError() throws Exception
    {
        final Path path = dir.resolve("member-4");
        final KvStore store = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            Files.createDirectories(path.resolve("live.next").resolve("taken"));
            for (long g = 1; g <= 30; g++)
            {
                append(log, store, g);
            }
            log.compact(25, 30, store::cut);
            log.awaitCompaction();
            final IOError compaction = assertThrows(IOError.class, () -> append(log, store, 31));
            assertTrue(compaction.getMessage().contains("compacting at write 30"), compaction.getMessage());
        }
        final KvStore replayed = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            assertEquals(30, log.replay(replayed, (g, b, n) -> apply(replayed, g, b)));
        }
        assertFalse(Files.exists(path.resolve("live.next")) || Files.exists(path.resolve("gen-1")));
    }

    /** A store of {@code keys} keys x0, x1, ... of 2 KiB values. */
    private static KvStore largeStore(final int keys)
    {
        final KvStore store = new KvStore();
        final byte[] value = bytes("v".repeat(2_048));
        for (int k = 0; k < keys; k++)
        {
            store.apply(List.of(bytes("SET"), bytes("x" + k), value), 0);
            if (k % 2 == 0)
            {
                store.apply(List.of(bytes("RPUSH"), bytes("queue"), value), 0); // one entry across parts
            }
        }
        return store;
    }

    private static KvStore compacted(final Path path)
    {
        final KvStore store = new KvStore();
        try (KvLog log = new KvLog(path, 1000))
        {
            for (long g = 1; g <= 30; g++)
            {
                append(log, store, g);
            }
            log.compact(25, 30, store::cut);
            log.awaitCompaction();
        }
        return store;
    }

    /**
     * Writes a log of {@code batches} batches elsewhere and moves its Chronicle queue to {@code to}: a queue of either
     * layout (the log's directory itself, or a generation in it).
     */
    private void writeQueueAt(final Path to, final long batches)
    {
        final Path scratch = dir.resolve("scratch-" + to.getFileName());
        final KvStore store = new KvStore();
        try (KvLog log = new KvLog(scratch, Long.MAX_VALUE))
        {
            for (long g = 1; g <= batches; g++)
            {
                append(log, store, g);
            }
        }
        rename(live(scratch), to);
    }

    private static long count(final KvLog log, final long from, final long to)
    {
        final long[] n = {0};
        log.forEachBatch(from, to, () -> false, (b, p) -> n[0]++);
        return n[0];
    }

    private static void append(final KvLog log, final KvStore store, final long g)
    {
        final byte[] batch = batch(g);
        log.appendBatch(g, batch, batch.length);
        apply(store, g, batch);
    }

    /** A batch as the replica encodes it: header, one SET of key k{g}. */
    private static byte[] batch(final long g)
    {
        final ByteBuffer out = ByteBuffer.allocate(KvWire.HEADER + 4 + 3 * 4 + 64);
        KvWire.encodeBatch(out, 0, g, 1_000, List.of(List.of(bytes("SET"), bytes("k" + g), bytes("v" + g))));
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    /** Applies {@code batch} as the replica does, at write position {@code g}: its versions compare too. */
    private static void apply(final KvStore store, final long g, final byte[] batch)
    {
        store.versions().writing(g, batch[0]);
        new WriteBatch(store).apply(batch, batch.length, 0);
        store.versions().written();
    }

    private static long entries(final Path path)
    {
        try (SampleLog log = SampleLog.openReadOnly(live(path)))
        {
            return log.read(0, e -> { });
        }
    }

    private static Path sibling(final Path path, final String suffix)
    {
        return path.resolveSibling(path.getFileName() + suffix);
    }

    /** The live generation's directory of the log at {@code path}. */
    private static Path live(final Path path)
    {
        return new LogGenerations(path).live();
    }

    private static void rename(final Path from, final Path to)
    {
        try
        {
            Files.move(from, to);
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}

package io.weft.examples.kv;

import io.weft.dds.SampleLog;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A member's durable record of the store (the DDS layer's {@link SampleLog}: a Chronicle Queue of CRC-checked
 * entries): every delivered batch that holds a write, numbered by its write position {@code g} (1, 2, ... in the
 * group's total order, the same at every member), appended before it is applied; and the state a joiner received,
 * as a snapshot at its position. Replaying it rebuilds the store as of the last entry. Appends go to the page cache
 * of a memory-mapped file: they survive the process (kill -9), not a crash of the host.
 */
public final class KvLog implements AutoCloseable
{
    private static final int BATCH = 0;
    private static final int SNAPSHOT = 1;

    private final SampleLog log;
    /** The first write position this log holds a batch for (after its last snapshot); 1 with no snapshot. */
    private long firstBatch = 1;

    public KvLog(final Path directory)
    {
        this.log = SampleLog.open(directory);
    }

    Path directory()
    {
        return log.directory();
    }

    /**
     * Rebuilds {@code store} from the log; returns the write position it reached (0 for an empty log).
     *
     * @throws IllegalStateException on a gap in the positions (a damaged log), naming it.
     */
    long replay(final KvStore store, final KvReplica.Applier applier)
    {
        final long[] g = {0};
        log.read(0, entry ->
        {
            if (entry.publisherId() == SNAPSHOT)
            {
                store.install(entry.payload());
                g[0] = entry.sourceNanos();
                firstBatch = g[0] + 1;
            }
            else if (entry.sourceNanos() == g[0] + 1)
            {
                applier.apply(entry.payload(), entry.payload().length);
                g[0]++;
            }
            else if (entry.sourceNanos() > g[0] + 1)
            {
                throw new IllegalStateException("the key-value log in " + log.directory() + " jumps from write " +
                    g[0] + " to " + entry.sourceNanos() + " at entry " + entry.position());
            }
        });
        return g[0];
    }

    /** The batch at write position {@code g}: {@code length} bytes of {@code batch}. */
    public void appendBatch(final long g, final byte[] batch, final int length)
    {
        log.append(BATCH, g, batch, length);
    }

    /** The whole state at write position {@code g} (a joiner's state transfer). */
    public void appendSnapshot(final long g, final byte[] state)
    {
        log.append(SNAPSHOT, g, state, state.length);
        firstBatch = g + 1;
    }

    long firstBatch()
    {
        return firstBatch;
    }

    /** The batches of write positions {@code from..to} this log holds, in order (a cold start's catch-up). */
    List<byte[]> batches(final long from, final long to)
    {
        final List<byte[]> found = new ArrayList<>();
        log.read(0, entry ->
        {
            if (entry.publisherId() == BATCH && entry.sourceNanos() >= from && entry.sourceNanos() <= to &&
                entry.sourceNanos() >= firstBatch)
            {
                found.add(entry.payload());
            }
        });
        return found;
    }

    @Override
    public void close()
    {
        log.close();
    }
}

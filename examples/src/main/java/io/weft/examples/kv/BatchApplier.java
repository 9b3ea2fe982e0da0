package io.weft.examples.kv;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Applies delivered batches to a replica's store on the delivery thread: this member's own from the commands it kept,
 * completing each command's reply (and timing it, and what an EXEC or a script of it ran, for the {@link SlowLog},
 * {@link LatencyMonitor} and {@link CommandStats}), another member's from the bytes it sent. A SAVE or BGSAVE of its
 * own hands the store's cut to the {@link RdbSaver} in its place.
 */
final class BatchApplier
{
    private final KvStore store;
    private final WriteBatch writeBatch;
    private final SlowLog slowLog;
    private final LatencyMonitor latency;
    private final CommandStats stats;
    private final RdbSaver saver;
    /** Writes applied and reads served here (INFO, {@link StoreReport}). */
    final AtomicLong writes = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    /** The keys of this member's own batch, built before its lookups (see KvStore.touch). */
    private Key[] keys = new Key[256];

    BatchApplier(final KvStore store, final SlowLog slowLog, final LatencyMonitor latency, final CommandStats stats,
        final RdbSaver saver)
    {
        this.saver = saver;
        this.latency = latency;
        this.store = store;
        this.stats = stats;
        this.writeBatch = new WriteBatch(store);
        this.slowLog = slowLog;
    }

    /** Applies this member's own batch from the commands it kept, and completes each command's reply. */
    void completeOwn(final KvProposer.Batch batch)
    {
        final List<Command> commands = batch.commands();
        final int n = commands.size();
        if (keys.length < n)
        {
            keys = new Key[n];
        }
        int written = 0;
        for (int i = 0; i < n; i++)
        {
            keys[i] = store.keyOf(commands.get(i).args);
            written += commands.get(i).write ? 1 : 0;
        }
        for (int i = 0; i < n; i++)
        {
            store.touch(keys[i], commands.get(i).args);
        }
        writes.addAndGet(written); // counted first: a client that saw its reply sees it in INFO
        reads.addAndGet(n - written);
        long mark = System.nanoTime(); // one clock reading a command: from the end of the one before
        for (int i = 0; i < n; i++)
        {
            final Command command = commands.get(i);
            if (command.write)
            {
                store.versions().next(); // as the others' WriteBatch does: every member stamps the same versions
            }
            final InnerCalls inner = InnerCalls.of(command, stats, slowLog, saver);
            // keyspace_hits and keyspace_misses: its keys now, and the keys it looks up as it runs
            store.lookups = stats.read(store, command, keys[i], batch.now());
            store.counting = inner;
            final Reply reply;
            try
            {
                reply = command.write ? store.write(command.args, keys[i], batch.now()) :
                    RdbSaver.saves(command.listed) ? saver.start(store, command, writes.get()) : // SAVE: null
                    store.apply(command.args, keys[i], batch.now()); // the arguments the batch carries
            }
            finally
            {
                store.counting = null; // never left to record another member's
                store.lookups = null;
            }
            command.inner = inner;
            if (inner != null && inner.saveAfter())
            {
                saver.startScheduled(store, writes.get()); // the cut after the whole EXEC, as Redis's scheduled save
            }
            final long end = System.nanoTime();
            command.runNanos += end - mark; // before its reply is set: INFO commandstats
            command.rejected = CommandTable.isRefusal(command.args, reply);
            slowLog.offer(command, end - mark);
            latency.offer(command, end - mark);
            mark = end;
            if (command.write)
            {
                store.versions().publish(); // before its reply: its client's WATCH after the reply sees this write
            }
            final Reply answer = command.blockedUntil == 0 ? reply : store.blocked.park(command, reply, batch.now());
            if (answer != null)
            {
                command.complete(answer);
            }
            keys[i] = null;
        }
        store.removeExpired(batch.now(), written); // as applyWrites does with the batch as the others decode it
    }

    /** Applies the writes of an encoded batch of write position {@code position}, at its clock reading. */
    void applyWrites(final long position, final byte[] batch, final int length)
    {
        store.versions().writing(position, batch[0]);
        final long now = ByteBuffer.wrap(batch, 0, length).getLong(KvWire.NOW_OFFSET);
        final int written = writeBatch.apply(batch, length, now);
        store.removeExpired(now, written);
        writes.addAndGet(written);
        store.versions().written();
    }
}

package io.weft.tools;

import io.weft.examples.kv.KvLog;
import io.weft.examples.kv.KvReplica;
import io.weft.examples.kv.KvWire;
import io.weft.examples.kv.KvStore;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** Logs written directly, for tests of a cold start whose members logged different stretches of the history. */
public final class KvLogFixtures
{
    private KvLogFixtures()
    {
    }

    /**
     * Writes a log in {@code directory}: with {@code snapshotAt} > 0 first a snapshot holding keys k1..k{snapshotAt},
     * then batches for write positions {@code from..to}, each {@code SET k<p> v<p>}.
     */
    public static void write(final Path directory, final long snapshotAt, final long from, final long to)
    {
        try (KvLog log = new KvLog(directory))
        {
            if (snapshotAt > 0)
            {
                final KvStore store = new KvStore();
                for (long p = 1; p <= snapshotAt; p++)
                {
                    store.apply(set(p), 0);
                }
                log.appendSnapshot(snapshotAt, store.snapshot());
            }
            for (long p = from; p <= to; p++)
            {
                final byte[] batch = batch(p);
                log.appendBatch(p, batch, batch.length);
            }
        }
    }

    private static List<byte[]> set(final long p)
    {
        return List.of("SET".getBytes(StandardCharsets.US_ASCII), ("k" + p).getBytes(StandardCharsets.US_ASCII),
            ("v" + p).getBytes(StandardCharsets.US_ASCII));
    }

    /** One batch as {@link KvReplica} sends it: one write of three arguments. */
    private static byte[] batch(final long p)
    {
        final ByteBuffer out = ByteBuffer.allocate(KvWire.HEADER + 4 + 3 * 4 + 64);
        KvWire.encodeBatch(out, 9, p, 1_000, List.of(set(p)));
        return java.util.Arrays.copyOf(out.array(), out.position());
    }
}

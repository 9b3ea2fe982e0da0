package io.weft.tools;

import io.weft.examples.kv.KvLog;
import io.weft.examples.kv.KvReplica;
import io.weft.examples.kv.KvWire;
import io.weft.examples.kv.KvStore;

import java.io.IOException;
import java.io.UncheckedIOException;
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
                final byte[] state = store.snapshot();
                try
                {
                    log.appendSnapshot(snapshotAt, out -> out.write(state));
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }
            for (long p = from; p <= to; p++)
            {
                final byte[] batch = batch(p);
                log.appendBatch(p, batch, batch.length);
            }
        }
    }

    /**
     * Three members' logs in {@code logs} after members 0 and 1 compacted while member 2 was away: theirs a snapshot at
     * 1,000 then writes 1,001..1,100, member 2's writes 1..50; no log holds 51..1,000 as writes.
     */
    public static void memberTwoBehindCompactedLogs(final Path logs)
    {
        write(logs.resolve("member-0"), 1_000, 1_001, 1_100);
        write(logs.resolve("member-1"), 1_000, 1_001, 1_100);
        write(logs.resolve("member-2"), 0, 1, 50);
    }

    /**
     * Writes a log in {@code directory} of batches for write positions {@code from..to} with large values: each
     * {@code SET k<p % keys> <value(p, valueBytes)>}.
     */
    public static void writeLarge(final Path directory, final long from, final long to, final int keys,
        final int valueBytes)
    {
        try (KvLog log = new KvLog(directory))
        {
            for (long p = from; p <= to; p++)
            {
                final byte[] batch = batch(p, set("k" + p % keys, value(p, valueBytes)));
                log.appendBatch(p, batch, batch.length);
            }
        }
    }

    /** The value write position {@code p} of {@link #writeLarge} sets: {@code v<p>}, then dots to its length. */
    public static String value(final long p, final int valueBytes)
    {
        final String head = "v" + p;
        return head + ".".repeat(valueBytes - head.length());
    }

    private static List<byte[]> set(final long p)
    {
        return set("k" + p, "v" + p);
    }

    private static List<byte[]> set(final String key, final String value)
    {
        return List.of("SET".getBytes(StandardCharsets.US_ASCII), key.getBytes(StandardCharsets.US_ASCII),
            value.getBytes(StandardCharsets.US_ASCII));
    }

    /** One batch as {@link KvReplica} sends it: one write of three arguments. */
    private static byte[] batch(final long p)
    {
        return batch(p, set(p));
    }

    private static byte[] batch(final long p, final List<byte[]> write)
    {
        int bytes = KvWire.HEADER + 4 + 4 * write.size();
        for (final byte[] argument : write)
        {
            bytes += argument.length;
        }
        final ByteBuffer out = ByteBuffer.allocate(bytes + 64);
        KvWire.encodeBatch(out, 9, p, 1_000, List.of(write));
        return java.util.Arrays.copyOf(out.array(), out.position());
    }
}

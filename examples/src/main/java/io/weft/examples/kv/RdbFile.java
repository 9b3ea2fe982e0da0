package io.weft.examples.kv;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The store as an RDB file, Redis's snapshot, which redis-server 7.0 and later loads ({@link RdbSaver}): the magic and
 * RDB version 10 (Redis 7.0's), auxiliary fields, database 0 and its sizes, each key live at the cut's time with its
 * expiry in milliseconds and its value as DUMP writes it ({@link DumpPayload#write}), the end mark, and the CRC-64 of
 * all before it. Written from a {@link StoreCut}, so on any thread while writes go on, one entry in memory at a time.
 */
final class RdbFile
{
    private static final byte[] MAGIC = "REDIS0010".getBytes(StandardCharsets.US_ASCII);
    /** RDB's opcodes: an auxiliary field, a database's sizes, a key's expiry in ms, a database's number, the end. */
    private static final int AUX = 0xFA;
    private static final int RESIZEDB = 0xFB;
    private static final int EXPIRETIME_MS = 0xFC;
    private static final int SELECTDB = 0xFE;
    private static final int EOF = 0xFF;

    private final RdbWriter w = new RdbWriter();
    private final OutputStream out;
    /** The CRC-64 of the bytes written so far. */
    private long crc;

    private RdbFile(final OutputStream out)
    {
        this.out = out;
    }

    /** Writes the keys of {@code cut} live at {@code now} (epoch milliseconds) to {@code out}; returns how many. */
    static long write(final StoreCut cut, final long now, final OutputStream out) throws IOException
    {
        final long[] sizes = new long[2]; // the keys, and those of them with an expiry: RESIZEDB's hint
        cut.forEach((key, stored) ->
        {
            if (Stored.live(stored, now))
            {
                sizes[0]++;
                sizes[1] += Stored.expireAt(stored) != 0 ? 1 : 0;
            }
        });
        final RdbFile file = new RdbFile(out);
        file.header(now, sizes[0], sizes[1]);
        try
        {
            cut.forEach((key, stored) ->
            {
                if (Stored.live(stored, now))
                {
                    file.entry(key, stored);
                }
            });
        }
        catch (final UncheckedIOException ex)
        {
            throw ex.getCause();
        }
        file.w.write(EOF);
        file.drain();
        file.w.littleEndian(file.crc, 8);
        file.drain();
        return sizes[0];
    }

    private void header(final long now, final long keys, final long expiring) throws IOException
    {
        w.writeBytes(MAGIC);
        aux("redis-bits", "64");
        aux("ctime", Long.toString(now / 1000));
        aux("aof-base", "0");
        w.write(SELECTDB);
        w.length(0);
        w.write(RESIZEDB);
        w.length(keys);
        w.length(expiring);
        drain();
    }

    private void aux(final String field, final String value)
    {
        w.write(AUX);
        w.string(field.getBytes(StandardCharsets.US_ASCII));
        w.string(value.getBytes(StandardCharsets.US_ASCII));
    }

    /** A key's entry: its expiry if it has one, then its type, name and value ({@link DumpPayload#write}). */
    private void entry(final Key key, final Object stored)
    {
        final long at = Stored.expireAt(stored);
        if (at != 0)
        {
            w.write(EXPIRETIME_MS);
            w.littleEndian(at, 8);
        }
        DumpPayload.write(w, key.bytes(), stored);
        try
        {
            drain();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private void drain() throws IOException
    {
        crc = w.drainTo(out, crc);
    }
}

package io.weft.examples.kv;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * SAVE and BGSAVE: this member's copy of the store as an RDB file ({@link RdbFile}) in its directory, {@code dump.rdb}
 * as Redis names it, for backups and for moving the data to redis-server. Each travels through the group as a read,
 * so the copy is the store after the writes ordered before it (this client's own included); the delivery thread takes
 * a {@link StoreCut} there (two references a slot, as a log's compaction does) and a thread of the saver's writes the
 * file from it while deliveries go on: SAVE is answered once the file is written and synced, BGSAVE at once. Unlike
 * Redis's SAVE, this member's other clients are not held meanwhile. The file is written as {@code temp-<pid>.rdb}
 * and renamed over {@code dump.rdb}, so a reader never sees half a file. One save at a time, as in Redis. LASTSAVE and
 * INFO's {@code Persistence} section tell how the last one went. SYNC after {@code REPLCONF rdb-only 1}, as
 * {@code redis-cli --rdb FILE} sends them, answers the same file's bytes (made in memory, up to {@value #MOST_SYNC}
 * bytes) for a backup taken from a client; the members have no Redis replicas, so a replica's PSYNC, or a SYNC
 * without rdb-only, is refused saying so.
 */
final class RdbSaver
{
    static final String FILE = "dump.rdb";
    /** The largest RDB a SYNC sends: one byte array. */
    static final int MOST_SYNC = Integer.MAX_VALUE - 16;
    private static final Logger LOG = LoggerFactory.getLogger(RdbSaver.class);
    private static final Reply.Error IN_PROGRESS = new Reply.Error("ERR Background save already in progress");
    /** A BGSAVE's reply inside EXEC, at every member; the save is its client's member's, after the EXEC. */
    static final Reply SCHEDULED = new Reply.Simple("Background saving scheduled");

    private volatile Path directory;
    /** Whether a save is being written; set and cleared under this object's monitor. */
    private boolean inProgress;
    private long startedMillis;
    /** Epoch seconds of the last save that succeeded (LASTSAVE): at first the member's start, as Redis's. */
    private volatile long lastSave = System.currentTimeMillis() / 1000;
    private volatile boolean lastOk = true;
    private volatile long lastSeconds = -1;
    private volatile long saves;
    /** The count of writes applied here when the last successful save's cut was taken. */
    private volatile long writesAtLastSave;

    /** Saves to {@code directory}/{@value #FILE} ({@link #directory(Path)}). */
    RdbSaver(final Path directory)
    {
        directory(directory);
    }

    /** Where the file goes from now on (Redis's {@code dir}). */
    void directory(final Path directory)
    {
        this.directory = directory.toAbsolutePath();
    }

    /** {@code writes} were applied here as the member started (a log's replay): none is a change since a save. */
    void loaded(final long writes)
    {
        writesAtLastSave = writes;
    }

    /** Whether {@code listed}, a command's listed name (null: none), takes the store's cut: SAVE, BGSAVE, SYNC. */
    static boolean saves(final String listed)
    {
        return "SAVE".equals(listed) || "BGSAVE".equals(listed) || "SYNC".equals(listed);
    }

    /** Whether a transaction refuses {@code cmd}, as Redis's: SAVE, SYNC and PSYNC (BGSAVE is scheduled). */
    static boolean notInTransaction(final String cmd)
    {
        return cmd.equals("SAVE") || cmd.equals("SYNC") || cmd.equals("PSYNC");
    }

    /**
     * REPLCONF option value [option value ...] from a client: {@code rdb-only 1} (or 0) marks the connection's SYNC
     * as a request for the RDB alone; the options a replica sends first are taken and change nothing.
     */
    static Reply replconf(final ClientSession session, final List<byte[]> args)
    {
        if (args.size() % 2 == 0)
        {
            return Reply.error("ERR syntax error");
        }
        for (int i = 1; i < args.size(); i += 2)
        {
            final String option = Commands.text(args.get(i)).toLowerCase(java.util.Locale.ROOT);
            switch (option)
            {
                case "rdb-only" -> session.rdbOnly = Commands.text(args.get(i + 1)).equals("1");
                case "capa", "listening-port", "ip-address", "rdb-filter-only" -> { }
                default ->
                {
                    return Reply.error("ERR Unrecognized REPLCONF option: " + Commands.text(args.get(i)));
                }
            }
        }
        return Reply.OK;
    }

    /** SYNC or PSYNC that does not ask for the RDB alone: refused, saying why. */
    static Reply.Error noReplicas(final String cmd)
    {
        return new Reply.Error("ERR " + cmd + " is refused: the members of a weft group are peers, not Redis " +
            "replicas; for this member's RDB send REPLCONF rdb-only 1, then SYNC (redis-cli --rdb FILE does)");
    }

    /** Event loop: BGSAVE's refusal of its arguments (SCHEDULE alone is taken: there is no rewrite to wait for). */
    static Reply.Error refusal(final List<byte[]> args)
    {
        return args.size() > 2 || args.size() == 2 && !Commands.is(args.get(1), "SCHEDULE") ?
            new Reply.Error("ERR syntax error") : null;
    }

    Path directory()
    {
        return directory;
    }

    /**
     * Delivery thread, applying this member's {@code command} (SAVE, BGSAVE or SYNC): takes the cut of {@code store}
     * and starts writing it; {@code writes} were applied here so far. BGSAVE's reply, or null for a SAVE (answered
     * when its file is written) or a SYNC (answered with the RDB).
     */
    Reply start(final KvStore store, final Command command, final long writes)
    {
        return start(store, command, Commands.is(command.args.getFirst(), "BGSAVE"), writes);
    }

    /**
     * Delivery thread, after this member's EXEC of a BGSAVE ({@link #scheduled}): the BGSAVE, with the cut of
     * {@code store} after the whole transaction, as Redis's scheduled BGSAVE runs once EXEC is done.
     */
    void startScheduled(final KvStore store, final long writes)
    {
        start(store, null, true, writes);
    }

    /**
     * Delivery thread, applying a BGSAVE in this member's EXEC: Redis's reply, {@link #SCHEDULED} (and
     * {@link #startScheduled} begins the save after the EXEC: only this thread begins saves) unless a save is being
     * written.
     */
    synchronized Reply scheduled()
    {
        return inProgress ? IN_PROGRESS : SCHEDULED;
    }

    private Reply start(final KvStore store, final Command command, final boolean background, final long writes)
    {
        final boolean sync = !background && Commands.is(command.args.getFirst(), "SYNC"); // the RDB in memory
        if (!sync && !begin())
        {
            return IN_PROGRESS;
        }
        final StoreCut cut = store.cut();
        final long now = System.currentTimeMillis();
        Thread.ofPlatform().name("kv-rdb-save").daemon(true).start(() ->
        {
            if (background)
            {
                write(cut, now, writes);
            }
            else
            {
                answer(command, () -> sync ? inMemory(cut, now) : write(cut, now, writes));
            }
        });
        return background ? new Reply.Simple("Background saving started") : null;
    }

    /** Completes {@code command} with what {@code reply} makes; an {@link Error} too, so its client never hangs. */
    private static void answer(final Command command, final java.util.function.Supplier<Reply> reply)
    {
        try
        {
            command.complete(reply.get());
        }
        catch (final Error ex)
        {
            command.complete(Reply.error("ERR " + ex));
            throw ex;
        }
    }

    /** SYNC's thread: the RDB of {@code cut} as a bulk string, or the error that stopped it. */
    private static Reply inMemory(final StoreCut cut, final long now)
    {
        final Capped out = new Capped();
        try
        {
            RdbFile.write(cut, now, out);
            return new Reply.Bulk(out.toByteArray());
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.error("an RDB for SYNC failed", ex);
            return Reply.error("ERR SYNC could not make this member's RDB in memory: " + ex);
        }
    }

    /** The saver's thread: writes the file, renames it into place; OK, or the error that stopped it. */
    private Reply write(final StoreCut cut, final long now, final long writes)
    {
        final Path directory = this.directory;
        final Path temp = directory.resolve("temp-" + ProcessHandle.current().pid() + ".rdb");
        try
        {
            Files.createDirectories(directory);
            final long keys;
            try (FileOutputStream file = new FileOutputStream(temp.toFile());
                OutputStream out = new BufferedOutputStream(file, 1 << 16))
            {
                keys = RdbFile.write(cut, now, out);
                out.flush();
                file.getChannel().force(true);
            }
            Files.move(temp, directory.resolve(FILE), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
            writesAtLastSave = writes;
            lastSave = System.currentTimeMillis() / 1000;
            ended(true);
            LOG.info("saved {} keys to {}", keys, directory.resolve(FILE));
            return Reply.OK;
        }
        catch (final IOException | RuntimeException ex)
        {
            ended(false);
            LOG.error("saving {} failed", directory.resolve(FILE), ex);
            try
            {
                Files.deleteIfExists(temp);
            }
            catch (final IOException gone)
            {
                ex.addSuppressed(gone);
            }
            return Reply.error("ERR saving " + directory.resolve(FILE) + " failed: " + ex);
        }
        catch (final Error ex) // out of memory: the next save may still succeed
        {
            ended(false);
            throw ex;
        }
    }

    /** Whether a save may begin (none is being written); it is from now on. */
    private synchronized boolean begin()
    {
        if (inProgress)
        {
            return false;
        }
        inProgress = true;
        startedMillis = System.currentTimeMillis();
        return true;
    }

    private synchronized void ended(final boolean ok)
    {
        lastOk = ok;
        lastSeconds = (System.currentTimeMillis() - startedMillis) / 1000;
        saves += ok ? 1 : 0; // Redis's rdb_saves: the snapshots made
        inProgress = false;
    }

    /** LASTSAVE: the epoch second of the last save that succeeded. */
    long lastSave()
    {
        return lastSave;
    }

    /** INFO's {@code Persistence} lines of Redis's that a save here has: {@code writes} were applied here so far. */
    synchronized String persistence(final long writes)
    {
        return "rdb_changes_since_last_save:" + (writes - writesAtLastSave) + "\r\nrdb_bgsave_in_progress:" +
            (inProgress ? 1 : 0) + "\r\nrdb_last_save_time:" + lastSave + "\r\nrdb_last_bgsave_status:" +
            (lastOk ? "ok" : "err") + "\r\nrdb_last_bgsave_time_sec:" + lastSeconds +
            "\r\nrdb_current_bgsave_time_sec:" + (inProgress ? (System.currentTimeMillis() - startedMillis) / 1000 :
            -1) + "\r\nrdb_saves:" + saves + "\r\n";
    }

    /** The RDB a SYNC sends, in memory: at most {@value #MOST_SYNC} bytes, one array. */
    private static final class Capped extends java.io.ByteArrayOutputStream
    {
        @Override
        public void write(final int b)
        {
            room(1);
            super.write(b);
        }

        @Override
        public void write(final byte[] b, final int off, final int len)
        {
            room(len);
            super.write(b, off, len);
        }

        private void room(final int more)
        {
            if ((long)count + more > MOST_SYNC)
            {
                throw new IllegalStateException("this member's RDB passes " + MOST_SYNC + " bytes, the most SYNC " +
                    "sends from memory: use SAVE or BGSAVE, which write dump.rdb in the member's directory");
            }
        }
    }
}

package io.weft.sst.shm;

import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.sst.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;

/**
 * One member's table copy as a file under the shm directory: a 4 KiB header, then {@code rows * rowSize} bytes.
 *
 * <p>The header names the owner (pid and process start time) so that a file left by a crashed run is recognised
 * as stale and never mistaken for a live member: a file is live only while its owner process, with the same start
 * time, still runs and the header says LIVE. Files are created under a temporary name, fully initialised, then
 * renamed into place, so a peer never maps a half-initialised table.
 */
final class ShmTableFile implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmTableFile.class);
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    static final long MAGIC = 0x5745_4654_5353_5431L; // "WEFTSST1"
    static final int VERSION = 1;
    static final int HEADER_SIZE = 4096;

    static final int STATE_LIVE = 1;
    static final int STATE_CLOSED = 2;

    private static final long OFF_MAGIC = 0;
    private static final long OFF_VERSION = 8;
    private static final long OFF_STATE = 12;
    private static final long OFF_CHECKSUM = 16;
    private static final long OFF_ROWS = 24;
    private static final long OFF_ROW_SIZE = 28;
    private static final long OFF_MEMBER_ID = 32;
    private static final long OFF_PID = 40;
    private static final long OFF_START = 48;
    static final long OFF_DOORBELL_SEQUENCE = 64;
    static final long OFF_DOORBELL_SLEEPING = 128; // own cache line: ringers read it, the sleeper writes it
    private static final long OFF_GROUP_LENGTH = 192;
    private static final long OFF_GROUP = 196;

    private final Path path;
    private final Arena arena;
    private final MemorySegment header;
    private final MemorySegment table;
    private final long ownerPid;

    private ShmTableFile(final Path path, final Arena arena, final MemorySegment mapping, final long ownerPid)
    {
        this.path = path;
        this.arena = arena;
        this.header = mapping.asSlice(0, HEADER_SIZE);
        this.table = mapping.asSlice(HEADER_SIZE);
        this.ownerPid = ownerPid;
    }

    static Path pathOf(final Path directory, final String group, final int memberId)
    {
        return directory.resolve("weft-" + group + "-" + memberId + ".sst");
    }

    /** Creates this member's own file, removing a stale one; refuses if a live process already owns it. */
    static ShmTableFile create(final Path directory, final String group, final int memberId, final SstLayout layout,
        final int rows)
    {
        final Path path = pathOf(directory, group, memberId);
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException ex)
        {
            throw new TransportException("weft.transport.shm.directory " + directory + ": cannot create: " + ex, ex);
        }
        final Optional<Owner> existing = readOwner(path);
        if (existing.isPresent())
        {
            final Owner owner = existing.get();
            if (owner.isLive())
            {
                throw new TransportException("member " + memberId + " of group " + group + " is already running as " +
                    "pid " + owner.pid + " (" + path + "); every member id must run once");
            }
            LOG.info("removing stale table file {} left by pid {} (no longer running)", path, owner.pid);
        }
        final long self = ProcessHandle.current().pid();
        final Path temp = directory.resolve(path.getFileName() + ".tmp-" + self + "-" + System.nanoTime());
        final long size = HEADER_SIZE + (long)rows * layout.rowSize();
        final Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            back(ch, size);
            final MemorySegment mapping = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            final ShmTableFile file = new ShmTableFile(path, arena, mapping, self);
            Sst.initialize(file.table, layout, rows);
            final MemorySegment h = file.header;
            h.set(ValueLayout.JAVA_LONG, OFF_MAGIC, MAGIC);
            h.set(ValueLayout.JAVA_INT, OFF_VERSION, VERSION);
            h.set(ValueLayout.JAVA_LONG, OFF_CHECKSUM, layout.checksum());
            h.set(ValueLayout.JAVA_INT, OFF_ROWS, rows);
            h.set(ValueLayout.JAVA_INT, OFF_ROW_SIZE, layout.rowSize());
            h.set(ValueLayout.JAVA_INT, OFF_MEMBER_ID, memberId);
            h.set(ValueLayout.JAVA_LONG, OFF_PID, self);
            h.set(ValueLayout.JAVA_LONG, OFF_START, startMillis(ProcessHandle.current()));
            final byte[] name = group.getBytes(StandardCharsets.UTF_8);
            h.set(ValueLayout.JAVA_INT, OFF_GROUP_LENGTH, name.length);
            MemorySegment.copy(name, 0, h, ValueLayout.JAVA_BYTE, OFF_GROUP, name.length);
            INT.setRelease(h, OFF_STATE, STATE_LIVE);
            try
            {
                Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                OwnTableFiles.opened(path);
            }
            catch (final AtomicMoveNotSupportedException ex)
            {
                throw new TransportException("weft.transport.shm.directory " + directory +
                    " does not support atomic renames; use a tmpfs such as /dev/shm", ex);
            }
            return file;
        }
        catch (final IOException ex)
        {
            arena.close();
            deleteQuietly(temp);
            throw new TransportException("cannot create table file " + path + " (" + size + " bytes): " + ex, ex);
        }
    }

    /**
     * Gives every page of the new file its memory now, by writing it: a tmpfs without room for the table fails here
     * ("No space left on device"), where a mapping of a sparse file faults at the first write to a page (SIGBUS,
     * raised as an InternalError by whichever thread touched it).
     */
    private static void back(final FileChannel ch, final long size) throws IOException
    {
        final java.nio.ByteBuffer zeros = java.nio.ByteBuffer.allocate((int)Math.min(size, 1 << 20));
        long at = 0;
        while (at < size)
        {
            zeros.clear().limit((int)Math.min(zeros.capacity(), size - at));
            at += ch.write(zeros, at);
        }
    }

    /**
     * Maps a peer's file if it is present, live and compatible. Returns empty while it is absent or stale (the caller
     * keeps waiting); throws if a live peer has an incompatible table, which no amount of waiting fixes.
     */
    static Optional<ShmTableFile> attach(final Path directory, final String group, final int memberId,
        final SstLayout layout, final int rows)
    {
        final Path path = pathOf(directory, group, memberId);
        final Optional<Owner> owner = readOwner(path);
        if (owner.isEmpty() || !owner.get().isLive())
        {
            return Optional.empty();
        }
        final long size = HEADER_SIZE + (long)rows * layout.rowSize();
        final Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            if (ch.size() != size)
            {
                arena.close();
                throw new TransportException("member " + memberId + "'s table file " + path + " has " + ch.size() +
                    " bytes, expected " + size + ": the member runs with a different layout or group size");
            }
            final MemorySegment mapping = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            final ShmTableFile file = new ShmTableFile(path, arena, mapping, owner.get().pid);
            final String problem = file.incompatibility(group, memberId, layout, rows);
            if (problem != null)
            {
                file.close();
                throw new TransportException("member " + memberId + "'s table file " + path + " " + problem);
            }
            return Optional.of(file);
        }
        catch (final NoSuchFileException ex)
        {
            arena.close();
            return Optional.empty(); // removed between the look and the open: a restart in progress
        }
        catch (final IOException ex)
        {
            arena.close();
            throw new TransportException("cannot map member " + memberId + "'s table file " + path + ": " + ex, ex);
        }
    }

    private String incompatibility(final String group, final int memberId, final SstLayout layout, final int rows)
    {
        final MemorySegment h = header;
        if (h.get(ValueLayout.JAVA_LONG, OFF_MAGIC) != MAGIC)
        {
            return "is not a Weft table (bad magic)";
        }
        if (h.get(ValueLayout.JAVA_INT, OFF_VERSION) != VERSION)
        {
            return "has format version " + h.get(ValueLayout.JAVA_INT, OFF_VERSION) + ", expected " + VERSION;
        }
        final String fileGroup = groupName();
        if (!group.equals(fileGroup))
        {
            return "belongs to group '" + fileGroup + "', expected '" + group + "'";
        }
        if (h.get(ValueLayout.JAVA_INT, OFF_MEMBER_ID) != memberId)
        {
            return "belongs to member " + h.get(ValueLayout.JAVA_INT, OFF_MEMBER_ID);
        }
        if (h.get(ValueLayout.JAVA_LONG, OFF_CHECKSUM) != layout.checksum() ||
            h.get(ValueLayout.JAVA_INT, OFF_ROW_SIZE) != layout.rowSize() ||
            h.get(ValueLayout.JAVA_INT, OFF_ROWS) != rows)
        {
            return "has layout checksum " + Long.toHexString(h.get(ValueLayout.JAVA_LONG, OFF_CHECKSUM)) + " and " +
                h.get(ValueLayout.JAVA_INT, OFF_ROWS) + " rows, expected " + Long.toHexString(layout.checksum()) +
                " and " + rows + ": the member runs a different table layout";
        }
        return null;
    }

    private String groupName()
    {
        final int length = header.get(ValueLayout.JAVA_INT, OFF_GROUP_LENGTH);
        if (length < 0 || length > 128)
        {
            return "?";
        }
        final byte[] name = new byte[length];
        MemorySegment.copy(header, ValueLayout.JAVA_BYTE, OFF_GROUP, name, 0, length);
        return new String(name, StandardCharsets.UTF_8);
    }

    MemorySegment table()
    {
        return table;
    }

    MemorySegment header()
    {
        return header;
    }

    Path path()
    {
        return path;
    }

    long ownerPid()
    {
        return ownerPid;
    }

    /** True while the header says LIVE; a member closing normally says CLOSED first. */
    boolean isLive()
    {
        return (int)INT.getAcquire(header, OFF_STATE) == STATE_LIVE;
    }

    void markClosed()
    {
        INT.setRelease(header, OFF_STATE, STATE_CLOSED);
    }

    FutexDoorbell doorbell()
    {
        return new FutexDoorbell(header, OFF_DOORBELL_SEQUENCE, OFF_DOORBELL_SLEEPING);
    }

    /** Unmaps; other threads still touching the table get an IllegalStateException, never a crash. */
    @Override
    public void close()
    {
        arena.close();
    }

    void delete()
    {
        deleteQuietly(path);
    }

    /**
     * Deletes this peer's file once its owner process has ended: a member killed with kill -9 cannot delete its own,
     * and its file (its rows, rings included) would stay in the tmpfs, in memory, for as long as the host runs. Only
     * a file whose header names an owner that no longer runs is deleted, so a live member's is never taken.
     */
    void deleteIfOwnerEnded()
    {
        try
        {
            if (readOwner(path).map(o -> o.pid > 0 && !o.running()).orElse(false))
            {
                LOG.info("removing table file {} of member {} (pid {} no longer runs)", path,
                    header.get(ValueLayout.JAVA_INT, OFF_MEMBER_ID), ownerPid);
                delete();
            }
        }
        catch (final TransportException ex) // unreadable: left as it is, the close goes on
        {
            LOG.warn("cannot tell whether the owner of {} still runs: {}", path, ex.getMessage());
        }
    }

    static void deleteQuietly(final Path path)
    {
        OwnTableFiles.closed(path);
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot delete {}: {}", path, ex.toString());
        }
    }

    /** Who created a file, read from its header without mapping it. */
    record Owner(long pid, long startMillis, int state)
    {
        boolean isLive()
        {
            return state == STATE_LIVE && running();
        }

        /**
         * The process that created the file still runs: the same pid and start time (pid reuse is told apart), and
         * not a zombie, which ProcessHandle takes for alive: a killed member stays one until its parent reaps it,
         * and under an init that reaps late (a container's) that is longer than the others take to change view.
         */
        boolean running()
        {
            return ProcessHandle.of(pid).map(p -> p.isAlive() && ShmTableFile.startMillis(p) == startMillis)
                .orElse(false) && !exited(pid);
        }
    }

    private static Optional<Owner> readOwner(final Path path)
    {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ))
        {
            final java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64).order(java.nio.ByteOrder.nativeOrder());
            while (buf.hasRemaining() && ch.read(buf) > 0)
            {
                // fill the fixed part of the header
            }
            if (buf.position() < 64 || buf.getLong((int)OFF_MAGIC) != MAGIC)
            {
                return Optional.of(new Owner(-1, -1, 0)); // not ours or torn: never live
            }
            return Optional.of(new Owner(buf.getLong((int)OFF_PID), buf.getLong((int)OFF_START),
                buf.getInt((int)OFF_STATE)));
        }
        catch (final NoSuchFileException ex)
        {
            return Optional.empty();
        }
        catch (final IOException ex)
        {
            throw new TransportException("cannot read table file " + path + ": " + ex, ex);
        }
    }

    /** Linux: the state in /proc/PID/stat is Z (exited, not yet reaped) or X, or the process is gone. */
    static boolean exited(final long pid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            final int end = stat.lastIndexOf(')'); // after the command name, which may hold spaces and parentheses
            final char state = end > 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
            return state == 'Z' || state == 'X';
        }
        catch (final NoSuchFileException ex)
        {
            return true;
        }
        catch (final IOException ex)
        {
            return false; // cannot tell: taken for running, as before this check
        }
    }

    static long startMillis(final ProcessHandle process)
    {
        return process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }
}

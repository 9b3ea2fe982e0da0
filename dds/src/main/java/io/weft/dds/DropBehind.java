package io.weft.dds;

import io.weft.config.LinuxSyscall;

import java.io.File;
import java.lang.foreign.Arena;

/**
 * Hands a log file's pages back to the system once they are on disk, well behind the appender: the log thread starts
 * the writeback of each {@value #STEP_MIB} MiB the appender has passed, and for the step {@value #KEEP_MIB} MiB behind
 * it waits for that writeback and drops the file's pages up to that step from the page cache ({@code sync_file_range},
 * then {@code posix_fadvise(DONTNEED)}).
 *
 * <p>Why: every page a growing log has not had is a fresh page of memory, and on a VM whose host takes back free
 * memory (page reporting) a fresh page faults in the host too. Three processes appending 1 KiB records to new mapped
 * files at once managed 175-330k a second each on this project's 2-core VM, and 0.6-1.6M each with their pages
 * recycled this way (2026-11-26). It also keeps a long log from filling the page cache.
 *
 * <p>Chronicle keeps the chunk it writes mapped (64 MiB and its overlap) and unmaps older ones in the background;
 * the page cache keeps a mapped page, so the distance kept is some chunks, and each drop covers the whole file up to
 * its step: a chunk still mapped at one drop leaves at a later one (the kernel walks only the pages it holds). The
 * page cache holds about {@value #KEEP_MIB} MiB of each log, and the file's first chunk (Chronicle keeps its header
 * mapped). A read of older entries (a joiner's catch-up, {@code weft log}) comes from the disk, and the log thread
 * waits for the disk {@value #KEEP_MIB} MiB behind the appender, which a host writing back dirty pages makes it do
 * anyway.
 *
 * <p>One appending thread at a time. {@code weft bench dds} recycles its log-ceiling probe's pages with it too.
 *
 * <p>Correctness does not depend on it: only clean pages (on disk) that no one maps leave the page cache, and a
 * failing call only stops the dropping. Where the system calls are not available it does nothing.
 */
public final class DropBehind implements AutoCloseable
{
    /** Writeback starts for every this many MiB the log has passed. */
    public static final int STEP_MIB = 32;
    /** Pages this many MiB behind the appender are written and dropped from the page cache. */
    public static final int KEEP_MIB = 192;
    private static final long STEP = (long)STEP_MIB << 20;
    private static final long KEEP = (long)KEEP_MIB << 20;
    private static final long SYNC_FILE_RANGE_WAIT_BEFORE = 1;
    private static final long SYNC_FILE_RANGE_WRITE = 2;
    private static final long SYNC_FILE_RANGE_WAIT_AFTER = 4;
    private static final long POSIX_FADV_DONTNEED = 4;
    private static final long AT_FDCWD = -100;
    private static final long O_RDWR_CLOEXEC = 2 | 0x80000;
    private static final long OPENAT = LinuxSyscall.number(257, 56);
    private static final long SYNC_FILE_RANGE = LinuxSyscall.number(277, 84);
    private static final long FADVISE = LinuxSyscall.number(221, 223);

    private File file;
    private long fd = -1;
    private long started; // bytes of the file whose writeback has been started
    private long dropped; // bytes of the file dropped from the page cache
    private boolean off = !LinuxSyscall.AVAILABLE;

    /** Opens nothing until the first {@link #advance}: the file it is told of then. */
    public DropBehind()
    {
    }

    /**
     * The appender has written {@code current} up to {@code position}: start writing back and drop what is behind.
     *
     * @param current  the file the appender writes (a new one starts from its beginning).
     * @param position how far it has written.
     */
    public void advance(final File current, final long position)
    {
        if (off)
        {
            return;
        }
        if (!current.equals(file))
        {
            close();
            open(current);
        }
        while (!off && position - started >= STEP)
        {
            off = !call(SYNC_FILE_RANGE, fd, started, STEP, SYNC_FILE_RANGE_WRITE);
            started += STEP;
        }
        while (!off && position - KEEP - dropped >= STEP)
        {
            off = !call(SYNC_FILE_RANGE, fd, dropped, STEP,
                SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) ||
                !call(FADVISE, fd, 0, dropped + STEP, POSIX_FADV_DONTNEED);
            dropped += STEP;
        }
        if (off)
        {
            close();
        }
    }

    private void open(final File current)
    {
        file = current;
        started = 0;
        dropped = 0;
        try (Arena arena = Arena.ofConfined()) // where FFM is refused (no native access) the log works without it
        {
            fd = LinuxSyscall.tryCall(OPENAT, AT_FDCWD, arena.allocateFrom(current.getPath()).address(),
                O_RDWR_CLOEXEC, 0, 0);
        }
        off = fd < 0;
    }

    private static boolean call(final long nr, final long a1, final long a2, final long a3, final long a4)
    {
        return LinuxSyscall.tryCall(nr, a1, a2, a3, a4, 0) >= 0;
    }

    @Override
    public void close()
    {
        LinuxSyscall.close(fd);
        fd = -1;
        file = null;
    }
}

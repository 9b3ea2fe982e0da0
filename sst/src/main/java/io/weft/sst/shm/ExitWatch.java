package io.weft.sst.shm;

import io.weft.config.LinuxSyscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * Tells when the process of a peer exits (kill -9 included), within about a millisecond: one thread waits in
 * {@code ppoll(2)} on a Linux pidfd of each peer ({@code pidfd_open(2)}), which becomes readable as the process exits,
 * and on an eventfd that {@link #close} writes to. {@link ProcessHandle#onExit()} polls a process that is not a
 * child of this one: 6-327 ms after kill -9 here (20 kills, 2026-11-30), most of a shm member's failover. Where a
 * pidfd cannot be had (no FFM, a kernel before 5.3, a process already gone) that peer is watched with
 * {@code onExit()} as before.
 */
final class ExitWatch implements AutoCloseable
{
    private static final long PIDFD_OPEN = LinuxSyscall.number(434, 434);
    private static final long PPOLL = LinuxSyscall.number(271, 73);
    private static final long EVENTFD2 = LinuxSyscall.number(290, 19);
    private static final long WRITE = LinuxSyscall.number(1, 64);
    private static final long EFD_CLOEXEC = 0x80000;
    private static final int POLLFD_BYTES = 8; // struct pollfd { int fd; short events; short revents; }
    private static final short POLLIN = 1;
    private static final int FAILED_POLLS_TOLERATED = 100; // then the peers still watched go to onExit()

    private final long[] pids; // per rank; <= 0: not watched
    private final IntConsumer exited;
    private final Consumer<Throwable> threadFailed;
    private final List<CompletableFuture<?>> fallbacks = new ArrayList<>();
    private final int[] rankOf; // pollfd entry i + 1 watches rank rankOf[i]
    private final long[] pidfds; // and through this pidfd, kept for close(): the entry's fd is -1 once told
    private final Arena arena;
    private final MemorySegment pollfds; // entry 0: the eventfd; written by the watch thread once it runs
    private final long eventFd;
    private final Thread thread;
    private boolean closedFromWatch; // close() called by the exited callback, on the watch thread: it releases all

    /**
     * Watches the process {@code pids[rank]} of every rank with a positive pid; {@code exited} is told the rank once
     * its process exited, on the watch thread (or the JDK's, for a peer watched with {@code onExit()}).
     */
    ExitWatch(final String name, final long[] pids, final IntConsumer exited, final Consumer<Throwable> threadFailed)
    {
        this.pids = pids.clone();
        this.exited = exited;
        this.threadFailed = threadFailed;
        final long efd = LinuxSyscall.tryCall(EVENTFD2, 0, EFD_CLOEXEC, 0, 0, 0);
        final List<Integer> ranks = new ArrayList<>();
        final List<Long> fds = new ArrayList<>();
        for (int r = 0; r < pids.length; r++)
        {
            if (pids[r] <= 0)
            {
                continue;
            }
            final long fd = efd < 0 ? -1 : LinuxSyscall.tryCall(PIDFD_OPEN, pids[r], 0, 0, 0, 0);
            if (fd < 0)
            {
                watchWithJdk(r);
            }
            else
            {
                ranks.add(r);
                fds.add(fd);
            }
        }
        this.rankOf = ranks.stream().mapToInt(Integer::intValue).toArray();
        this.pidfds = fds.stream().mapToLong(Long::longValue).toArray();
        this.eventFd = efd;
        if (efd < 0 || rankOf.length == 0)
        {
            this.arena = null;
            this.pollfds = null;
            this.thread = null;
            LinuxSyscall.close(efd);
            return;
        }
        this.arena = Arena.ofShared();
        this.pollfds = arena.allocate((long)POLLFD_BYTES * (rankOf.length + 1), 8);
        entry(0, efd);
        for (int i = 0; i < rankOf.length; i++)
        {
            entry(i + 1, pidfds[i]);
        }
        this.thread = Thread.ofPlatform().name(name).daemon(true).start(this::run);
    }

    private void entry(final int i, final long fd)
    {
        pollfds.set(ValueLayout.JAVA_INT, (long)i * POLLFD_BYTES, (int)fd);
        pollfds.set(ValueLayout.JAVA_SHORT, (long)i * POLLFD_BYTES + 4, POLLIN);
    }

    private void run()
    {
        try
        {
            int failed = 0;
            while (true)
            {
                final long ready = LinuxSyscall.call(PPOLL, pollfds.address(), rankOf.length + 1, 0, 0, 8);
                if (ready < 0)
                {
                    if (++failed < FAILED_POLLS_TOLERATED)
                    {
                        continue; // a signal (EINTR); anything else fails every time and ends here soon
                    }
                    handOverToJdk();
                    return;
                }
                failed = 0;
                if (revents(0) != 0)
                {
                    return; // closed
                }
                for (int i = 1; i <= rankOf.length; i++)
                {
                    if (revents(i) != 0 && pollfds.get(ValueLayout.JAVA_INT, (long)i * POLLFD_BYTES) >= 0)
                    {
                        // a negative fd is skipped by ppoll: told once; the pidfd itself is closed by close()
                        pollfds.set(ValueLayout.JAVA_INT, (long)i * POLLFD_BYTES, -1);
                        exited.accept(rankOf[i - 1]);
                    }
                }
            }
        }
        catch (final RuntimeException | Error ex)
        {
            threadFailed.accept(ex);
        }
        finally
        {
            if (closedFromWatch)
            {
                release();
            }
        }
    }

    private short revents(final int i)
    {
        return pollfds.get(ValueLayout.JAVA_SHORT, (long)i * POLLFD_BYTES + 6);
    }

    /** ppoll keeps failing: the peers not told yet are watched with onExit() from now on. */
    private void handOverToJdk()
    {
        synchronized (fallbacks)
        {
            for (int i = 1; i <= rankOf.length; i++)
            {
                if (pollfds.get(ValueLayout.JAVA_INT, (long)i * POLLFD_BYTES) >= 0)
                {
                    watchWithJdk(rankOf[i - 1]);
                }
            }
        }
    }

    private void watchWithJdk(final int rank)
    {
        synchronized (fallbacks)
        {
            ProcessHandle.of(pids[rank]).ifPresentOrElse(
                h -> fallbacks.add(h.onExit().thenRun(() -> exited.accept(rank))),
                () -> exited.accept(rank));
        }
    }

    /** Stops watching: wakes the thread through the eventfd, waits for it, then closes the descriptors. */
    @Override
    public void close()
    {
        synchronized (fallbacks)
        {
            fallbacks.forEach(f -> f.cancel(false));
        }
        if (thread == null)
        {
            return;
        }
        try (Arena a = Arena.ofConfined())
        {
            final MemorySegment one = a.allocate(ValueLayout.JAVA_LONG);
            one.set(ValueLayout.JAVA_LONG, 0, 1);
            LinuxSyscall.tryCall(WRITE, eventFd, one.address(), 8, 0, 0);
        }
        if (Thread.currentThread() == thread)
        {
            closedFromWatch = true; // a failure listener closed the table: the thread ends when the callback returns
            return;
        }
        try
        {
            thread.join(1_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive())
        {
            return; // never seen: leave its descriptors to the process rather than close them under it
        }
        release();
    }

    private void release()
    {
        LinuxSyscall.close(eventFd);
        for (final long fd : pidfds)
        {
            LinuxSyscall.close(fd);
        }
        arena.close();
    }
}

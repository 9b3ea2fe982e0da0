package io.weft.sst.shm;

import io.weft.testkit.Await;
import io.weft.testkit.OpenDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ExitWatch} over real processes that are not this JVM's children (as a shm member's peers are not): each
 * killed with kill -9 is told once, with its rank; a process already gone is told at once; close ends the thread.
 */
@Timeout(60)
class ExitWatchTest
{
    private static final String THREAD = "exit-watch-test";

    @Test
    void eachKilledPeerIsToldOnceWithItsRank() throws Exception
    {
        // bash waits for its two sleeps: they are its children, not this JVM's, and are reaped at once when killed
        final Process parent = new ProcessBuilder("bash", "-c",
            "sleep 600 & echo $!; sleep 600 & echo $!; exec 1>&-; wait").start();
        try
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream()));
            final long first = Long.parseLong(out.readLine().trim());
            final long second = Long.parseLong(out.readLine().trim());
            final List<Integer> told = new CopyOnWriteArrayList<>();
            final List<Throwable> failed = new CopyOnWriteArrayList<>();
            try (ExitWatch watch = new ExitWatch(THREAD, new long[] {-1, first, second}, told::add, failed::add))
            {
                assertTrue(watchThreadRuns(), "a pidfd for each peer, watched on a thread of its own");
                kill(second);
                Await.until(() -> told.equals(List.of(2)), () -> "told " + told);
                kill(first);
                Await.until(() -> told.equals(List.of(2, 1)), () -> "told " + told);
            }
            assertFalse(watchThreadRuns(), "close ends the thread");
            assertEquals(List.of(2, 1), told, "each told once");
            assertEquals(List.of(), failed);
        }
        finally
        {
            parent.descendants().forEach(ProcessHandle::destroyForcibly);
            parent.destroyForcibly();
        }
    }

    @Test
    void aWatchClosedByItsOwnCallbackReleasesItsDescriptors() throws Exception
    {
        final Process parent = new ProcessBuilder("bash", "-c", "sleep 600 & echo $!; exec 1>&-; wait").start();
        try
        {
            final long peer = Long.parseLong(new BufferedReader(new InputStreamReader(parent.getInputStream()))
                .readLine().trim());
            final long fdsBefore = openDescriptors();
            final ExitWatch[] watch = new ExitWatch[1];
            final List<Integer> told = new CopyOnWriteArrayList<>();
            // as a failure listener that closes its group does: close() on the watch's own thread
            watch[0] = new ExitWatch(THREAD, new long[] {peer}, rank ->
            {
                told.add(rank);
                watch[0].close();
            }, ex -> { });
            assertEquals(fdsBefore + 2, openDescriptors(), "a pidfd and an eventfd");
            kill(peer);
            Await.until(() -> !watchThreadRuns() && told.equals(List.of(0)), () -> "told " + told);
            assertEquals(fdsBefore, openDescriptors(), "the pidfd and the eventfd are closed");
        }
        finally
        {
            parent.descendants().forEach(ProcessHandle::destroyForcibly);
            parent.destroyForcibly();
        }
    }

    @Test
    void aPeerAlreadyGoneIsToldAtOnce() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final List<Integer> told = new CopyOnWriteArrayList<>();
        try (ExitWatch ignored = new ExitWatch(THREAD, new long[] {gone.pid(), -1}, told::add, ex -> { }))
        {
            Await.until(() -> told.equals(List.of(0)), () -> "told " + told);
        }
        assertFalse(watchThreadRuns());
    }

    private static void kill(final long pid) throws Exception
    {
        assertEquals(0, new ProcessBuilder("kill", "-9", String.valueOf(pid)).start().waitFor());
    }

    /** This JVM's open pidfds and eventfds (the watch's kinds of descriptor). */
    private static long openDescriptors()
    {
        return OpenDescriptors.count(t -> t.equals("anon_inode:[pidfd]") || t.equals("anon_inode:[eventfd]"));
    }

    private static boolean watchThreadRuns()
    {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(THREAD) && t.isAlive());
    }
}

package io.weft.tools;

import io.weft.testkit.MemberProcesses;
import io.weft.testkit.Trees;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The end of a launcher's run (demo, sst-demo, pubsub, avionics, kv): its members are asked to stop (SIGTERM: their
 * exit hooks run, an shm member removes its table file, a kv member leaves its group), killed if they have not within
 * 10 s, and its temporary directory is removed.
 * At the end of the command, or from a shutdown hook on Ctrl-C or SIGTERM, which skip the command's finally blocks:
 * such a launcher used to leave its directory (the avionics demo's held every member's log).
 */
public final class LauncherEnd implements AutoCloseable
{
    private final MemberProcesses processes;
    private final Path temporary;
    private final Runnable first;
    private final Thread hook;
    private boolean ended;

    /** Ends {@code processes} and removes {@code temporary} (null: a directory the user chose, kept). */
    public LauncherEnd(final MemberProcesses processes, final Path temporary)
    {
        this(processes, temporary, () ->
        {
        });
    }

    /** As {@link #LauncherEnd(MemberProcesses, Path)}, running {@code first} before (kv: no member restarted after). */
    LauncherEnd(final MemberProcesses processes, final Path temporary, final Runnable first)
    {
        this.processes = processes;
        this.temporary = temporary;
        this.first = first;
        this.hook = Thread.ofPlatform().name("weft-launcher-end").unstarted(this::end);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void close()
    {
        Weft.removeShutdownHook(hook);
        end();
    }

    /** Once, from the command's thread or the hook, whichever comes first. */
    private synchronized void end()
    {
        if (ended)
        {
            return;
        }
        ended = true;
        first.run();
        processes.terminate();
        try
        {
            if (processes.awaitAll(TimeUnit.SECONDS.toNanos(10)) == null)
            {
                processes.close();
                processes.awaitAll(TimeUnit.SECONDS.toNanos(5));
            }
            if (temporary != null)
            {
                Trees.delete(temporary);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final IOException ex)
        {
            System.err.println("weft: could not delete " + temporary + ": " + ex.getMessage());
        }
    }
}

package io.weft.testkit;

import java.util.List;

/**
 * Ends a member JVM when the process that started it ends. {@link MemberProcess} and {@link MemberProcesses} pass
 * their own pid as {@value #PROPERTY}; a member whose launcher or test JVM is killed (kill -9, a surefire timeout)
 * would otherwise live on as an orphan, holding its ports, its shared-memory files and CPU. The exit runs the shutdown
 * hooks, as SIGTERM does (a kv-member leaves its group; every member removes its shm table files). The JDK polls a
 * process that is not a child (at most every 5 s): nothing spins.
 */
public final class ParentWatch
{
    /** The system property that names the pid to watch (outside {@code weft.}: those are configuration keys). */
    public static final String PROPERTY = "io.weft.parentPid";
    /** The exit code when the parent is gone. */
    public static final int EXIT_PARENT_GONE = 6;

    private ParentWatch()
    {
    }

    /** Adds the property naming this JVM as the parent to a member's JVM flags. */
    static void addTo(final List<String> command)
    {
        command.add("-D" + PROPERTY + "=" + ProcessHandle.current().pid());
    }

    /** Watches the process named by {@value #PROPERTY}, if set; returns at once. */
    public static void install()
    {
        final String value = System.getProperty(PROPERTY);
        if (value == null)
        {
            return;
        }
        final long pid;
        try
        {
            pid = Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("-D" + PROPERTY + " must be a process id, not '" + value + "'", ex);
        }
        ProcessHandle.of(pid).ifPresentOrElse(parent -> parent.onExit().thenRun(() -> gone(pid)), () -> gone(pid));
    }

    private static void gone(final long pid)
    {
        System.err.println("weft: process " + pid + " that started this member has ended; exiting");
        System.exit(EXIT_PARENT_GONE);
    }
}

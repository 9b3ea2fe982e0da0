package io.weft.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A member in its own JVM, started with this JVM's java, the test class path and the project's JVM flags
 * (system property {@code test.weft.jvmFlags}, set by surefire from the parent POM), and the members' AOT cache
 * ({@link MemberJvm}). Output goes to a file.
 * {@link #close()} kills it if it is still running, so a failed test never leaves processes behind.
 */
public final class MemberProcess implements AutoCloseable
{
    /**
     * Flags for {@link #start(List, String, Path, Class, String...)} that give a member C2 as well as C1, as a
     * production member has: for a test bound by throughput (TotalOrderTest: 56.9 s with C1 only, 39.7 s with C2),
     * where the defaults' C1 only ({@code weft.test.memberFlags}) costs more than C2's compiler threads.
     */
    public static final List<String> WITH_C2 = List.of("-XX:TieredStopAtLevel=4");
    /** What a HotSpot JVM prints after its threads on SIGQUIT: the end of the dump, which is written in pieces. */
    private static final String THREAD_DUMP_END = "JNI global refs";

    private final String name;
    private final Process process;
    private final Path log;

    private MemberProcess(final String name, final Process process, final Path log)
    {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    public static MemberProcess start(final String name, final Path dir, final Class<?> main, final String... args)
    {
        return startWith(List.of(), name, dir, main, args);
    }

    /** Like {@link #start} with a command prefix, for example {@code ip netns exec NS} to run inside a namespace. */
    public static MemberProcess startWith(final List<String> prefix, final String name, final Path dir,
        final Class<?> main, final String... args)
    {
        return start(prefix, List.of(), name, dir, main, args);
    }

    /** Like {@link #start} with JVM flags after the defaults, which they override (a smaller heap, say). */
    public static MemberProcess start(final List<String> jvmFlags, final String name, final Path dir,
        final Class<?> main, final String... args)
    {
        return start(List.of(), jvmFlags, name, dir, main, args);
    }

    private static MemberProcess start(final List<String> prefix, final List<String> jvmFlags, final String name,
        final Path dir, final Class<?> main, final String... args)
    {
        final List<String> flags = new ArrayList<>(memberFlags());
        flags.addAll(jvmFlags);
        final MemberProcess member = run(name, dir, MemberJvm.command(prefix, flags, main, Arrays.asList(args), true));
        MemberJvm.started(member.process);
        return member;
    }

    /**
     * A member JVM's flags: the project's as the parent POM gives them to tests (the launcher's, and C1 only:
     * {@code weft.test.memberFlags}), a small heap, the serial collector.
     */
    public static List<String> memberFlags()
    {
        final List<String> flags = new ArrayList<>();
        final String projectFlags = System.getProperty("test.weft.jvmFlags", "");
        if (!projectFlags.isBlank())
        {
            flags.addAll(Arrays.asList(projectFlags.trim().split("\\s+")));
        }
        flags.add("-Xmx256m");
        flags.add("-XX:+UseSerialGC");
        return flags;
    }

    /** Runs {@code command} as it is (for example {@code java -jar} on a user's jar), its output in {@code dir}. */
    public static MemberProcess run(final String name, final Path dir, final List<String> command)
    {
        final Path log = dir.resolve(name + ".log");
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
            return new MemberProcess(name, p, log);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + name, ex);
        }
    }

    /** Waits for the exit code; kills and fails if the process does not exit in time. */
    public int awaitExit(final Duration timeout)
    {
        try
        {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                throw new AssertionError(name + " did not exit within " + timeout + "; output:\n" + output());
            }
            return process.exitValue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ex);
        }
    }

    /** Waits until the output contains {@code text}; fails after the timeout or if the process exits first. */
    public void awaitOutput(final String text, final Duration timeout)
    {
        awaitOutput(output -> output.contains(text), timeout, "'" + text + "'");
    }

    /**
     * Waits until {@code seen} holds of the output ({@code what} names it in a failure); fails after the timeout,
     * with the process's threads, or at once if the process exits first.
     */
    public void awaitOutput(final Predicate<String> seen, final Duration timeout, final String what)
    {
        Await.until(() ->
        {
            if (seen.test(output()))
            {
                return true;
            }
            if (!process.isAlive() && !seen.test(output())) // it may have printed it just before it exited
            {
                throw new AssertionError(name + " exited (" + process.exitValue() + ") before printing " + what +
                    "; output:\n" + output());
            }
            return false;
        }, timeout, () -> name + " to print " + what + "; output, with its threads at the deadline:\n" +
            outputWithThreadDump());
    }

    /**
     * The output after the JVM printed its threads (SIGQUIT): where a member that stopped making progress is stuck.
     * A process that is gone, or prints no dump within five seconds, gives its output as it is.
     */
    public String outputWithThreadDump()
    {
        if (!process.isAlive())
        {
            return output();
        }
        try
        {
            final int dumps = dumps(output());
            signal("QUIT");
            Await.until(() -> dumps(output()) > dumps || !process.isAlive(), Duration.ofSeconds(5), "a thread dump");
        }
        catch (final IOException | InterruptedException | AssertionError ex)
        {
            if (ex instanceof InterruptedException)
            {
                Thread.currentThread().interrupt();
            }
            return output() + "\n<no thread dump: " + ex.getMessage() + ">";
        }
        return output();
    }

    private static int dumps(final String output)
    {
        int n = 0;
        for (int i = output.indexOf(THREAD_DUMP_END); i >= 0; i = output.indexOf(THREAD_DUMP_END, i + 1))
        {
            n++;
        }
        return n;
    }

    /** kill -9. */
    public void kill()
    {
        process.destroyForcibly();
        awaitEnd();
    }

    /** Up to 10 s for the process to end; an interrupt ends the wait and stays set. */
    private void awaitEnd()
    {
        try
        {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends a signal by name ({@code STOP} freezes the process, {@code CONT} resumes it); fails if kill fails. */
    public void signal(final String signal) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO()
            .start();
        if (kill.waitFor() != 0)
        {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    public long pid()
    {
        return process.pid();
    }

    public boolean isAlive()
    {
        return process.isAlive();
    }

    public String output()
    {
        try
        {
            return Files.exists(log) ? Files.readString(log) : "";
        }
        catch (final IOException ex)
        {
            return "<cannot read " + log + ": " + ex + ">";
        }
    }

    public String name()
    {
        return name;
    }

    @Override
    public void close()
    {
        if (process.isAlive() && MemberJvm.recording(process))
        {
            // the AOT record of its kind is written at exit, and kill -9 writes nothing: SIGTERM first
            process.destroy();
            awaitEnd();
        }
        if (process.isAlive())
        {
            kill();
        }
    }
}

package io.weft.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Starts member processes for demos with this JVM's java, class path and JVM flags (the launcher's flags reach
 * every process this way; under a test, the members' AOT cache too: {@link MemberJvm}), prefixes their output, and
 * kills them all if the demo is stopped or times out.
 */
public final class MemberProcesses implements AutoCloseable
{
    // a launcher's shutdown hook stops the processes while its command's thread may still be starting them
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final List<Thread> pumps = new CopyOnWriteArrayList<>();
    private final List<List<String>> lines = new CopyOnWriteArrayList<>();
    private final PrintStream out;
    private volatile boolean stopping;

    public MemberProcesses(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * Starts {@code main} with {@code args} in a new JVM with this JVM's java, class path and flags.
     *
     * @return the process's index for {@link #lines(int)} and {@link #process(int)}.
     */
    public int start(final String name, final Class<?> main, final List<String> args)
    {
        return start(name, main, List.of(), args);
    }

    /** {@link #start(String, Class, List)} with {@code jvmArgs} after this JVM's flags (heap size, collector). */
    public int start(final String name, final Class<?> main, final List<String> jvmArgs, final List<String> args)
    {
        return startWith(List.of(), name, main, jvmArgs, args);
    }

    /**
     * {@link #start(String, Class, List, List)} behind a command {@code prefix} that execs the JVM (for example
     * {@code ip netns exec NS}), so that the process and its pid are the JVM's.
     */
    public int startWith(final List<String> prefix, final String name, final Class<?> main, final List<String> jvmArgs,
        final List<String> args)
    {
        return start(prefix, name, main, jvmArgs, args, true, line -> true);
    }

    /** {@link #start(String, Class, List)} with the output captured only, not printed (a long listing). */
    public int startQuiet(final String name, final Class<?> main, final List<String> args)
    {
        return start(List.of(), name, main, List.of(), args, false, line -> true);
    }

    /**
     * {@link #start(String, Class, List)} that keeps, of the lines it prints, only those {@code kept} accepts for
     * {@link #lines(int)}: a command that runs for days and looks for a few lines holds no more (each line costs about
     * 200 bytes; `weft kv` kept every line its members printed, one per client that sent bad bytes).
     */
    public int startKeeping(final String name, final Class<?> main, final List<String> args,
        final Predicate<String> kept)
    {
        return start(List.of(), name, main, List.of(), args, true, kept);
    }

    private int start(final List<String> prefix, final String name, final Class<?> main, final List<String> jvmArgs,
        final List<String> args, final boolean echo, final Predicate<String> kept)
    {
        final List<String> flags = new ArrayList<>();
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!arg.startsWith("-agentlib") && !arg.startsWith("-javaagent") &&
                // this JVM's own parent, when a member starts members
                !arg.startsWith("-D" + ParentWatch.PROPERTY + "=") &&
                // this JVM's own AOT cache or record (of its kind, a launcher): its members are of other kinds
                !arg.startsWith("-XX:AOT") && !arg.startsWith("-Xlog:aot"))
            {
                flags.add(arg);
            }
        }
        flags.addAll(jvmArgs);
        try
        {
            final Process p = new ProcessBuilder(MemberJvm.command(prefix, flags, main, args, false))
                .redirectErrorStream(true).start();
            MemberJvm.started(p);
            processes.add(p);
            if (stopping) // terminate() or close() walked the list before this process was in it
            {
                p.destroy();
            }
            final List<String> captured = java.util.Collections.synchronizedList(new ArrayList<>());
            lines.add(captured);
            final Thread pump = Thread.ofPlatform().daemon(true).name("out-" + name).start(() ->
            {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8)))
                {
                    String line;
                    while ((line = r.readLine()) != null)
                    {
                        if (echo)
                        {
                            out.println("[" + name + "] " + line);
                        }
                        if (kept.test(line))
                        {
                            captured.add(line);
                        }
                    }
                }
                catch (final IOException ignored)
                {
                    // the process is gone
                }
            });
            pumps.add(pump);
            return processes.size() - 1;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + name, ex);
        }
    }

    /** Waits for every process; returns their exit codes, or null on timeout (after killing them). */
    public int[] awaitAll(final long timeoutNanos) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        final int[] codes = new int[processes.size()];
        for (int i = 0; i < codes.length; i++)
        {
            final long left = deadline - System.nanoTime();
            if (!processes.get(i).waitFor(Math.max(0, left), TimeUnit.NANOSECONDS))
            {
                return null;
            }
            codes[i] = processes.get(i).exitValue();
        }
        for (final Thread pump : pumps)
        {
            pump.join(5000);
        }
        return codes;
    }

    /** Waits up to {@code timeoutNanos} for process {@code i} to end and its output to be read; false on timeout. */
    public boolean await(final int i, final long timeoutNanos) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        if (!processes.get(i).waitFor(timeoutNanos, TimeUnit.NANOSECONDS))
        {
            return false;
        }
        pumps.get(i).join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        return !pumps.get(i).isAlive();
    }

    public Process process(final int i)
    {
        return processes.get(i);
    }

    /** Every line process {@code i} printed so far. */
    public List<String> lines(final int i)
    {
        synchronized (lines.get(i))
        {
            return List.copyOf(lines.get(i));
        }
    }

    /**
     * Asks every live process to stop: SIGTERM, which runs its shutdown hooks (a kv-member leaves its group gracefully;
     * the other member programs have no such hook, and their groups see them go as after a crash). A process started
     * after this call, or after {@link #close()}, gets SIGTERM as it starts.
     */
    public void terminate()
    {
        stopping = true; // before the walk: a start that adds its process after the walk sees it
        for (final Process p : processes)
        {
            if (p.isAlive())
            {
                p.destroy();
            }
        }
    }

    @Override
    public void close()
    {
        stopping = true;
        for (final Process p : processes)
        {
            if (p.isAlive())
            {
                p.destroyForcibly();
            }
        }
    }
}

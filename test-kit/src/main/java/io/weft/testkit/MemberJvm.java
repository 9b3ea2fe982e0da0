package io.weft.testkit;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * The class path and JDK AOT cache (JEP 483, JEP 515) of the member JVMs a test starts.
 * <p>
 * Three JVMs starting at once on two cores spend most of a short multi-process test loading, verifying and
 * interpreting classes: a three-member run of 4,500 messages took 3.7 s, 2.4 s with the cache. The first member started
 * through {@link MemberProcess} records which classes it loads and which methods run hot
 * ({@code -XX:AOTMode=record}); once it has exited normally (a killed member records nothing, so the next one records
 * instead), a background JVM creates the cache from that record, and every member started after that uses it.
 * A cache needs a class path of jars only, so the test class path's class directories are packed as jars first.
 * <p>
 * Enabled by system property {@code test.weft.aotCache}, a directory for the jars, the record and the cache (set by
 * surefire in the parent POM). Without it, or if anything in the chain fails, members get the plain test class path:
 * the cache only ever makes a start faster. When the JVM cannot use a cache it says so in the member's output.
 */
public final class MemberJvm
{
    /** Attempts to record before giving up: a recording member killed by its test records nothing. */
    private static final int MAX_RECORDS = 5;

    private enum Stage
    {
        RECORD, RECORDING, CREATING, READY, OFF
    }

    private static boolean initialised;
    private static Path dir;
    private static String classPath;
    private static Stage stage = Stage.OFF;
    private static int records;
    private static Process recorder;
    private static boolean recorderPending;
    private static List<String> recorderFlags = List.of();
    private static Process creator;

    private MemberJvm()
    {
    }

    /**
     * A member's command line: {@code prefix}, this JVM's {@code java}, the {@code flags}, the parent watch, the AOT
     * options and the class path, then {@code main} and its {@code args}. Pass the started process to
     * {@link #started(Process)}.
     *
     * @param mayRecord whether this member may be the one that records (the cache is created with its flags).
     */
    public static synchronized List<String> command(final List<String> prefix, final List<String> flags,
        final Class<?> main, final List<String> args, final boolean mayRecord)
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(java());
        command.addAll(flags);
        ParentWatch.addTo(command);
        init();
        advance();
        if (stage == Stage.READY)
        {
            command.add("-XX:AOTCache=" + cache());
        }
        else if (stage == Stage.RECORD && mayRecord)
        {
            recorderFlags = List.copyOf(flags);
            command.add("-XX:AOTMode=record");
            command.add("-XX:AOTConfiguration=" + configuration());
            // the recorder lists classes it cannot keep at exit: not the test's business
            command.add("-Xlog:aot=error");
            recorderPending = true;
        }
        command.add("-cp");
        command.add(classPath);
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    /** The process started with the command {@link #command} built last. */
    public static synchronized void started(final Process process)
    {
        if (recorderPending)
        {
            recorderPending = false;
            recorder = process;
            stage = Stage.RECORDING;
            records++;
        }
    }

    /** Moves on when the recorder or the creator has finished. */
    private static void advance()
    {
        if (stage == Stage.RECORDING && !recorder.isAlive())
        {
            if (recorder.exitValue() == 0 && Files.exists(configuration()))
            {
                create();
            }
            else
            {
                stage = records < MAX_RECORDS ? Stage.RECORD : Stage.OFF;
            }
        }
        else if (stage == Stage.CREATING && !creator.isAlive())
        {
            stage = creator.exitValue() == 0 && Files.exists(cache()) ? Stage.READY : Stage.OFF;
        }
    }

    private static void create()
    {
        final List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(recorderFlags);
        command.addAll(List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + configuration(),
            "-XX:AOTCache=" + cache(), "-Xlog:aot=error", "-cp", classPath));
        try
        {
            creator = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("create.log").toFile()).start();
            stage = Stage.CREATING;
        }
        catch (final IOException ex)
        {
            stage = Stage.OFF;
        }
    }

    private static void init()
    {
        if (initialised)
        {
            return;
        }
        initialised = true;
        classPath = System.getProperty("java.class.path");
        final String where = System.getProperty("test.weft.aotCache", "");
        if (where.isBlank())
        {
            return;
        }
        try
        {
            dir = Path.of(where);
            Files.createDirectories(dir);
            Files.deleteIfExists(configuration());
            Files.deleteIfExists(cache());
            classPath = jarsOnly(classPath);
            stage = Stage.RECORD;
        }
        catch (final IOException | UncheckedIOException ex)
        {
            classPath = System.getProperty("java.class.path");
        }
    }

    /** The class path with every non-empty directory replaced by a jar of it (a cache refuses directories). */
    private static String jarsOnly(final String path) throws IOException
    {
        final ToolProvider jar = ToolProvider.findFirst("jar")
            .orElseThrow(() -> new IOException("this JDK has no jar tool"));
        final List<String> entries = new ArrayList<>();
        for (final String entry : path.split(File.pathSeparator))
        {
            final Path p = Path.of(entry);
            if (Files.isDirectory(p) && !isEmpty(p))
            {
                final Path packed = dir.resolve(entries.size() + "-" + p.getFileName() + ".jar");
                Files.deleteIfExists(packed);
                final StringWriter err = new StringWriter();
                if (jar.run(new PrintWriter(new StringWriter()), new PrintWriter(err), "--create", "--file",
                    packed.toString(), "-C", p.toString(), ".") != 0)
                {
                    throw new IOException("jar of " + p + " failed: " + err);
                }
                entries.add(packed.toString());
            }
            else
            {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static boolean isEmpty(final Path directory) throws IOException
    {
        try (Stream<Path> s = Files.list(directory))
        {
            return s.findAny().isEmpty();
        }
    }

    private static String java()
    {
        return ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    private static Path configuration()
    {
        return dir.resolve("members.aotconf");
    }

    private static Path cache()
    {
        return dir.resolve("members.aot");
    }
}

package io.weft.testkit;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * The class path and JDK AOT caches (JEP 483, JEP 515) of the member JVMs a test starts, one cache per kind of member.
 * <p>
 * Three JVMs starting at once on two cores spend most of a short multi-process test loading, verifying and
 * interpreting classes: a three-member run of 4,500 messages took 3.7 s, 2.4 s with the cache. A cache helps only the
 * kind of member it was recorded from: a key-value member took 3.8 s of CPU to start and serve 200 writes without a
 * cache, 2.3 s with one recorded from a key-value member, and 3.8 s with one recorded from {@code weft --help}. So a
 * member's kind is its main class and subcommand ({@code Weft kv-member}, {@code McRun}, ...), apart for members
 * given C2 ({@link MemberProcess#WITH_C2}), and the second member of each kind started through {@link MemberProcess}
 * records which classes it loads and which methods run hot ({@code -XX:AOTMode=record}); once it has exited with its
 * record written (at any exit but kill -9, which writes nothing, so the next member of its kind records instead;
 * {@link MemberProcess#close()} ends a recorder with SIGTERM), a background JVM creates the kind's cache from that
 * record, and every member of that kind started after that uses it. Not the first: a record makes its member's exit
 * seconds longer and a cache costs a JVM to create, a loss for a kind that runs once (a launcher's test took 12.4 s
 * instead of 3.6 s).
 * A cache needs a class path of jars only, so the test class path's class directories are packed as jars first.
 * Members that a launcher under test starts ({@code weft kv}, {@code weft chaos}: {@link MemberProcesses}) record
 * nothing, but use the test's cache of their kind once it is complete (a file {@code KIND.ready} beside it, written
 * when the test JVM saw its creator succeed; {@value #READY_CACHES} names the directory).
 * <p>
 * Enabled by system property {@code test.weft.aotCache}, a directory for the jars, the records and the caches (set by
 * surefire in the parent POM). Without it, or if anything in the chain fails, members get the plain test class path:
 * a cache only ever makes a start faster. When the JVM cannot use a cache it says so in the member's output.
 */
public final class MemberJvm
{
    /** Set on every member: where a member that starts members of its own (a launcher) finds the ready caches. */
    static final String READY_CACHES = "test.weft.aotReadyCaches";
    /** Attempts to record a kind before giving up on it: a recording member killed by its test records nothing. */
    private static final int MAX_RECORDS = 5;

    private enum Stage
    {
        RECORD, RECORDING, CREATING, READY, OFF
    }

    /** One kind of member and where its cache stands. */
    private static final class Kind
    {
        final String name;
        Stage stage = Stage.RECORD;
        int starts;
        int records;
        Process recorder;
        List<String> recorderFlags = List.of();
        Process creator;

        Kind(final String name)
        {
            this.name = name;
        }

        Path configuration()
        {
            return dir.resolve(name + ".aotconf");
        }

        Path cache()
        {
            return cacheOf(name);
        }
    }

    private static final Map<String, Kind> KINDS = new HashMap<>();
    private static boolean initialised;
    private static boolean enabled;
    /** A launcher under a test: it records nothing, and uses the test's caches marked ready ({@link #ready}). */
    private static boolean useOnly;
    private static Path dir;
    private static String classPath;
    private static Kind pendingRecorder;

    private MemberJvm()
    {
    }

    /**
     * A member's command line: {@code prefix}, this JVM's {@code java}, the {@code flags}, the parent watch, the AOT
     * options and the class path, then {@code main} and its {@code args}. Pass the started process to
     * {@link #started(Process)}.
     *
     * @param mayRecord whether this member may be the one that records its kind (the cache is created with its flags).
     */
    public static synchronized List<String> command(final List<String> prefix, final List<String> flags,
        final Class<?> main, final List<String> args, final boolean mayRecord)
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(java());
        command.addAll(flags);
        ParentWatch.addTo(command);
        init();
        final String name = kindOf(main, args, flags);
        final Kind kind = enabled ? KINDS.computeIfAbsent(name, Kind::new) : null;
        if (useOnly && Files.exists(ready(name)))
        {
            command.add("-XX:AOTCache=" + cacheOf(name));
        }
        if (kind != null)
        {
            command.add("-D" + READY_CACHES + "=" + dir);
            KINDS.values().forEach(MemberJvm::advance); // a launcher started now sees every cache made by now
            kind.starts++;
            if (kind.stage == Stage.READY)
            {
                command.add("-XX:AOTCache=" + kind.cache());
            }
            else if (kind.stage == Stage.RECORD && mayRecord && kind.starts > 1 && record(kind))
            {
                kind.recorderFlags = List.copyOf(flags);
                command.add("-XX:AOTMode=record");
                command.add("-XX:AOTConfiguration=" + kind.configuration());
                // the recorder lists classes it cannot keep at exit: not the test's business
                command.add("-Xlog:aot=error");
                pendingRecorder = kind;
            }
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
        if (pendingRecorder != null)
        {
            pendingRecorder.recorder = process;
            pendingRecorder.stage = Stage.RECORDING;
            pendingRecorder.records++;
            pendingRecorder = null;
        }
    }

    /** Whether {@code process} is recording its kind's AOT record (written at its exit, but not at kill -9). */
    public static synchronized boolean recording(final Process process)
    {
        return KINDS.values().stream().anyMatch(k -> k.stage == Stage.RECORDING && k.recorder == process);
    }

    /**
     * A member's kind: its main class, where its first argument is a word (not an option, a path or a number) its
     * subcommand, and {@code -c2} if it was given C2 after the tests' C1 only ({@link MemberProcess#WITH_C2}, which
     * comes after the defaults): with a C1 member's cache such a member ran TotalOrderTest slower than with none
     * (63.9 s against 51.4 s). The members of a command a test runs in its own JVM (chaos) have C2 with no flag and
     * share the C1 members' caches: those start them faster than none (ChaosTest 34.0 s in a CI run, 36.2 and 38.8 s
     * without).
     */
    private static String kindOf(final Class<?> main, final List<String> args, final List<String> flags)
    {
        return main.getSimpleName() + (!args.isEmpty() && args.getFirst().matches("[a-z][a-z-]*") ? "-" +
            args.getFirst() : "") + (flags.containsAll(MemberProcess.WITH_C2) ? "-c2" : "");
    }

    /** Clears what an earlier record of this kind left; false if it cannot, and the kind goes without a cache. */
    private static boolean record(final Kind kind)
    {
        try
        {
            Files.deleteIfExists(kind.configuration());
            Files.deleteIfExists(kind.cache());
            return true;
        }
        catch (final IOException ex)
        {
            kind.stage = Stage.OFF;
            return false;
        }
    }

    /** Moves the kind on when its recorder or its creator has finished. */
    private static void advance(final Kind kind)
    {
        if (kind.stage == Stage.RECORDING && !kind.recorder.isAlive())
        {
            if (nonEmpty(kind.configuration())) // the JVM creates it at start and writes it at exit
            {
                create(kind);
            }
            else
            {
                again(kind);
            }
        }
        else if (kind.stage == Stage.CREATING && !kind.creator.isAlive())
        {
            if (kind.creator.exitValue() == 0 && Files.exists(kind.cache()) && markReady(kind))
            {
                kind.stage = Stage.READY;
            }
            else
            {
                again(kind); // a record cut short (its member killed as it wrote it) creates nothing
            }
        }
    }

    /** The cache of kind {@code name}: the test JVM's to make, a launcher's to use once {@link #ready}. */
    private static Path cacheOf(final String name)
    {
        return dir.resolve(name + ".aot");
    }

    /** Exists once the cache of kind {@code name} is complete; it stays so for the rest of the run. */
    private static Path ready(final String name)
    {
        return dir.resolve(name + ".ready");
    }

    private static boolean markReady(final Kind kind)
    {
        try
        {
            Files.writeString(ready(kind.name), "");
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static boolean nonEmpty(final Path file)
    {
        try
        {
            return Files.size(file) > 0;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static void again(final Kind kind)
    {
        kind.stage = kind.records < MAX_RECORDS ? Stage.RECORD : Stage.OFF;
    }

    private static void create(final Kind kind)
    {
        final List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(kind.recorderFlags);
        command.addAll(List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + kind.configuration(),
            "-XX:AOTCache=" + kind.cache(), "-Xlog:aot=error", "-cp", classPath));
        try
        {
            kind.creator = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(kind.name + ".create.log").toFile()).start();
            kind.stage = Stage.CREATING;
        }
        catch (final IOException ex)
        {
            kind.stage = Stage.OFF;
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
            final String made = System.getProperty(READY_CACHES, "");
            useOnly = !made.isBlank();
            dir = useOnly ? Path.of(made) : null;
            return;
        }
        try
        {
            dir = Path.of(where);
            Files.createDirectories(dir);
            try (Stream<Path> marks = Files.list(dir))
            {
                for (final Path mark : marks.filter(f -> f.toString().endsWith(".ready")).toList())
                {
                    Files.delete(mark); // an earlier run's: its cache was made from other jars
                }
            }
            classPath = jarsOnly(classPath);
            enabled = true;
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
}

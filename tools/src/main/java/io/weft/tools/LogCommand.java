package io.weft.tools;

import io.weft.config.ConfigLoader;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.WeftConfig;
import io.weft.dds.DomainParticipant;
import io.weft.dds.LoggedSample;
import io.weft.dds.SampleLog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/** {@code weft log}: prints a logged-storage topic's log at one member, follows it, or checks it. */
@Command(name = "log", description = "Print a logged-storage topic's samples (the flight recorder), follow new " +
    "ones as they are appended, or verify the log's integrity.")
final class LogCommand implements Callable<Integer>
{
    /** The file every Chronicle queue's directory holds (a log's is one). */
    private static final String METADATA = "metadata.cq4t";

    @Spec
    CommandSpec spec;

    @Option(names = "--config", description = "The domain's configuration file (with weft.dds.topics).")
    Path config;

    @Option(names = "--member", defaultValue = "0", description = "Whose log (member id, default ${DEFAULT-VALUE}).")
    int member;

    @Option(names = "--topic", description = "The logged topic.")
    String topic;

    @Option(names = "--path", description = "The log's directory, instead of --config, --member and --topic.")
    Path path;

    @Option(names = "--from", defaultValue = "0", description = "First position to print (default ${DEFAULT-VALUE}).")
    long from;

    @Option(names = "--follow", description = "Keep printing samples as they are appended, until interrupted.")
    boolean follow;

    @Option(names = "--verify", description = "Check every entry (positions in order, CRC-32C) and print a summary.")
    boolean verify;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception
    {
        if (from < 0)
        {
            return Weft.refuse("--from " + from + ": a position in the log is 0 or more");
        }
        final Path dir = directory();
        if (dir == null)
        {
            return Weft.EXIT_CONFIG;
        }
        if (Files.isDirectory(dir) && !Files.exists(dir.resolve(METADATA)))
        {
            return Weft.refuse("no log at " + dir + " (no " + METADATA + ": not a log's directory)");
        }
        try (SampleLog log = SampleLog.openReadOnly(dir))
        {
            if (verify)
            {
                final String bad = log.verify();
                if (bad != null)
                {
                    out.println("log " + dir + ": DAMAGED: " + bad + " (" + log.count() + " good entries before it)");
                    return 1;
                }
                out.println("log " + dir + ": OK: " + log.count() + " entries, positions 0.." + (log.count() - 1) +
                    " in order, every CRC-32C right");
                return 0;
            }
            if (follow)
            {
                final Thread main = Thread.currentThread();
                final boolean[] stop = {false};
                Runtime.getRuntime().addShutdownHook(new Thread(() ->
                {
                    stop[0] = true;
                    main.interrupt();
                }));
                final Moved moved = new Moved(dir);
                try
                {
                    log.follow(from, () -> stop[0] || out.checkError() || moved.now(), this::print);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
                if (moved.now())
                {
                    System.err.println("weft: the log at " + dir + " was moved away or removed, nothing more will " +
                        "be appended to the one followed (a deleted topic's log moves to member-<id>.deleted/ " +
                        "beside the member's logs)");
                    return 1;
                }
                return 0;
            }
            final long end = log.read(from, out::checkError, this::print);
            if (!out.checkError()) // else the reader went (a pipe into head): nothing more to say
            {
                System.err.println("weft: " + Math.max(0, end - from) + " samples from position " + from + " of " +
                    dir + (end < from ? " (it holds " + end + " samples)" : ""));
            }
            return 0;
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            System.err.println("weft: " + ex.getMessage());
            return 1;
        }
    }

    /**
     * Whether the directory followed is no longer at its path, or another is there now (a deleted topic's log is moved
     * aside, a topic created again gets a new one): looked at every half second.
     */
    private static final class Moved
    {
        private final Path dir;
        private final Object key;
        private long next;
        private boolean moved;

        Moved(final Path dir) throws IOException
        {
            this.dir = dir;
            this.key = key(dir);
            this.next = System.nanoTime(); // nanoTime may be negative: no fixed origin
        }

        boolean now()
        {
            final long t = System.nanoTime();
            if (!moved && t - next >= 0)
            {
                next = t + 500_000_000L;
                try
                {
                    moved = !Objects.equals(key, key(dir));
                }
                catch (final IOException gone)
                {
                    moved = true;
                }
            }
            return moved;
        }

        private static Object key(final Path dir) throws IOException
        {
            return Files.readAttributes(dir, BasicFileAttributes.class).fileKey(); // device and inode (null: none)
        }
    }

    private Path directory()
    {
        if (path != null && (config != null || topic != null || spec.commandLine().getParseResult()
            .hasMatchedOption("--member")))
        {
            Weft.refuse("give --path DIR, or --config FILE and --topic NAME (and --member ID), not both");
            return null;
        }
        if (path != null)
        {
            return path;
        }
        if (config == null || topic == null)
        {
            Weft.refuse("give --path DIR, or --config FILE and --topic NAME (and --member ID)");
            return null;
        }
        final WeftConfig c = ConfigLoader.load(config, Map.of("weft.member.id", member));
        final TopicConfig t;
        try
        {
            t = c.dds().topic(topic);
        }
        catch (final IllegalArgumentException unknown) // names the declared ones
        {
            Weft.refuse(unknown.getMessage() + " of " + config);
            return null;
        }
        if (t.qos() != QosLevel.LOGGED_STORAGE)
        {
            Weft.refuse("topic " + topic + " is " + t.qos().configName() + ", not logged-storage: it has no log");
            return null;
        }
        return DomainParticipant.logDirectory(c, topic);
    }

    private void print(final LoggedSample s)
    {
        out.printf("%d publisher=%d nanos=%d length=%d %s%n", s.position(), s.publisherId(), s.sourceNanos(),
            s.payload().length, render(s.payload()));
    }

    /** UTF-8 text when the payload is printable text, else hex (the first 64 bytes). */
    private static String render(final byte[] payload)
    {
        try
        {
            final String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .decode(java.nio.ByteBuffer.wrap(payload)).toString();
            if (text.chars().allMatch(ch -> ch >= 0x20 || ch == '\t'))
            {
                return "text=" + text;
            }
        }
        catch (final CharacterCodingException ignored)
        {
            // not text
        }
        final int shown = Math.min(64, payload.length);
        return "hex=" + HexFormat.of().formatHex(payload, 0, shown) + (shown < payload.length ? "..." : "");
    }
}

package io.weft.tools;

import io.weft.dds.SampleLog;
import io.weft.testkit.MemberJvm;
import io.weft.testkit.MemberProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code weft log} on a log written here: bad arguments are refused by name, a damaged entry is found by
 * {@code --verify}, and a reader that goes away (a pipe into head) ends the command quietly, {@code --follow} too.
 */
@Timeout(120)
class LogCommandTest
{
    private static final int SAMPLES = 3_000;

    @TempDir
    Path dir;

    @Test
    void badArgumentsAreRefusedByName() throws Exception
    {
        final Path log = write();
        final Path conf = Files.writeString(dir.resolve("domain.conf"), """
            weft {
              group.members = [{ id = 0, host = "127.0.0.1", sst-port = 7000, control-port = 7001 }]
              dds.topics = [{ name = record, id = 1, qos = logged-storage, publishers = [0] }]
            }
            """);
        // each went on: a stack trace, 5 samples more than the log holds, a directory that holds no log read as an
        // empty one (with Chronicle's warning), --path silently preferred
        refused("no topic named 'nosuch' in weft.dds.topics [record] of " + conf, "--config", conf.toString(),
            "--topic", "nosuch");
        refused("--from -5: a position in the log is 0 or more", "--path", log.toString(), "--from", "-5");
        refused("no log at " + dir + " (no metadata.cq4t: not a log's directory)", "--path", dir.toString());
        refused("give --path DIR, or --config FILE and --topic NAME (and --member ID), not both", "--path",
            log.toString(), "--topic", "record");
        final CommandRun past = CommandRun.of("log", "--path", log.toString(), "--from", "99999");
        assertEquals(0, past.code());
        assertTrue(past.errors().contains("0 samples from position 99999 of " + log + " (it holds " + SAMPLES +
            " samples)"), past.errors());
        final CommandRun tail = CommandRun.of("log", "--path", log.toString(), "--from", String.valueOf(SAMPLES - 2));
        assertEquals(List.of(SAMPLES - 2 + " publisher=0 ", SAMPLES - 1 + " publisher=0 "), tail.output().lines()
            .map(l -> l.substring(0, l.indexOf("nanos"))).toList());
    }

    @Test
    void verifyNamesTheFirstDamagedEntry() throws Exception
    {
        final Path log = write();
        assertTrue(CommandRun.of("log", "--path", log.toString(), "--verify").output().contains(": OK: " + SAMPLES +
            " entries"));
        final byte[] text = "sample 1234".getBytes(StandardCharsets.US_ASCII);
        try (Stream<Path> files = Files.list(log))
        {
            final Path cycle = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
            final byte[] bytes = Files.readAllBytes(cycle);
            final int at = indexOf(bytes, text);
            assertTrue(at > 0, "sample 1234's payload is in " + cycle);
            bytes[at + 7] ^= 1; // '1' becomes '0': the same length, the CRC no longer matches
            Files.write(cycle, bytes);
        }
        final CommandRun verify = CommandRun.of("log", "--path", log.toString(), "--verify");
        assertEquals(1, verify.code(), verify.output());
        assertTrue(verify.output().contains(": DAMAGED: ") && verify.output().contains("1234") &&
            verify.output().contains("(1234 good entries before it)"), verify.output());
    }

    @ParameterizedTest(name = "follow={0}")
    @ValueSource(booleans = {false, true})
    void aReaderThatGoesAwayEndsTheCommandQuietly(final boolean follow) throws Exception
    {
        final Path log = write();
        final List<String> args = new ArrayList<>(List.of("log", "--path", log.toString()));
        if (follow)
        {
            args.add("--follow");
        }
        final List<String> command = new ArrayList<>(List.of("bash", "-c", "set -o pipefail; \"$@\" | head -n 3",
            "bash"));
        command.addAll(MemberJvm.command(List.of(), MemberProcess.memberFlags(), Weft.class, args, false));
        try (MemberProcess p = MemberProcess.run("head-" + follow, dir, command))
        {
            // --follow printed on into the closed pipe, waiting for more, until interrupted; both printed the
            // JVM's "Broken pipe" stack trace at exit
            final int code = p.awaitExit(Duration.ofSeconds(60));
            final String out = p.output();
            assertEquals(0, code, out);
            assertEquals(3, out.lines().filter(l -> l.matches("\\d+ publisher=0 .*text=sample \\d+")).count(), out);
            assertFalse(out.contains("Exception") || out.contains("Broken pipe"), out);
        }
    }

    /** A followed log moved away (a deleted topic's log is moved aside) ends the follow; it waited for ever. */
    @Test
    void aFollowedLogMovedAwayEndsTheFollow() throws Exception
    {
        final Path log = write();
        final List<String> command = MemberJvm.command(List.of(), MemberProcess.memberFlags(), Weft.class,
            List.of("log", "--path", log.toString(), "--follow"), false);
        try (MemberProcess p = MemberProcess.run("follow", dir, command))
        {
            p.awaitOutput(SAMPLES - 1 + " publisher=0 ", Duration.ofSeconds(60));
            Files.move(log, dir.resolve("record-deleted"));
            final int code = p.awaitExit(Duration.ofSeconds(30));
            assertEquals(1, code, p.output());
            assertTrue(p.output().contains("weft: the log at " + log + " was moved away or removed, nothing more " +
                "will be appended to the one followed"), p.output());
        }
    }

    private void refused(final String message, final String... args)
    {
        final String[] line = Stream.concat(Stream.of("log"), Stream.of(args)).toArray(String[]::new);
        final CommandRun run = CommandRun.of(line);
        assertEquals(Weft.EXIT_CONFIG, run.code(), run.errors());
        assertEquals("weft: " + message, run.errors().strip());
    }

    /** A log of {@link #SAMPLES} text samples, at positions 0 on. */
    private Path write()
    {
        final Path log = dir.resolve("logs").resolve("record");
        try (SampleLog l = SampleLog.open(log, false))
        {
            for (int i = 0; i < SAMPLES; i++)
            {
                final byte[] payload = ("sample " + i).getBytes(StandardCharsets.US_ASCII);
                l.append(0, i, payload, payload.length);
            }
        }
        return log;
    }

    private static int indexOf(final byte[] bytes, final byte[] text)
    {
        for (int i = 0; i + text.length <= bytes.length; i++)
        {
            if (java.util.Arrays.equals(bytes, i, i + text.length, text, 0, text.length))
            {
                return i;
            }
        }
        return -1;
    }
}

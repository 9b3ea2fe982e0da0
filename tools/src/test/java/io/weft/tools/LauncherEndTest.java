package io.weft.tools;

import io.weft.testkit.MemberProcess;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A launcher stopped with SIGTERM while its members run (as Ctrl-C stops it) ends them and removes its temporary
 * directory. The demo and sst-demo left their configuration there, the avionics demo every member's log (1.3 MB after
 * 15 s); the launcher runs with a temporary directory of the test's own.
 */
@Timeout(120)
class LauncherEndTest
{
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "demo|member 0: group open|--duration=60s",
        "sst-demo|member 0: table open|--count=1000000000",
        "avionics|avionics: steady flight|--hold=60s"})
    void aLauncherStoppedWithSigtermEndsItsMembersAndRemovesItsDirectory(final String command, final String running,
        final String longRun) throws Exception
    {
        final Path tmp = Files.createDirectories(dir.resolve("tmp"));
        try (MemberProcess launcher = MemberProcess.start(List.of("-Djava.io.tmpdir=" + tmp), command, dir,
            Weft.class, command, longRun))
        {
            launcher.awaitOutput(running, Duration.ofSeconds(60));
            final List<ProcessHandle> members = ProcessHandle.of(launcher.pid()).orElseThrow().descendants().toList();
            assertTrue(members.size() >= 3, "members run: " + members);
            try (Stream<Path> made = Files.list(tmp))
            {
                assertEquals(1, made.count(), "the launcher's directory is there while it runs");
            }
            launcher.signal("TERM");
            launcher.awaitExit(Duration.ofSeconds(60));
            for (final ProcessHandle m : members)
            {
                m.onExit().get(); // each ends (its parent watch would end it too, later)
            }
            try (Stream<Path> left = Files.list(tmp))
            {
                assertEquals(List.of(), left.toList(), launcher.output());
            }
        }
    }
}

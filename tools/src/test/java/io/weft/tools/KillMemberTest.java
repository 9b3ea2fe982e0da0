package io.weft.tools;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of one member mid-run: the others neither hang nor crash, and their transport reports the failure. On shm
 * they also remove the killed member's table file, which it could not remove itself.
 */
@Timeout(180)
class KillMemberTest
{
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void survivorsReportTheKilledMemberAndFinish(final TransportKind kind) throws Exception
    {
        final WeftConfig config = TestGroups.config(kind, 3);
        final Path file = TestGroups.write(config, dir);
        final long count = kind == TransportKind.SHM ? 20_000_000 : 500_000; // tcp: a push per write
        try (Members members = new Members(config))
        {
            for (int i = 0; i < 3; i++)
            {
                members.add(MemberProcess.start("m" + i, dir, Weft.class, "sst-member", "--config", file.toString(),
                    "--member", String.valueOf(i), "--count", String.valueOf(count), "--timeout", "PT2M"));
            }
            final MemberProcess victim = members.processes().get(2);
            victim.awaitOutput("member 2: wrote " + count / 10 + "/", Duration.ofSeconds(60));
            victim.kill();
            for (int i = 0; i < 2; i++)
            {
                final MemberProcess survivor = members.processes().get(i);
                survivor.awaitOutput("member " + i + ": member 2 failed:", Duration.ofSeconds(30));
                final int code = survivor.awaitExit(Duration.ofSeconds(150));
                final String out = survivor.output();
                assertEquals(SstMember.EXIT_MEMBER_FAILED, code, out);
                assertTrue(out.contains("violations=0"), out);
                assertTrue(out.contains("saw every live member's counter reach " + count), out);
            }
            if (kind == TransportKind.SHM)
            {
                final Path shm = config.transport().shm().directory();
                try (var left = Files.list(shm))
                {
                    final List<Path> files = left.filter(f -> f.getFileName().toString()
                        .startsWith("weft-" + config.group().name() + "-")).toList();
                    assertEquals(List.of(), files, "table files left in " + shm);
                }
            }
        }
    }
}

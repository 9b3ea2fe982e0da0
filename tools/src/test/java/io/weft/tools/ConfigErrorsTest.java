package io.weft.tools;

import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A member process with a bad configuration fails at start, names the key, and exits non-zero. */
@Timeout(60)
class ConfigErrorsTest
{
    private static final String MEMBER = "{ id = 0, host = \"127.0.0.1\", sst-port = 7000, control-port = 7001 }";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown key|weft { group.members = [" + MEMBER + "], transport.knid = tcp }|weft.transport.knid",
        "wrong type|weft { group.members = [" + MEMBER + "], idle.max-spins = many }|weft.idle.max-spins",
        "out of range|weft { group.members = [" + MEMBER + "], transport.tcp.send-buffer = 1 KiB }|weft.transport.tcp.send-buffer",
        "bad choice|weft { group.members = [" + MEMBER + "], transport.kind = carrier-pigeon }|weft.transport.kind",
        "missing file|<none>|nope.conf"})
    void badConfigurationStopsTheMemberNamingTheKey(final String name, final String text, final String key)
        throws Exception
    {
        final Path file = dir.resolve(text.equals("<none>") ? "nope.conf" : "bad.conf");
        if (!text.equals("<none>"))
        {
            Files.writeString(file, text);
        }
        final MemberProcess p = MemberProcess.start("bad", dir, Weft.class, "sst-member", "--config", file.toString(),
            "--member", "0", "--count", "1");
        final int code = p.awaitExit(Duration.ofSeconds(30));
        final String out = p.output();
        assertEquals(Weft.EXIT_CONFIG, code, out);
        assertTrue(out.contains("configuration error") && out.contains(key), out);
    }

    /** mc-member --then: a bad file among the further groups' stops the member before its first group opens. */
    @Test
    void aBadFurtherGroupStopsTheMemberBeforeItsFirstGroupOpens() throws Exception
    {
        final Path good = TestGroups.write(TestGroups.builder(TransportKind.SHM, 2)
            .subgroups(List.of(SubgroupConfig.allMembers("g", 16, 64))).build(), dir);
        final Path bad = Files.writeString(dir.resolve("bad.conf"),
            "weft { group.members = [" + MEMBER + "], idle.max-spins = many }");
        final MemberProcess p = MemberProcess.start("then", dir, Weft.class, "mc-member", "--config", good.toString(),
            "--member", "0", "--then", bad.toString());
        final int code = p.awaitExit(Duration.ofSeconds(30));
        final String out = p.output();
        assertEquals(Weft.EXIT_CONFIG, code, out);
        assertTrue(out.contains("configuration error") && out.contains("weft.idle.max-spins"), out);
        assertFalse(out.contains("group open"), out);
    }
}

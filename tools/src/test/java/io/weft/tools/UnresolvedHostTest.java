package io.weft.tools;

import io.weft.config.MemberAddress;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A host name in weft.group.members that does not resolve (or not yet: a peer's name may come with the peer) is a
 * transport error naming it: a member dials such a peer again until its connect timeout, and a member whose own host
 * does not resolve refuses to start. Before, the dial's unchecked UnresolvedAddressException ended the tcp selector
 * thread ("tcp selector thread failed"), and the listen's came out of the start as a stack trace, exit 1. The member
 * JVMs resolve names from a hosts file of their own ({@code jdk.net.hosts.file}): no lookup leaves this host.
 */
@Timeout(90)
class UnresolvedHostTest
{
    private static final String NOWHERE = "peer-one.weft.invalid";

    @TempDir
    Path dir;

    @Test
    void aHostThatDoesNotResolveIsATransportErrorNamingIt() throws Exception
    {
        final WeftConfig local = TestGroups.config(TransportKind.TCP, 2);
        final MemberAddress zero = local.group().members().get(0);
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 2).members(List.of(
            new MemberAddress(0, NOWHERE, zero.sstPort(), zero.controlPort()), local.group().members().get(1)))
            .connectTimeout(Duration.ofSeconds(3)).subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .build();
        final Path file = TestGroups.write(config, dir);
        final List<String> hosts = List.of("-Djdk.net.hosts.file=" + Files.writeString(dir.resolve("hosts"),
            "127.0.0.1 localhost\n"));

        // member 1 dials member 0 (a member dials those ranked below it)
        final MemberProcess dialling = MemberProcess.start(hosts, "dialling", dir, Weft.class, "sst-member",
            "--config", file.toString(), "--member", "1", "--count", "1");
        final int dialled = dialling.awaitExit(Duration.ofSeconds(60));
        final String out = dialling.output();
        assertEquals(Weft.EXIT_TRANSPORT, dialled, out);
        assertTrue(out.contains("timed out after PT3S waiting for members [0]") && out.contains("member 0's host " +
            NOWHERE + " does not resolve (weft.group.members)"), out);
        assertFalse(out.contains("selector thread failed"), out);

        final MemberProcess listening = MemberProcess.start(hosts, "listening", dir, Weft.class, "vs-member",
            "--config", file.toString(), "--member", "0", "--dir", dir.resolve("vs").toString());
        final int listened = listening.awaitExit(Duration.ofSeconds(60));
        final String refused = listening.output();
        assertTrue(refused.contains("cannot listen on " + NOWHERE + ":") && refused.contains("(member 0's ") &&
            refused.contains(": " + NOWHERE + " does not resolve (weft.group.members)"), refused);
        assertFalse(refused.contains("UnresolvedAddressException") || refused.contains("another process"), refused);
        assertEquals(Weft.EXIT_TRANSPORT, listened, refused);
    }
}

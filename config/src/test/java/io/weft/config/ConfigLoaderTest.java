package io.weft.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigLoaderTest
{
    private static final Path SAMPLES = Path.of("samples");

    @TempDir
    Path dir;

    @Test
    void samplesLoadForEveryMember()
    {
        for (final String sample : new String[] {"local-shm-3.conf", "local-tcp-3.conf"})
        {
            for (int id = 0; id < 3; id++)
            {
                final WeftConfig c = ConfigLoader.load(SAMPLES.resolve(sample), Map.of("weft.member.id", id));
                assertEquals(id, c.memberId());
                assertEquals(id, c.rank());
                assertEquals(3, c.group().size());
                assertEquals(Duration.ofSeconds(30), c.transport().connectTimeout());
                assertEquals(IdleStrategyKind.BACKOFF, c.idle().strategy());
            }
        }
        assertEquals(TransportKind.TCP,
            ConfigLoader.load(SAMPLES.resolve("local-tcp-3.conf"), Map.of("weft.member.id", 0)).transport().kind());
    }

    @Test
    void renderedConfigReadsBackEqual() throws IOException
    {
        final WeftConfig c = WeftConfig.builder().memberId(2).localGroup("round-trip", 4, 9000)
            .transport(TransportKind.TCP).connectTimeout(Duration.ofMillis(1500))
            .subgroups(java.util.List.of(SubgroupConfig.allMembers("all", 50, 128),
                new SubgroupConfig("pair", java.util.List.of(1, 2), java.util.List.of(2), 8, 10240, DeliveryMode.UNORDERED)))
            .smc(new SmcConfig(true, false, true, false, true, false, false))
            .rdma(RdmaOptions.verbs(new VerbsOptions("/opt/rdma-core/lib/libibverbs.so.1", "mlx5_1", 2, 3))
                .withThreading(TransportThreading.MERGED)).build();
        final Path file = Files.writeString(dir.resolve("c.conf"), ConfigWriter.render(c));
        assertEquals(c, ConfigLoader.load(file));
    }

    @Test
    void systemPropertiesOverrideTheFileAndOverridesWinOverBoth() throws IOException
    {
        final Path file = write(oneMemberWith("idle.max-spins = 5"));
        System.setProperty("weft.idle.max-spins", "7");
        try
        {
            assertEquals(7, ConfigLoader.load(file).idle().maxSpins());
            assertEquals(9, ConfigLoader.load(file, Map.of("weft.idle.max-spins", 9)).idle().maxSpins());
        }
        finally
        {
            System.clearProperty("weft.idle.max-spins");
        }
    }

    /** The documented process switch once made every member refuse its configuration ("unknown key"). */
    @Test
    void theMembarrierSwitchIsAJvmPropertyNotAKey() throws IOException
    {
        final Path file = write("weft { member.id = 0, group.members = " + oneMember() + " }");
        System.setProperty(ProcessBarrier.DISABLED_PROPERTY, "true");
        try
        {
            assertEquals(0, ConfigLoader.load(file).memberId());
        }
        finally
        {
            System.clearProperty(ProcessBarrier.DISABLED_PROPERTY);
        }
        final Path inFile = write("weft { member.id = 0, group.members = " + oneMember() +
            ", membarrier.disabled = true }");
        final WeftConfigException ex = assertThrows(WeftConfigException.class, () -> ConfigLoader.load(inFile));
        assertTrue(ex.getMessage().contains("weft.membarrier.disabled"), ex.getMessage());
        assertTrue(ex.getMessage().contains("JVM system property"), ex.getMessage());
    }

    @Test
    void unknownKeyIsNamed() throws IOException
    {
        final WeftConfigException ex = refused(oneMemberWith("transport.knd = tcp"));
        assertEquals("weft.transport.knd", ex.key());
        assertTrue(ex.getMessage().contains("unknown key"), ex.getMessage());
    }

    @Test
    void unknownKeyInsideAMemberIsNamed() throws IOException
    {
        final WeftConfigException ex = refused("weft { member.id = 0, group.members = [ { id = 0, " +
            "host = \"127.0.0.1\", sst-port = 7000, control-port = 7001, colour = red } ] }");
        assertEquals("weft.group.members[0].colour", ex.key());
    }

    @Test
    void wrongTypeIsNamed() throws IOException
    {
        final WeftConfigException ex = refused(oneMemberWith("idle.max-park = lots"));
        assertEquals("weft.idle.max-park", ex.key());
        assertTrue(ex.getMessage().contains("\"lots\"") && ex.getMessage().contains("duration"), ex.getMessage());
    }

    @Test
    void everyTypeOfValueIsCheckedAndNamed() throws IOException
    {
        assertRefused("idle.max-spins = many", "weft.idle.max-spins", "\"many\": must be a whole number");
        assertRefused("transport.tcp.no-delay = maybe", "weft.transport.tcp.no-delay", "must be true or false");
        assertRefused("group.name = [a, b]", "weft.group.name", "must be a string");
        assertRefused("transport.tcp.send-buffer = huge", "weft.transport.tcp.send-buffer", "must be a size such as");
        assertRefused("transport.tcp.send-buffer = 3 GiB", "weft.transport.tcp.send-buffer", "must be below 2 GiB");
    }

    @Test
    void outOfRangeValueIsNamedWithWhatIsAllowed() throws IOException
    {
        final WeftConfigException ex = refused("weft { member.id = 0, group.members = [ { id = 0, " +
            "host = \"127.0.0.1\", sst-port = 70000, control-port = 7001 } ] }");
        assertEquals("weft.group.members[].sst-port", ex.key());
        assertTrue(ex.getMessage().contains("70000") && ex.getMessage().contains("1..65535"), ex.getMessage());
    }

    /** A member's file with {@code setting} is refused, the error naming {@code key} and containing {@code allowed}. */
    private void assertRefused(final String setting, final String key, final String allowed) throws IOException
    {
        final WeftConfigException ex = refused(oneMemberWith(setting));
        assertEquals(key, ex.key());
        assertTrue(ex.getMessage().contains(allowed), ex.getMessage());
    }

    @Test
    void badEnumListsTheChoices() throws IOException
    {
        assertRefused("transport.kind = udp", "weft.transport.kind", "shm, tcp, rdma");
    }

    @Test
    void yieldAfterWorkIsCheckedByNameAndAutoFollowsTheCores() throws IOException
    {
        assertRefused("idle.yield-after-work = sometimes", "weft.idle.yield-after-work", "always, never, auto");
        final WeftConfig auto = ConfigLoader.load(write("weft { member.id = 0, group.members = " + oneMember() + " }"));
        assertEquals(YieldAfterWork.AUTO, auto.idle().yieldAfterWork());
        assertEquals(Runtime.getRuntime().availableProcessors() < Cores.SCARCE_BELOW,
            auto.idle().yieldAfterWork().yields());
        assertTrue(YieldAfterWork.ALWAYS.yields());
        assertTrue(!YieldAfterWork.NEVER.yields());
    }

    @Test
    void rdmaBackendAndVerbsOptionsAreCheckedByName() throws IOException
    {
        assertRefused("transport.rdma.backend = psm", "weft.transport.rdma.backend", "libfabric, verbs");
        assertRefused("transport.rdma.verbs.port = 0", "weft.transport.rdma.verbs.port", "1 .. 255");
        assertRefused("transport.rdma.threading = shared", "weft.transport.rdma.threading", "separate, merged, auto");
        final WeftConfigException device = refused(oneMemberWith("transport.rdma.verbs.device = \"a b\""));
        assertEquals("weft.transport.rdma.verbs.device", device.key());
        final WeftConfig ok = ConfigLoader.load(write("weft { member.id = 0, group.members = " + oneMember() +
            ", transport.rdma { backend = verbs, verbs { device = mlx5_0, port = 2, gid-index = 3 } } }"));
        assertEquals(new RdmaOptions(RdmaBackend.VERBS, "tcp;ofi_rxm", new VerbsOptions("libibverbs.so.1", "mlx5_0", 2, 3)),
            ok.transport().rdma());
    }

    @Test
    void memberIdMustBeInTheGroup() throws IOException
    {
        final WeftConfigException ex = refused("weft { group.members = " + oneMember() + " }");
        assertEquals("weft.member.id", ex.key());
    }

    @Test
    void missingFileIsNamed()
    {
        final Path missing = dir.resolve("nope.conf");
        final WeftConfigException ex = assertThrows(WeftConfigException.class, () -> ConfigLoader.load(missing));
        assertTrue(ex.getMessage().contains(missing.toString()), ex.getMessage());
    }

    @Test
    void duplicateIdsAndPortsAreRefused()
    {
        assertThrows(WeftConfigException.class, () -> new GroupConfig("g", java.util.List.of(
            new MemberAddress(1, "127.0.0.1", 7000, 7001), new MemberAddress(1, "127.0.0.1", 7002, 7003))));
        assertThrows(WeftConfigException.class, () -> new GroupConfig("g", java.util.List.of(
            new MemberAddress(1, "127.0.0.1", 7000, 7001), new MemberAddress(2, "127.0.0.1", 7000, 7003))));
    }

    @Test
    void subgroupsTakeDefaultsAndAreValidated() throws IOException
    {
        final Path ok = write("weft { member.id = 0, group.members = " + oneMember() + ", subgroups = [ { name = a }, " +
            "{ name = b, senders = [0], window = 7, max-payload = 10 KiB, mode = unordered } ] }");
        final WeftConfig c = ConfigLoader.load(ok);
        assertEquals(SubgroupConfig.autoWindow(c.transport().kind(), 1024), c.subgroup("a").window());
        assertEquals(1024, c.subgroup("a").maxPayload());
        assertEquals(java.util.List.of(0), c.subgroup("a").senderIds(c.group()));
        assertEquals(10240, c.subgroup("b").maxPayload());
        assertEquals(DeliveryMode.UNORDERED, c.subgroup("b").mode());
        assertTrue(c.smc().nullSends());

        final Path badSender = write("weft { member.id = 0, group.members = " + oneMember() +
            ", subgroups = [ { name = a, senders = [5] } ] }");
        assertEquals("weft.subgroups[a].senders", assertThrows(WeftConfigException.class, () -> ConfigLoader.load(badSender)).key());
        final Path badKey = write("weft { member.id = 0, group.members = " + oneMember() +
            ", subgroups = [ { name = a, windw = 5 } ] }");
        assertEquals("weft.subgroups[0].windw", assertThrows(WeftConfigException.class, () -> ConfigLoader.load(badKey)).key());
        final Path badWindow = write("weft { member.id = 0, group.members = " + oneMember() +
            ", subgroups = [ { name = a, window = 0 } ] }");
        assertEquals("weft.subgroups[a].window", assertThrows(WeftConfigException.class, () -> ConfigLoader.load(badWindow)).key());
    }

    @Test
    void failureTimeoutMustExceedTwoHeartbeats()
    {
        final WeftConfigException ex = assertThrows(WeftConfigException.class,
            () -> new FailureConfig(Duration.ofMillis(100), Duration.ofMillis(150)));
        assertEquals("weft.failure.failure-timeout", ex.key());
    }

    private static String oneMember()
    {
        return "[ { id = 0, host = \"127.0.0.1\", sst-port = 7000, control-port = 7001 } ]";
    }

    /** A one-member configuration with {@code setting} added. */
    private static String oneMemberWith(final String setting)
    {
        return "weft { member.id = 0, group.members = " + oneMember() + ", " + setting + " }";
    }

    /** The loader's refusal of a file holding {@code text}. */
    private WeftConfigException refused(final String text) throws IOException
    {
        final Path file = write(text);
        return assertThrows(WeftConfigException.class, () -> ConfigLoader.load(file));
    }

    private Path write(final String text) throws IOException
    {
        return Files.writeString(dir.resolve("test-" + System.nanoTime() + ".conf"), text);
    }
}

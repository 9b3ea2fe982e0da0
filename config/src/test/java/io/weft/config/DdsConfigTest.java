package io.weft.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The weft.dds section: topics become subgroups, read back equal, and every mistake is named. */
class DdsConfigTest
{
    private static final String MEMBERS = "group.members = [ { id = 0, host = \"127.0.0.1\", sst-port = 7000, " +
        "control-port = 7001 }, { id = 1, host = \"127.0.0.1\", sst-port = 7002, control-port = 7003 } ]";

    @TempDir
    Path dir;

    private WeftConfig load(final String dds) throws IOException
    {
        return ConfigLoader.load(Files.writeString(dir.resolve("d.conf"), "weft { member.id = 0, " + MEMBERS +
            ", dds { " + dds + " } }"));
    }

    private WeftConfigException refused(final String dds)
    {
        return assertThrows(WeftConfigException.class, () -> load(dds));
    }

    @Test
    void topicsBecomeSubgroupsWithTheirQos() throws IOException
    {
        final WeftConfig c = load("topics = [ { name = position, id = 1, qos = unordered, publishers = [0] }, " +
            "{ name = plan, id = 2, publishers = [0], subscribers = [1] }, " +
            "{ name = engine, id = 3, qos = volatile-storage, publishers = [1], subscribers = [1], history = 4 } ]");
        assertEquals(3, c.dds().topics().size());
        final SubgroupConfig position = c.subgroup("dds.position");
        assertEquals(DeliveryMode.UNORDERED, position.mode());
        assertEquals(List.of(0), position.senders());
        assertEquals(List.of(0, 1), c.subgroup("dds.plan").members());
        assertEquals(QosLevel.ATOMIC_MULTICAST, c.dds().topic("plan").qos());
        assertEquals(List.of(), c.subgroup("dds.engine").members(), "storage topics are kept by every member");
        assertEquals(4, c.dds().topic("engine").history());
        assertEquals(1024, c.dds().topic("engine").maxSample());
        assertTrue(c.dds().logDropBehind(), "logs drop their pages behind the appender unless told not to");
    }

    @Test
    void aKeyedHistoryIsReadAndEveryMistakeNamed() throws IOException
    {
        final WeftConfig c = load("topics = [ { name = engine, id = 3, qos = volatile-storage, history = 4, " +
            "key = { offset = 8, length = 2 } } ]");
        assertEquals(new SampleKey(8, 2, 4096), c.dds().topic("engine").key());
        assertEquals(null, load("topics = [ { name = e, id = 3, qos = volatile-storage } ]").dds().topic("e").key());
        assertTrue(refused("topics = [ { name = e, id = 3, qos = volatile-storage, key = { offset = 0, length = 9 } } ]")
            .getMessage().contains("length = 9: must be 1..8 bytes"));
        assertTrue(refused("topics = [ { name = e, id = 3, qos = volatile-storage, key = { offset = 0 } } ]")
            .getMessage().contains("must give offset and length"));
        assertTrue(refused("topics = [ { name = e, id = 3, qos = volatile-storage, key = { offset = 0, length = 2, " +
            "maxkeys = 5 } } ]").getMessage().contains("weft.dds.topics[0].key.maxkeys"));
        assertTrue(refused("topics = [ { name = e, id = 3, qos = volatile-storage, key = 4 } ]").getMessage()
            .contains("must be none or { offset = N, length = 1..8 }"));
        assertTrue(refused("topics = [ { name = e, id = 3, qos = atomic-multicast, key = { offset = 0, length = 2 } } ]")
            .getMessage().contains("only volatile-storage topics keep a history per key"));
        assertTrue(refused("topics = [ { name = e, id = 3, qos = volatile-storage, max-sample = 8, " +
            "key = { offset = 4, length = 8 } } ]").getMessage().contains("must lie within max-sample (8 bytes)"));
    }

    @Test
    void renderedTopicsReadBackEqual() throws IOException
    {
        final WeftConfig c = WeftConfig.builder().memberId(1).localGroup("dds-round-trip", 3, 9100)
            .subgroups(List.of(SubgroupConfig.allMembers("other", 16, 64)))
            .dds(new DdsConfig(dir.resolve("logs"), false, List.of(
                new TopicConfig("record", 7, QosLevel.LOGGED_STORAGE, List.of(0, 2), List.of(), 64, 2048, 16),
                new TopicConfig("alerts", 9, QosLevel.ATOMIC_MULTICAST, List.of(), List.of(1), 32, 128, 1),
                new TopicConfig("engine", 10, QosLevel.VOLATILE_STORAGE, List.of(), List.of(), 32, 128, 4,
                    new SampleKey(2, 4, 64))))).build();
        assertEquals(List.of("other", "dds.record", "dds.alerts", "dds.engine"), c.subgroups().stream().map(SubgroupConfig::name).toList());
        final Path file = Files.writeString(dir.resolve("c.conf"), ConfigWriter.render(c));
        assertEquals(c, ConfigLoader.load(file));
    }

    @Test
    void mistakesAreNamed()
    {
        assertEquals("weft.dds.topics[].name", refused("topics = [ { name = a, id = 1 }, { name = a, id = 2 } ]").key());
        WeftConfigException ex = refused("topics = [ { name = a, id = 1 }, { name = b, id = 1 } ]");
        assertEquals("weft.dds.topics[b].id", ex.key());
        assertTrue(ex.getMessage().contains("unique"), ex.getMessage());
        assertEquals("weft.dds.topics[a].id", refused("topics = [ { name = a, id = 256 } ]").key());
        ex = refused("topics = [ { name = a, id = 1, qos = logged } ]");
        assertEquals("weft.dds.topics[0].qos", ex.key());
        assertTrue(ex.getMessage().contains("logged-storage"), ex.getMessage());
        ex = refused("topics = [ { name = a, id = 1, colour = red } ]");
        assertEquals("weft.dds.topics[0].colour", ex.key());
        assertTrue(refused("topics = [ { name = a } ]").getMessage().contains("must have a name and an id"));
        ex = refused("topics = [ { name = a, id = 1, publishers = [5] } ]");
        assertTrue(ex.getMessage().contains("5 is not"), ex.getMessage());
        ex = refused("topics = [ { name = a, id = 1, subscribers = [0, 7] } ]");
        assertEquals("weft.dds.topics[a].subscribers", ex.key());
        assertEquals("weft.dds.topics[a].history", refused("topics = [ { name = a, id = 1, history = 0 } ]").key());
        assertEquals("weft.subgroups[dds.a].max-payload",
            refused("topics = [ { name = a, id = 1, max-sample = 2 MiB } ]").key());
        assertEquals("weft.dds.log-drop-behind", refused("log-drop-behind = sometimes").key());
    }

    @Test
    void aSubgroupMayNotTakeATopicsName() throws IOException
    {
        final Path file = Files.writeString(dir.resolve("s.conf"), "weft { member.id = 0, " + MEMBERS +
            ", subgroups = [ { name = \"dds.mine\" } ] }");
        final WeftConfigException ex = assertThrows(WeftConfigException.class, () -> ConfigLoader.load(file));
        assertTrue(ex.getMessage().contains("must not start with 'dds.'"), ex.getMessage());
    }

    @Test
    void anUnknownTopicIsNamedWithTheDeclaredOnes() throws IOException
    {
        final WeftConfig c = load("topics = [ { name = a, id = 1 } ]");
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> c.dds().topic("b"));
        assertTrue(ex.getMessage().contains("no topic named 'b'") && ex.getMessage().contains("[a]"), ex.getMessage());
    }
}

package io.weft.examples.kv;

import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A replica in a group of one member in this JVM (the multi-process proofs are in tools' Kv*Test). */
@Timeout(60)
class KvReplicaTest
{
    /**
     * A message the replica cannot apply (here one of another version, as a member of another build sends) stops it
     * serving, with the reason, since the others apply it. Before, the delivery layer logged it and the member went on
     * serving a copy without it.
     */
    @Test
    void aMessageItCannotApplyStopsTheReplicaServing() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 1)
            .subgroups(List.of(SubgroupConfig.allMembers(KvReplica.SUBGROUP, 16, 1024))).build();
        try (Members ignored = new Members(config); KvReplica replica = new KvReplica(false, null))
        {
            final Group group = replica.attach(Group.builder(config.forMember(0)), 0).open();
            replica.start(group, true);
            assertTrue(replica.awaitServing(Duration.ofSeconds(30)));
            final List<byte[]> get = List.of("GET".getBytes(), "k".getBytes());
            assertEquals(Reply.NIL, replica.readLocal(get));

            final byte[] older = new byte[KvWire.HEADER];
            older[0] = 1; // a batch of version 1: no command, but not this build's
            assertTrue(group.subgroup(KvReplica.SUBGROUP).send(older, Duration.ofSeconds(10)) >= 0);
            Await.until(() -> replica.down() != null, "the replica stops serving");
            assertEquals("message 0 of member 0 could not be applied here (a key-value message of 28 bytes and " +
                "version 1, where this member speaks version " + KvWire.VERSION + " (the members of a group must run " +
                "one build of the store)): this member's copy no longer follows the group's", replica.down());
            assertEquals(Reply.error("CLUSTERDOWN " + replica.down()), replica.readLocal(get));
        }
    }

    /**
     * A replica replays a log written by a build before KvWire version 4 as that build applied it: its EXEC, aborted
     * then by a change to another key of WATCH's bucket, is aborted again (by this build's buckets it would apply and
     * the replayed copy would differ from what the members served).
     */
    @Test
    void aLogOfAnOlderBuildReplaysAsItWasApplied(@TempDir final Path dir)
    {
        final Key a = new Key("user:0".getBytes());
        int n = 1;
        while (KeyVersions.unmixed(new Key(("user:" + n).getBytes())) != KeyVersions.unmixed(a) ||
            KeyVersions.mix(new Key(("user:" + n).getBytes())) == KeyVersions.mix(a))
        {
            n++;
        }
        final long afterFirst = (2L << 17) - 1; // KeyVersions: every change of write position 1 applied
        final Transaction exec = new Transaction(1_000, List.of(new Transaction.Watch("user:0".getBytes(), afterFirst,
            true)));
        exec.queue(List.of("SET".getBytes(), "user:0".getBytes(), "2".getBytes()));
        try (KvLog log = new KvLog(dir))
        {
            final List<List<byte[]>> writes = List.of(
                List.of("SET".getBytes(), "user:0".getBytes(), "1".getBytes()),
                List.of("SET".getBytes(), ("user:" + n).getBytes(), "1".getBytes()),
                exec.exec());
            for (int g = 1; g <= writes.size(); g++)
            {
                final ByteBuffer out = ByteBuffer.allocate(1024);
                KvWire.encodeBatch(out, 0, g, 1_000, List.of(writes.get(g - 1)));
                final byte[] batch = Arrays.copyOf(out.array(), out.position());
                batch[0] = KeyVersions.MIXED_SINCE - 1;
                log.appendBatch(g, batch, batch.length);
            }
        }
        try (KvReplica replica = new KvReplica(false, dir))
        {
            assertEquals(3, replica.applied());
            final Reply.Bulk value = (Reply.Bulk)replica.readLocal(List.of("GET".getBytes(), "user:0".getBytes()));
            assertEquals("1", new String(value.bytes()));
        }
    }
}

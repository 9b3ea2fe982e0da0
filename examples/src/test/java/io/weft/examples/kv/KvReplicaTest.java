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

import java.time.Duration;
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
}

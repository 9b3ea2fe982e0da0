package io.weft.dds;

import io.weft.config.DdsConfig;
import io.weft.config.MembershipConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.SmallDisk;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A joiner whose disk fills while it installs the log it receives (12 MB of log, its log directory on a 4 MiB tmpfs):
 * its join fails at once, naming the fault, and the group goes on without it. Before, the fault (an {@link Error})
 * passed the install's failure handling: the joiner's table stayed connected and its failure detector beating until
 * the install watch cut it off a join timeout later (5 minutes here), and the group's deliveries waited for it.
 */
@Timeout(120)
class JoinerFullDiskTest
{
    private static final int SAMPLES = 200;

    @TempDir
    Path dir;

    @Test
    void aJoinerWhoseDiskFillsFailsAndTheGroupGoesOn() throws Exception
    {
        SmallDisk.assumeAvailable();
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 3)
            .membership(new MembershipConfig(List.of(0, 1), "joiner-full-disk-test-secret", ViewChangeSends.WAIT,
                Duration.ofMinutes(5)))
            .dds(new DdsConfig(dir, List.of(new TopicConfig("record", 1, QosLevel.LOGGED_STORAGE, List.of(0),
                List.of(), 16, 65536, 1, null)))).build();
        final Path full = DomainParticipant.logDirectory(config.forMember(2), "record").getParent();
        try (SmallDisk ignoredDisk = SmallDisk.mount(full, 4); Members ignored = new Members(config))
        {
            final List<DomainParticipant> first = Async.openAll(List.of(
                () -> DomainParticipant.builder(config.forMember(0)).open(),
                () -> DomainParticipant.builder(config.forMember(1)).open()));
            try
            {
                final DataWriter<byte[]> writer = first.get(0).createWriter(first.get(0).topic("record",
                    Codecs.bytes()));
                final byte[] sample = new byte[60_000];
                for (int i = 0; i < SAMPLES; i++)
                {
                    writer.write(sample);
                }
                assertTrue(writer.awaitDurable(Duration.ofSeconds(30)), "durable at members 0 and 1");
                final DomainParticipant joiner = DomainParticipant.builder(config.forMember(2)).create();
                try
                {
                    final Throwable failed = assertThrows(Throwable.class, () -> joiner.enable(true));
                    boolean fault = false;
                    for (Throwable t = failed; t != null; t = t.getCause())
                    {
                        fault |= t instanceof InternalError;
                    }
                    assertTrue(fault, "the join fails with the fault: " + failed);
                }
                finally
                {
                    joiner.close();
                }
                Await.until(() -> first.get(0).group().view().members().equals(List.of(0, 1)) &&
                    first.get(1).group().view().members().equals(List.of(0, 1)), Duration.ofSeconds(60),
                    "members 0 and 1 without the joiner");
                writer.write(sample);
                assertTrue(writer.awaitDurable(Duration.ofSeconds(30)), "the group goes on");
            }
            finally
            {
                first.forEach(DomainParticipant::close);
            }
        }
    }
}

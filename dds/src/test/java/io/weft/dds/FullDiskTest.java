package io.weft.dds;

import io.weft.config.DdsConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member whose disk fills while it logs a topic (its log directory on an 8 MiB tmpfs mounted by the test; the topic
 * carries 24 MB): it stops, the others remove it and go on, and every sample becomes durable in their logs. Before,
 * the full disk faulted the mapped write, the log thread died, the member's delivery thread waited for ring space
 * for good, and with it the whole topic: the writer's next write timed out ("no free slot") at the other members.
 */
@Timeout(120)
class FullDiskTest
{
    private static final int SAMPLES = 400;

    @TempDir
    Path dir;

    @Test
    void aMemberWhoseDiskFillsStopsAndTheOthersGoOn() throws Exception
    {
        SmallDisk.assumeAvailable();
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 3).dds(new DdsConfig(dir, List.of(
            new TopicConfig("record", 1, QosLevel.LOGGED_STORAGE, List.of(0), List.of(), 16, 65536, 1, null))))
            .build();
        final Path full = DomainParticipant.logDirectory(config.forMember(2), "record").getParent();
        try (SmallDisk ignoredDisk = SmallDisk.mount(full, 8); Members ignored = new Members(config))
        {
            final List<DomainParticipant> p = Async.openAll(config, c -> DomainParticipant.builder(c).open());
            try
            {
                final DataWriter<byte[]> writer = p.get(0).createWriter(p.get(0).topic("record", Codecs.bytes()));
                final byte[] sample = new byte[60_000];
                for (int i = 0; i < SAMPLES; i++)
                {
                    writer.write(sample);
                }
                Await.until(() -> p.get(2).group().isClosed(), Duration.ofSeconds(30), "member 2 stops");
                Await.until(() -> p.get(0).group().view().members().equals(List.of(0, 1)) &&
                    p.get(1).group().view().members().equals(List.of(0, 1)), Duration.ofSeconds(30),
                    "members 0 and 1 remove member 2");
                assertTrue(writer.awaitDurable(Duration.ofSeconds(30)), "every sample in the logs of 0 and 1");
            }
            finally
            {
                p.forEach(DomainParticipant::close);
            }
            for (int m = 0; m < 2; m++)
            {
                try (SampleLog log = SampleLog.openReadOnly(DomainParticipant.logDirectory(config.forMember(m),
                    "record")))
                {
                    final long[] entries = {0};
                    log.read(0, s -> entries[0]++);
                    assertEquals(SAMPLES, entries[0], "member " + m + "'s log");
                }
            }
        }
    }
}

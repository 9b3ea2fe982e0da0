package io.weft.dds;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.DdsConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A participant created, closed and created again with the application's registry (two members on shm, one JVM):
 * the closed participant's meters (its topics', its multicast's, its table's) leave the registry, and the new one
 * counts from zero in meters of its own. The group's meters used to stay, so the new participant was handed them.
 */
@Timeout(60)
class ParticipantMetersTest
{
    @TempDir
    Path dir;

    @Test
    void aParticipantCreatedAgainCountsInMetersOfItsOwn() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2)
            .dds(new DdsConfig(dir, List.of(new TopicConfig("engine", 3, QosLevel.ATOMIC_MULTICAST, List.of(0),
                List.of(), 64, 64, 1)))).build();
        final List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry());
        try (Members ignored = new Members(config))
        {
            for (final int samples : new int[] {100, 10})
            {
                final List<DomainParticipant> participants = Async.openAll(config, member ->
                    DomainParticipant.builder(member).meterRegistry(registries.get(member.memberId())).open());
                final DataWriter<String> writer = participants.get(0).createWriter(participants.get(0).topic("engine",
                    Codecs.utf8()));
                for (int i = 0; i < samples; i++)
                {
                    writer.write("s" + i);
                }
                final MeterRegistry reading = registries.get(1);
                Await.until(() -> reading.get("weft.dds.samples.delivered").tag("topic", "engine").functionCounter()
                    .count() == samples, () -> "member 1 counts the " + samples + " samples it delivered");
                assertEquals("1", reading.get("weft.dds.samples.delivered").meter().getId().getTag("member"));
                participants.forEach(DomainParticipant::close);
                for (final MeterRegistry registry : registries)
                {
                    assertEquals(List.of(), registry.getMeters().stream().map(m -> m.getId().getName())
                        .filter(name -> name.startsWith("weft.")).toList(), "a closed participant's meters are gone");
                }
            }
        }
    }
}

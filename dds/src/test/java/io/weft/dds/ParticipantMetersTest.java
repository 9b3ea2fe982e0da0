package io.weft.dds;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
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
import java.util.function.ToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A participant created, closed and created again with the application's registry (two members on shm, one JVM):
 * the closed participant's meters (its topics', its multicast's, its table's) leave the registry, and the new one
 * counts from zero in meters of its own. The group's meters used to stay, so the new participant was handed them.
 * A logged topic's lag gauge, read while its participant closes, reads no value rather than throwing.
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

    @Test
    void aLoggedTopicsLagGaugeReadsNoValueOnceItsGroupIsClosed() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2)
            .dds(new DdsConfig(dir, List.of(new TopicConfig("record", 3, QosLevel.LOGGED_STORAGE, List.of(0),
                List.of(), 64, 64, 1)))).build();
        final MeterRegistry registry = new StrictRegistry();
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> participants = Async.openAll(config, member ->
                DomainParticipant.builder(member).meterRegistry(member.memberId() == 1 ? registry :
                    new SimpleMeterRegistry()).open());
            final DataWriter<String> writer = participants.get(0).createWriter(participants.get(0).topic("record",
                Codecs.utf8()));
            for (int i = 0; i < 10; i++)
            {
                writer.write("s" + i);
            }
            final Gauge lag = registry.get("weft.dds.durability.lag").gauge();
            Await.until(() -> registry.get("weft.dds.samples.delivered").functionCounter().count() == 10 &&
                lag.value() == 0, () -> "member 1 has the 10 samples in every log: lag " + lag.value());
            // a participant's close closes its group, then its meters leave the registry: a sampler (the avionics
            // dashboard's) read the gauge in between, and Micrometer logged the table's "group is closed" with its
            // stack trace
            participants.get(1).group().close();
            assertTrue(Double.isNaN(lag.value()), "no value once the group is closed");
            participants.forEach(DomainParticipant::close);
        }
    }

    /** Gauges that throw what their function throws (Micrometer's own log it, with its stack trace, and read NaN). */
    private static final class StrictRegistry extends SimpleMeterRegistry
    {
        @Override
        protected <T> Gauge newGauge(final Meter.Id id, final T obj, final ToDoubleFunction<T> valueFunction)
        {
            return new Gauge()
            {
                @Override
                public double value()
                {
                    return valueFunction.applyAsDouble(obj);
                }

                @Override
                public Meter.Id getId()
                {
                    return id;
                }
            };
        }
    }
}

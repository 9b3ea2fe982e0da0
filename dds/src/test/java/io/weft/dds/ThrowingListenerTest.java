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

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A reader's listener runs inside the topic's delivery: one that throws (here on every sample) is counted, logged at
 * most once per 10 s, and the topic goes on as at every other member; so does a reader whose codec cannot decode a
 * sample (each was logged as an error, unlimited). A listener that threw used to cut the rest of the delivered batch
 * short at that member: the later samples got no position there, its other readers never saw them, and its history
 * (what a joiner receives from it) diverged.
 */
@Timeout(60)
class ThrowingListenerTest
{
    @TempDir
    Path dir;

    @Test
    void aListenerThatThrowsLeavesTheTopicAsAtTheOthers() throws Exception
    {
        final int samples = 2_000;
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2)
            .dds(new DdsConfig(dir, List.of(new TopicConfig("engine", 3, QosLevel.VOLATILE_STORAGE, List.of(0),
                List.of(), 64, 64, samples)))).build();
        final List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry());
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> participants = Async.openAll(config, member ->
                DomainParticipant.builder(member).meterRegistry(registries.get(member.memberId())).open());
            try
            {
                final AtomicLong thrown = new AtomicLong();
                final ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
                final Topic<String> topic = participants.get(1).topic("engine", Codecs.utf8());
                participants.get(1).createReader(topic, (sample, info) ->
                {
                    thrown.incrementAndGet();
                    throw new IllegalStateException("an application listener that throws on " + sample);
                });
                participants.get(1).createReader(topic, (sample, info) -> seen.add(info.position()));
                final ConcurrentLinkedQueue<String> decoded = new ConcurrentLinkedQueue<>();
                participants.get(1).createReader(participants.get(1).topic("engine", evenOnly()),
                    (sample, info) -> decoded.add(sample));
                final DataWriter<String> writer = participants.get(0).createWriter(participants.get(0).topic("engine",
                    Codecs.utf8()));
                for (int i = 0; i < samples; i++)
                {
                    writer.write("s" + i);
                }
                Await.until(() -> seen.size() == samples, () -> "the other reader sees every sample: " + seen.size());
                long expected = 0;
                for (final long p : seen)
                {
                    assertEquals(expected++, p, "positions in order, none skipped");
                }
                assertEquals(samples, thrown.get(), "the throwing listener was told of every sample");
                // counted every time, logged at most once per 10 s (CallbackFailuresTest)
                assertEquals(samples, failures(registries.get(1)));
                assertEquals(0, failures(registries.get(0)));
                // a codec that refuses the odd samples: each skipped, counted (each was an ERROR line, unlimited)
                Await.until(() -> decoded.size() + decodeFailures(registries.get(1)) == samples,
                    () -> "the third reader has every sample: " + decoded.size() + " decoded");
                assertEquals(samples / 2, decoded.size());
                assertEquals(samples / 2, decodeFailures(registries.get(1)));
            }
            finally
            {
                participants.forEach(DomainParticipant::close);
            }
        }
    }

    private static double failures(final MeterRegistry registry)
    {
        return registry.get("weft.dds.listener.failures").tag("topic", "engine").functionCounter().count();
    }

    private static long decodeFailures(final MeterRegistry registry)
    {
        return (long)registry.get("weft.dds.decode.failures").functionCounter().count();
    }

    /** UTF-8 text that refuses the odd samples ("s1", "s3", ...) as a codec of another version would. */
    private static Codec<String> evenOnly()
    {
        final Codec<String> utf8 = Codecs.utf8();
        return new Codec<>()
        {
            @Override
            public int encode(final String sample, final MemorySegment segment, final long offset, final int capacity)
            {
                return utf8.encode(sample, segment, offset, capacity);
            }

            @Override
            public String decode(final MemorySegment segment, final long offset, final int length)
            {
                final String sample = utf8.decode(segment, offset, length);
                if (Integer.parseInt(sample.substring(1)) % 2 == 1)
                {
                    throw new IllegalArgumentException("not a sample of this version: " + sample);
                }
                return sample;
            }
        };
    }
}

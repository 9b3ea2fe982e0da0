package io.weft.dds;

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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A reader's listener runs inside the topic's delivery: one that throws is logged and the topic goes on as at every
 * other member. It used to cut the rest of the delivered batch short at that member: the later samples got no
 * position there, its other readers never saw them, and its history (what a joiner receives from it) diverged.
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
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> participants = Async.openAll(config, member ->
                DomainParticipant.builder(member).open());
            try
            {
                final AtomicLong thrown = new AtomicLong();
                final ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
                final Topic<String> topic = participants.get(1).topic("engine", Codecs.utf8());
                participants.get(1).createReader(topic, (sample, info) ->
                {
                    if (info.position() % 500 == 0) // a few, spread over batches: each is logged with its trace
                    {
                        thrown.incrementAndGet();
                        throw new IllegalStateException("an application listener that throws on " + sample);
                    }
                });
                participants.get(1).createReader(topic, (sample, info) -> seen.add(info.position()));
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
                assertEquals(samples / 500, thrown.get(), "the throwing listener was told of every sample");
            }
            finally
            {
                participants.forEach(DomainParticipant::close);
            }
        }
    }
}

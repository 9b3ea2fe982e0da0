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
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A joiner of an ordered topic whose subgroup the admitting member (the leader) is not in: the leader's state had no
 * position for it, and the joiner numbered the topic's samples from 0 while the others went on from theirs (5 and 0
 * for one sample before the fix). It now fetches the topic's cut from a member of the topic.
 */
@Timeout(120)
class JoinerPositionTest
{
    @TempDir
    Path dir;

    @Test
    void aJoinerOfATopicWithoutTheLeaderTakesTheSamePositions() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 3)
            .membership(new MembershipConfig(List.of(0, 1), "joiner-position-test-secret", ViewChangeSends.WAIT,
                Duration.ofSeconds(30)))
            .dds(new DdsConfig(dir, List.of(new TopicConfig("t", 4, QosLevel.ATOMIC_MULTICAST, List.of(1), List.of(1, 2),
                16, 64, 1)))).build();
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> first = Async.openAll(List.of(
                () -> DomainParticipant.builder(config.forMember(0)).open(),
                () -> DomainParticipant.builder(config.forMember(1)).open()));
            final Map<String, Long> atPublisher = new ConcurrentHashMap<>();
            final DomainParticipant p1 = first.get(1);
            final Topic<String> t1 = p1.topic("t", Codecs.utf8());
            p1.createReader(t1, (s, info) -> atPublisher.put(s, info.position()));
            final DataWriter<String> w = p1.createWriter(t1);
            final AtomicBoolean writing = new AtomicBoolean(true);
            final AtomicInteger written = new AtomicInteger();
            final Thread writer = Thread.ofPlatform().start(() -> // on through the join
            {
                while (writing.get() || written.get() < 200)
                {
                    w.write("sample " + written.getAndIncrement());
                }
            });
            Await.until(() -> atPublisher.size() >= 50, () -> "50 at the publisher: " + atPublisher.size());
            final Map<String, Long> atJoiner = new ConcurrentHashMap<>();
            final DomainParticipant p2 = DomainParticipant.builder(config.forMember(2)).create();
            p2.createReader(p2.topic("t", Codecs.utf8()), (s, info) -> atJoiner.put(s, info.position()));
            p2.enable(true);
            writing.set(false);
            writer.join(30_000);
            Await.until(() -> atPublisher.size() == written.get() && atJoiner.containsKey("sample " +
                (written.get() - 1)), () -> "every sample at the publisher, the last at the joiner");
            assertTrue(atJoiner.size() > 0 && atJoiner.size() < atPublisher.size(), "the joiner missed the first");
            atJoiner.forEach((sample, position) -> assertEquals(atPublisher.get(sample), position, sample));
            System.out.printf("%d samples, %d at the joiner, from position %d%n", atPublisher.size(), atJoiner.size(),
                atJoiner.values().stream().mapToLong(Long::longValue).min().orElseThrow());
            p2.close();
            first.forEach(DomainParticipant::close);
        }
    }
}

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

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A writer whose thread stalls between its loan and its commit for longer than a view change waits for open loans
 * (2 s): here its codec blocks while a member leaves. The view change gives up on the loan, so the sample is not
 * among the messages it sends again; {@code write} then writes it in the new view by itself and returns true. It
 * used to throw "NOT sent" at the caller of {@code write}.
 */
@Timeout(90)
class LateWriteTest
{
    @TempDir
    Path dir;

    @Test
    void aSampleEncodedAcrossAViewChangeIsWrittenOnceInTheNewView() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3).dds(new DdsConfig(dir, List.of(
            new TopicConfig("plan", 1, QosLevel.ATOMIC_MULTICAST, List.of(0), List.of(), 16, 64, 1, null)))).build();
        final CountDownLatch encoding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Codec<String> stalling = new Codec<>()
        {
            @Override
            public int encode(final String sample, final MemorySegment segment, final long offset, final int capacity)
            {
                if (sample.equals("late") && encoding.getCount() > 0)
                {
                    encoding.countDown();
                    awaitRelease(release);
                }
                return Codecs.utf8().encode(sample, segment, offset, capacity);
            }

            @Override
            public String decode(final MemorySegment segment, final long offset, final int length)
            {
                return Codecs.utf8().decode(segment, offset, length);
            }
        };
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> p = Async.openAll(config, c -> DomainParticipant.builder(c).open());
            try
            {
                final List<String> read = new CopyOnWriteArrayList<>();
                p.get(1).createReader(p.get(1).topic("plan", Codecs.utf8()), (sample, info) -> read.add(sample));
                final DataWriter<String> writer = p.get(0).createWriter(p.get(0).topic("plan", stalling));
                final CompletableFuture<Boolean> late = Async.open(() -> writer.write("late", Duration.ofSeconds(30)));
                assertTrue(encoding.await(30, TimeUnit.SECONDS), "the writer never encoded");
                p.get(2).close(); // the view changes while the loan is open
                Await.until(() -> p.get(0).group().view().id() >= 1 && p.get(1).group().view().id() >= 1,
                    Duration.ofSeconds(30), "view 1 at members 0 and 1");
                release.countDown();
                assertTrue(late.get(30, TimeUnit.SECONDS), "write gave up");
                writer.write("after");
                Await.until(() -> read.contains("after"), Duration.ofSeconds(30), "the next sample at member 1");
                assertEquals(List.of("late", "after"), read, "the stalled sample, once, before the next");
            }
            finally
            {
                release.countDown();
                p.forEach(DomainParticipant::close); // closing twice is harmless
            }
        }
    }

    private static void awaitRelease(final CountDownLatch release)
    {
        try
        {
            assertTrue(release.await(60, TimeUnit.SECONDS), "never released");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}

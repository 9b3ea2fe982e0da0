package io.weft.dds;

import io.weft.config.DdsConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.membership.GroupBuilder;
import io.weft.predicates.PassInvoker;
import io.weft.testkit.Async;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DDS layer in invoker mode ({@code ParticipantBuilder.group(GroupBuilder::useInvoker)}), two members in one JVM
 * over shm, each run by one owner thread: the writer's waits (a slot, the durability frontier) and the reader's
 * ({@code take} with a timeout, the blocking iterator) run the passes on that thread instead of sleeping forever.
 */
@Timeout(120)
class InvokerParticipantTest
{
    private static final int SAMPLES = 3_000; // through a window of 16: the writer's wait for a slot must invoke

    @TempDir
    Path dir;

    @Test
    void writerAndReaderWaitsRunThePassesOnTheirOwners() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2)
            .dds(new DdsConfig(dir, List.of(new TopicConfig("track", 4, QosLevel.LOGGED_STORAGE, List.of(0),
                List.of(), 16, 64, 1, null)))).build();
        try (Members ignored = new Members(config))
        {
            final CompletableFuture<DomainParticipant> second = Async.open(() ->
                DomainParticipant.builder(config.forMember(1)).group(GroupBuilder::useInvoker).open());
            final DomainParticipant first = DomainParticipant.builder(config).group(GroupBuilder::useInvoker).open();
            final DomainParticipant other = second.get(60, TimeUnit.SECONDS);
            try
            {
                final DataReader<String> reader = other.createReader(other.topic("track", Codecs.utf8()), SAMPLES + 16);
                final CompletableFuture<Boolean> durable = new CompletableFuture<>();
                final CompletableFuture<List<String>> read = new CompletableFuture<>();
                Thread.ofPlatform().name("reader-owner").start(() -> read(other, reader, durable, read));
                Thread.ofPlatform().name("writer-owner").start(() -> write(first, durable));
                assertTrue(durable.get(90, TimeUnit.SECONDS), "the writer's samples did not become durable");
                final List<String> got = read.get(90, TimeUnit.SECONDS);
                assertEquals(SAMPLES, got.size());
                for (int i = 0; i < SAMPLES; i++)
                {
                    assertEquals("position " + i, got.get(i));
                }
            }
            finally
            {
                first.close();
                other.close();
            }
        }
    }

    private static void write(final DomainParticipant p, final CompletableFuture<Boolean> durable)
    {
        try
        {
            final PassInvoker invoker = p.group().invoker();
            invoker.invoke(); // this thread runs member 0 from now on
            final DataWriter<String> writer = p.createWriter(p.topic("track", Codecs.utf8()));
            for (int i = 0; i < SAMPLES; i++)
            {
                writer.write("position " + i); // waits up to 5 s for a slot: by invoking
            }
            durable.complete(writer.awaitDurable(Duration.ofSeconds(60))); // by invoking
        }
        catch (final Throwable ex)
        {
            durable.completeExceptionally(ex);
        }
    }

    private static void read(final DomainParticipant p, final DataReader<String> reader,
        final CompletableFuture<Boolean> durable, final CompletableFuture<List<String>> result)
    {
        try
        {
            final PassInvoker invoker = p.group().invoker();
            invoker.invoke(); // this thread runs member 1 from now on
            final List<String> got = new ArrayList<>();
            final Sample<String> first = reader.take(Duration.ofSeconds(60)); // by invoking
            assertTrue(first != null, "no sample within 60 s");
            got.add(first.value());
            for (final Sample<String> s : reader) // the blocking iterator, by invoking
            {
                got.add(s.value());
                if (got.size() == SAMPLES)
                {
                    break;
                }
            }
            assertNull(reader.take(), "more samples than written");
            result.complete(got);
            // the writer's frontier needs this member's persisted count: go on running its passes until it passes
            invoker.invokeUntil(durable::isDone, System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
        }
        catch (final Throwable ex)
        {
            result.completeExceptionally(ex);
        }
    }
}

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reader forms for application threads, in one JVM over shm (two members): the blocking iterator and the
 * {@link java.util.concurrent.Flow.Publisher}, both receiving the stored history first, then every later sample in
 * order, and both ending when closed.
 */
@Timeout(120)
class ReaderFormsTest
{
    private static final int HISTORY = 8;

    @TempDir
    Path dir;
    private WeftConfig config;
    private Members members;
    private final List<DomainParticipant> participants = new ArrayList<>();

    @BeforeEach
    void open() throws Exception
    {
        config = TestGroups.builder(TransportKind.SHM, 2)
            .dds(new DdsConfig(dir, List.of(new TopicConfig("engine", 3, QosLevel.VOLATILE_STORAGE, List.of(0),
                List.of(), 64, 64, HISTORY)))).build();
        members = new Members(config);
        participants.addAll(Async.openAll(config, DomainParticipant::open));
    }

    @AfterEach
    void close() throws Exception
    {
        participants.forEach(DomainParticipant::close);
        members.close();
    }

    @Test
    void iteratorGetsHistoryThenLiveSamplesAndEndsOnClose() throws Exception
    {
        final DataWriter<String> writer = engineWriter();
        final DomainParticipant reading = participants.get(1);
        final Topic<String> topic = reading.topic("engine", Codecs.utf8());
        writeAndAwait(writer, reading, 0, 20);

        final DataReader<String> reader = reading.createReader(topic);
        final List<String> seen = new ArrayList<>();
        final List<Boolean> stored = new ArrayList<>();
        final CountDownLatch ended = new CountDownLatch(1);
        final Thread app = Thread.ofPlatform().start(() ->
        {
            for (final Sample<String> s : reader)
            {
                synchronized (seen)
                {
                    seen.add(s.value());
                    stored.add(s.info().stored());
                }
            }
            ended.countDown();
        });
        writeAndAwait(writer, reading, 20, 50);
        awaitSize(seen, HISTORY + 30);
        assertEquals(1, ended.getCount(), "the iteration goes on while the reader is open");
        reader.close();
        assertTrue(ended.await(10, TimeUnit.SECONDS), "closing the reader ends the blocked iteration");
        app.join();
        assertEquals(IntStream.range(20 - HISTORY, 50).mapToObj(i -> "s" + i).toList(), seen,
            "the last " + HISTORY + " samples of the history, then every later one, in order");
        assertTrue(stored.subList(0, HISTORY).stream().allMatch(b -> b) && stored.subList(HISTORY, seen.size())
            .stream().noneMatch(b -> b), "history samples are marked stored, live ones not");
        assertFalse(reader.iterator().hasNext(), "a closed reader's iteration is over at once");
        assertEquals(null, reader.take(Duration.ofMillis(10)));
    }

    @Test
    void publisherSignalsSubscribersWithBackPressureAndCompletesOnClose() throws Exception
    {
        final DataWriter<String> writer = engineWriter();
        final DomainParticipant reading = participants.get(1);
        writeAndAwait(writer, reading, 0, 3);
        final SamplePublisher<String> publisher = reading.createPublisher(reading.topic("engine", Codecs.utf8()));
        final Recorder eager = new Recorder(Long.MAX_VALUE);
        final Recorder oneAtATime = new Recorder(1);
        publisher.subscribe(eager);
        publisher.subscribe(oneAtATime);
        writeAndAwait(writer, reading, 3, 43);
        awaitSize(eager.values, 43);
        awaitSize(oneAtATime.values, 43);
        final List<String> expected = IntStream.range(0, 43).mapToObj(i -> "s" + i).toList();
        assertEquals(expected, eager.values);
        assertEquals(expected, oneAtATime.values, "a subscriber requesting one at a time gets the same, in order");
        assertEquals(0, publisher.dropped());
        publisher.close();
        assertTrue(eager.completed.await(10, TimeUnit.SECONDS) && oneAtATime.completed.await(10, TimeUnit.SECONDS),
            "closing the publisher completes its subscribers");

        final Recorder late = new Recorder(Long.MAX_VALUE);
        publisher.subscribe(late);
        assertTrue(late.completed.await(10, TimeUnit.SECONDS), "a subscriber of a closed publisher completes");
    }

    @Test
    void rawReaderGetsHistoryThenLiveBytesAndAllocatesNothingPerSample() throws Exception
    {
        final DataWriter<String> writer = engineWriter();
        final DomainParticipant reading = participants.get(1);
        writeAndAwait(writer, reading, 0, 20);
        final List<String> seen = new ArrayList<>();
        final List<Long> positions = new ArrayList<>();
        final long[] storedCount = {0};
        final long[] thread = {-1};
        final RawReader reader = reading.createRawReader(reading.topic("engine", Codecs.utf8()),
            (segment, offset, length, header) ->
            {
                if (header.stored())
                {
                    storedCount[0]++;
                }
                thread[0] = Thread.currentThread().threadId();
                if (seen.size() < 100) // the first samples are kept to check them; the rest only counted
                {
                    synchronized (seen)
                    {
                        seen.add(new String(segment.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            java.nio.charset.StandardCharsets.UTF_8));
                        positions.add(header.position());
                    }
                }
            });
        writeAndAwait(writer, reading, 20, 50);
        awaitSize(seen, HISTORY + 30);
        assertEquals(IntStream.range(20 - HISTORY, 50).mapToObj(i -> "s" + i).toList(), seen.subList(0, HISTORY + 30));
        assertEquals(java.util.stream.LongStream.range(20 - HISTORY, 50).boxed().toList(), positions.subList(0,
            HISTORY + 30), "positions in the topic");
        assertEquals(HISTORY, storedCount[0]);

        // allocation on the delivery thread while 20,000 more samples go to the raw reader
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        writeAndAwait(writer, reading, 50, 10_000); // warm: the JIT compiles the delivery path
        final long before = threads.getThreadAllocatedBytes(thread[0]);
        final long receivedBefore = reader.received();
        writeAndAwait(writer, reading, 10_000, 30_000);
        final double perSample = (double)(threads.getThreadAllocatedBytes(thread[0]) - before) /
            (reader.received() - receivedBefore);
        System.out.printf("raw reader: the delivery thread allocated %.2f bytes per sample%n", perSample);
        // a typed reader of these samples allocates over 100 bytes each (a String, its bytes, a SampleInfo); what is
        // left here is per pass, not per sample (a pass delivers a batch), and whatever the JIT has not yet removed
        assertTrue(perSample < 16, "the delivery thread allocated " + perSample + " bytes per sample");
        reader.close();
        writeAndAwait(writer, reading, 30_000, 30_010);
        assertEquals(30_000 - (20 - HISTORY), reader.received(), "a closed raw reader is told of nothing more");
    }

    @Test
    void readerFormsRefuseMisuse()
    {
        final DomainParticipant reading = participants.get(1);
        final DataReader<String> withListener = reading.createReader(reading.topic("engine", Codecs.utf8()),
            (s, info) -> { });
        final IllegalStateException ex = assertThrows(IllegalStateException.class, withListener::iterator);
        assertTrue(ex.getMessage().contains("listener"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> reading.createPublisher(reading.topic("engine",
            Codecs.utf8()), Runnable::run, 0));
        withListener.close();
    }

    /** Member 0's writer of the test's topic; member 1 reads it. */
    private DataWriter<String> engineWriter()
    {
        return participants.get(0).createWriter(participants.get(0).topic("engine", Codecs.utf8()));
    }

    private static void writeAndAwait(final DataWriter<String> writer, final DomainParticipant reading, final int from,
        final int to) throws InterruptedException
    {
        for (int i = from; i < to; i++)
        {
            writer.write("s" + i);
        }
        final var delivered = reading.group().meterRegistry().get("weft.dds.samples.delivered").tag("topic", "engine")
            .functionCounter();
        Await.until(() -> delivered.count() >= to, () -> "member 1 to deliver " + to + ", delivered " +
            delivered.count());
    }

    private static void awaitSize(final List<String> list, final int size)
    {
        Await.until(() -> size(list) >= size, () -> size + " received, " + size(list) + " so far");
    }

    private static int size(final List<String> list)
    {
        synchronized (list)
        {
            return list.size();
        }
    }

    /** Requests {@code batch} at a time and records what it receives. */
    private static final class Recorder implements Flow.Subscriber<Sample<String>>
    {
        final List<String> values = new ArrayList<>();
        final CountDownLatch completed = new CountDownLatch(1);
        private final long batch;
        private Flow.Subscription subscription;

        Recorder(final long batch)
        {
            this.batch = batch;
        }

        @Override
        public void onSubscribe(final Flow.Subscription subscription)
        {
            this.subscription = subscription;
            subscription.request(batch);
        }

        @Override
        public void onNext(final Sample<String> item)
        {
            synchronized (values)
            {
                values.add(item.value());
            }
            if (batch != Long.MAX_VALUE)
            {
                subscription.request(batch);
            }
        }

        @Override
        public void onError(final Throwable error)
        {
            completed.countDown();
        }

        @Override
        public void onComplete()
        {
            completed.countDown();
        }
    }
}

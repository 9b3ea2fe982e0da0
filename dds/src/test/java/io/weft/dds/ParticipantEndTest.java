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
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an application holds of a participant when the participant ends (two members in one JVM over shm): member 1
 * is closed, and member 0, left alone in a view of two, stops as a minority; a member leaves gracefully; a
 * participant is closed before it was enabled. Every thread iterating a reader of theirs ends once it took the
 * samples that came, listeners are told why, a {@link SamplePublisher}'s subscriber completes (closed) or gets the
 * stop as its error, and an ended participant creates nothing more, saying why. Before, such an iteration waited for
 * ever, a closed participant still handed out readers that no sample could reach, and iterating a reader before its
 * participant was enabled failed at once.
 */
@Timeout(60)
class ParticipantEndTest
{
    private static final int SAMPLES = 10;
    private static final TopicConfig ENGINE = new TopicConfig("engine", 3, QosLevel.ATOMIC_MULTICAST, List.of(0),
        List.of(), 16, 64, 1);

    @TempDir
    Path dir;

    @Test
    void readersOfAnEndedParticipantEndAndItCreatesNothingMore() throws Exception
    {
        withTwo(true, participants ->
        {
            final DomainParticipant stopping = participants.get(0);
            final DomainParticipant closing = participants.get(1);
            final Ends atStopping = new Ends(stopping);
            final Ends atClosing = new Ends(closing);
            final DataWriter<String> writer = stopping.createWriter(stopping.topic("engine", Codecs.utf8()));
            for (int i = 0; i < SAMPLES; i++)
            {
                writer.write("s" + i);
            }
            Await.until(() -> atStopping.iterated.size() == SAMPLES && atClosing.iterated.size() == SAMPLES,
                "both iterations read every sample");

            closing.close();
            atClosing.assertEnded("member 1 closed its group");
            assertTrue(atClosing.completed.get(10, TimeUnit.SECONDS), "the closed member's subscriber completes");
            Await.until(() -> stopping.group().minorityReason() != null, "member 0 stops as a minority");
            final String stop = stopping.group().minorityReason();
            atStopping.assertEnded(stop);
            final Throwable error = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> atStopping.completed.get(10, TimeUnit.SECONDS)).getCause();
            assertEquals(stop, error.getMessage(), "the stopped member's subscriber gets the stop as its error");

            assertRefused(closing, 1, "member 1 closed its group");
            final CompletableFuture<Boolean> late = new CompletableFuture<>();
            atClosing.publisher.subscribe(subscriber(late)); // a Flow publisher signals, it does not throw
            assertEquals("the participant of member 1 has ended: member 1 closed its group", assertThrows(
                java.util.concurrent.ExecutionException.class, () -> late.get(10, TimeUnit.SECONDS)).getCause()
                .getMessage());
            assertRefused(stopping, 0, stop);
        });
    }

    @Test
    void aParticipantClosedBeforeItIsEnabledEndsItsReaders() throws Exception
    {
        withTwo(false, participants ->
        {
            final DomainParticipant idle = participants.get(0);
            final DataReader<String> reader = idle.createReader(idle.topic("engine", Codecs.utf8()));
            final CompletableFuture<Integer> iteration = iterate(reader, s -> { });
            idle.close();
            assertEquals(0, iteration.get(10, TimeUnit.SECONDS), "the iteration ends with no sample");
            assertRefused(idle, 0, "the participant of member 0 was closed");
        });
    }

    @Test
    void aReaderIteratedBeforeItsParticipantIsEnabledReadsOnceItIsAndEndsWhenItLeaves() throws Exception
    {
        withTwo(false, participants ->
        {
            final List<String> iterated = new CopyOnWriteArrayList<>();
            // the iteration used to fail at once: "the participant of member 1 is not enabled yet"
            final CompletableFuture<Integer> iteration = iterate(participants.get(1).createReader(
                participants.get(1).topic("engine", Codecs.utf8())), iterated::add);
            Async.openAll(participants.stream().<java.util.function.Supplier<DomainParticipant>>map(p ->
                () -> p.enable(false)).toList());
            final DataWriter<String> writer = participants.get(0).createWriter(participants.get(0).topic("engine",
                Codecs.utf8()));
            for (int i = 0; i < SAMPLES; i++)
            {
                writer.write("s" + i);
            }
            Await.until(() -> iterated.size() == SAMPLES, () -> "the iteration read " + iterated);
            assertEquals("s0", iterated.get(0));
            assertTrue(participants.get(1).leave(Duration.ofSeconds(20)), "member 1 leaves gracefully");
            assertTrue(participants.get(1).group().hasLeft(), "a leave, not a close");
            Await.until(() -> participants.get(0).group().view().left().contains(1), "member 0 saw member 1 leave");
            assertEquals(SAMPLES, iteration.get(10, TimeUnit.SECONDS), "a leaver's iteration ends");
            assertRefused(participants.get(1), 1, "member 1 left the group");
            assertNull(participants.get(0).group().minorityReason(), "member 0 goes on without the leaver");
        });
    }

    @Test
    void aLoanCommittedWithANegativeLengthIsRefusedAndStaysOpen() throws Exception
    {
        withTwo(true, participants ->
        {
            final DataWriter<String> writer = participants.get(0).createWriter(participants.get(0).topic("engine",
                Codecs.utf8()));
            final Loan loan = writer.loan(Duration.ofSeconds(5));
            // it used to throw a NullPointerException (the check for a key that this topic does not have)
            assertEquals("commit of -1 bytes into a claim of 64",
                assertThrows(IllegalArgumentException.class, () -> loan.commit(-1)).getMessage());
            loan.abort(); // still open: the caller decides
            assertTrue(writer.write("after", Duration.ofSeconds(5)));
        });
    }

    /** Two participants over shm, enabled or not yet, closed after {@code body} whatever it does. */
    private void withTwo(final boolean enabled, final Body body) throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2).dds(new DdsConfig(dir, List.of(ENGINE)))
            .build();
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> participants = enabled ? Async.openAll(config, DomainParticipant::open) :
                List.of(DomainParticipant.builder(config).create(), DomainParticipant.builder(config.forMember(1))
                    .create());
            try
            {
                body.run(participants);
            }
            finally
            {
                participants.forEach(DomainParticipant::close);
            }
        }
    }

    private interface Body
    {
        void run(List<DomainParticipant> participants) throws Exception;
    }

    private static void assertRefused(final DomainParticipant ended, final int member, final String why)
    {
        final String expected = "the participant of member " + member + " has ended: " + why;
        final Topic<String> topic = new Topic<>(ENGINE, Codecs.utf8());
        for (final Executable create : List.<Executable>of(() -> ended.topic("engine", Codecs.utf8()),
            () -> ended.createReader(topic), () -> ended.createWriter(topic),
            () -> ended.createRawReader(topic, (segment, offset, length, header) -> { }),
            () -> ended.createPublisher(topic), () -> ended.enable(false)))
        {
            assertEquals(expected, assertThrows(IllegalStateException.class, create).getMessage());
        }
    }

    /** Iterates over {@code reader} on a thread of its own; completes with how many samples it took once it ends. */
    private static CompletableFuture<Integer> iterate(final DataReader<String> reader, final Consumer<String> each)
    {
        final CompletableFuture<Integer> ended = new CompletableFuture<>();
        Thread.ofPlatform().daemon(true).name("iterating").start(() ->
        {
            int n = 0;
            for (final Sample<String> s : reader)
            {
                each.accept(s.value());
                n++;
            }
            ended.complete(n);
        });
        return ended;
    }

    /** A participant's queue reader being iterated, a listener reader and a publisher's subscriber. */
    private static final class Ends
    {
        final List<String> iterated = new CopyOnWriteArrayList<>();
        final CompletableFuture<Integer> iteration;
        final CompletableFuture<String> listenerTold = new CompletableFuture<>();
        final CompletableFuture<Boolean> completed = new CompletableFuture<>();
        final SamplePublisher<String> publisher;

        Ends(final DomainParticipant participant)
        {
            final Topic<String> topic = participant.topic("engine", Codecs.utf8());
            iteration = iterate(participant.createReader(topic), iterated::add);
            participant.createReader(topic, new SampleListener<>()
            {
                @Override
                public void onSample(final String sample, final SampleInfo info)
                {
                }

                @Override
                public void onParticipantEnded(final String why)
                {
                    listenerTold.complete(why);
                }
            });
            publisher = participant.createPublisher(topic);
            publisher.subscribe(subscriber(completed));
        }

        void assertEnded(final String why) throws Exception
        {
            assertEquals(SAMPLES, iteration.get(10, TimeUnit.SECONDS), "the iteration ends after every sample");
            assertEquals(why, listenerTold.get(10, TimeUnit.SECONDS), "the listener is told why");
        }
    }

    /** A subscriber that asks for everything and completes {@code completed} as its publisher ends. */
    private static Flow.Subscriber<Sample<String>> subscriber(final CompletableFuture<Boolean> completed)
    {
        return new Flow.Subscriber<>()
        {
            @Override
            public void onSubscribe(final Flow.Subscription subscription)
            {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(final Sample<String> item)
            {
            }

            @Override
            public void onError(final Throwable throwable)
            {
                completed.completeExceptionally(throwable);
            }

            @Override
            public void onComplete()
            {
                completed.complete(true);
            }
        };
    }
}

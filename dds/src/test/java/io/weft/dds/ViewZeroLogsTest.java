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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A whole group started again from logs of different sizes (member 2 was out while the others wrote). View 0 takes
 * no state, so each member went on from its own log: the next sample took a different position at each (10 at one
 * member and 0 at the other, in a two-member run of this case before the check), for good. Now every member refuses
 * to start, naming the sizes, and nothing is written; the start the error describes (the longest logs as view 0, member 2 joining) brings every log to one
 * size and the next sample to one position, and a start of all three as view 0 from equal logs goes on.
 */
@Timeout(120)
class ViewZeroLogsTest
{
    private static final String TOPIC = "track";

    @TempDir
    Path dir;

    @Test
    void logsOfDifferentSizesAreRefusedAtViewZeroAndTheStartItNamesGoesOn() throws Exception
    {
        final WeftConfig.Builder group = TestGroups.builder(TransportKind.SHM, 3)
            .dds(new DdsConfig(dir, List.of(new TopicConfig(TOPIC, 4, QosLevel.LOGGED_STORAGE, List.of(0),
                List.of(), 16, 64, 1))));
        final WeftConfig all = group.membership(initialView(List.of())).build();
        final WeftConfig longest = group.membership(initialView(List.of(0, 1))).build();
        try (Members ignored = new Members(all))
        {
            write(Async.openAll(all, member -> DomainParticipant.builder(member).open()), 20);
            write(open(longest, List.of(0, 1)), 10);
            assertEquals(List.of(30L, 30L, 20L), sizes(all));

            final List<CompletableFuture<DomainParticipant>> opening = new ArrayList<>();
            for (int m = 0; m < 3; m++)
            {
                final WeftConfig member = all.forMember(m);
                opening.add(Async.open(() -> DomainParticipant.builder(member).open()));
            }
            final List<String> refusals = new ArrayList<>();
            for (final CompletableFuture<DomainParticipant> f : opening)
            {
                try
                {
                    f.get(60, TimeUnit.SECONDS).close();
                }
                catch (final ExecutionException ex)
                {
                    assertInstanceOf(IllegalStateException.class, ex.getCause());
                    refusals.add(ex.getCause().getMessage());
                }
            }
            assertEquals(3, refusals.size(), "every member refuses: " + refusals);
            for (final String message : refusals)
            {
                assertTrue(message.contains("entries by member: {0=30, 1=30, 2=20}") &&
                    message.contains("here members [0, 1]"), message);
            }
            assertEquals(List.of(30L, 30L, 20L), sizes(all), "nothing written");

            // the start the error describes: members 0 and 1 as view 0, member 2 joins and receives 10 entries
            final List<DomainParticipant> restarted = new ArrayList<>(open(longest, List.of(0, 1)));
            restarted.add(DomainParticipant.builder(longest.forMember(2)).join());
            write(restarted, 1);
            assertEquals(List.of(31L, 31L, 31L), sizes(all));

            // equal logs: all three start as view 0, and a new sample takes one position everywhere
            final List<DomainParticipant> again = Async.openAll(all, member -> DomainParticipant.builder(member).open());
            final List<ConcurrentLinkedQueue<Long>> positions = new ArrayList<>();
            for (final DomainParticipant p : again)
            {
                final ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
                p.createReader(p.topic(TOPIC, Codecs.utf8()), (sample, info) -> seen.add(info.position()));
                positions.add(seen);
            }
            write(again, 1);
            Await.until(() -> positions.stream().allMatch(q -> q.contains(31L)), () -> "positions " + positions);
            assertEquals(List.of(32L, 32L, 32L), sizes(all));
        }
    }

    private static MembershipConfig initialView(final List<Integer> members)
    {
        return new MembershipConfig(members, "view-zero-logs-test-secret", ViewChangeSends.WAIT, Duration.ofSeconds(30));
    }

    private static List<DomainParticipant> open(final WeftConfig config, final List<Integer> members)
        throws Exception
    {
        return Async.openAll(members.stream().map(config::forMember)
            .map(m -> (java.util.function.Supplier<DomainParticipant>)() -> DomainParticipant.builder(m).open())
            .toList());
    }

    /** Member 0 writes {@code samples} more, waits until every member's log holds them, and all close. */
    private static void write(final List<DomainParticipant> participants, final int samples)
    {
        try
        {
            final DomainParticipant first = participants.get(0);
            final DataWriter<String> writer = first.createWriter(first.topic(TOPIC, Codecs.utf8()));
            for (int i = 0; i < samples; i++)
            {
                writer.write("sample " + i);
            }
            assertTrue(writer.awaitDurable(Duration.ofSeconds(30)), "durable within 30 s");
        }
        finally
        {
            participants.forEach(DomainParticipant::close);
        }
    }

    private static List<Long> sizes(final WeftConfig config)
    {
        final List<Long> sizes = new ArrayList<>();
        for (int m = 0; m < 3; m++)
        {
            try (SampleLog log = SampleLog.open(DomainParticipant.logDirectory(config.forMember(m), TOPIC)))
            {
                sizes.add(log.count());
            }
        }
        return sizes;
    }
}

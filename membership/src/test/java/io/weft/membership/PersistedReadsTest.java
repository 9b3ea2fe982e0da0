package io.weft.membership;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application thread reads a subgroup's persisted counts ({@code DataWriter.awaitDurable} polls the frontier)
 * while views change: a view change closes the old view's table, and a read that had found the old view's engine
 * read closed memory and threw "Already closed" to the application. Reads now take the view's monitor, which its
 * close takes too, and read nothing (-1, empty) while the view is closed.
 */
@Timeout(120)
class PersistedReadsTest
{
    @Test
    void readsOfPersistedCountsSurviveViewChanges() throws Exception
    {
        final WeftConfig config = InJvmGroups.joinable(TransportKind.SHM, Duration.ofSeconds(10)).build();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 2; i++)
            {
                builders.add(Group.builder(config.forMember(i)));
            }
            final List<Group> groups = InJvmGroups.open(builders);
            final AtomicBoolean reading = new AtomicBoolean(true);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final AtomicLong reads = new AtomicLong();
            final Subgroup all = groups.get(0).subgroup("all");
            final Thread reader = Thread.ofPlatform().name("persisted-reader").start(() ->
            {
                while (reading.get())
                {
                    try
                    {
                        all.persistedFrontier();
                        all.persistedByMember();
                        reads.incrementAndGet();
                    }
                    catch (final Throwable t)
                    {
                        failure.compareAndSet(null, t);
                    }
                    LockSupport.parkNanos(20_000);
                }
            });
            try
            {
                for (int round = 0; round < 8; round++)
                {
                    try (Group joiner = Group.builder(config.forMember(2)).join())
                    {
                        assertTrue(joiner.leave(Duration.ofSeconds(30)), "member 2 leaves in round " + round);
                    }
                }
            }
            finally
            {
                reading.set(false);
                reader.join();
                groups.forEach(Group::close);
            }
            assertNull(failure.get(), () -> "a read failed during a view change: " + failure.get());
            assertTrue(reads.get() > 0);
        }
    }
}

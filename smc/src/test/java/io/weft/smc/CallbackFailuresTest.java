package io.weft.smc;

import org.junit.jupiter.api.Test;
import org.slf4j.event.EventRecordingLogger;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.SubstituteLogger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A callback that throws on every message is counted every time and logged once per interval, not per message. */
class CallbackFailuresTest
{
    private final ConcurrentLinkedQueue<SubstituteLoggingEvent> events = new ConcurrentLinkedQueue<>();
    private final AtomicLong now = new AtomicLong(1_000);
    private final CallbackFailures failures = new CallbackFailures(
        new EventRecordingLogger(new SubstituteLogger("test", events, false), events), 100, now::get);

    @Test
    void theFirstFailureIsLoggedWithItsStackTraceAndTheNextOnlyAfterTheInterval()
    {
        final IllegalStateException first = new IllegalStateException("first");
        assertTrue(failures.failed(first, "subgroup {}: callback failed on message {}", "s", 0L));
        for (long m = 1; m < 1_000; m++)
        {
            assertFalse(failures.failed(new IllegalStateException("again"), "subgroup {}: callback failed on message {}",
                "s", m));
        }
        now.set(1_099);
        assertFalse(failures.failed(new IllegalStateException("still within the interval"), "{}", "x"));
        now.set(1_100);
        final IllegalStateException later = new IllegalStateException("later");
        assertTrue(failures.failed(later, "subgroup {}: callback failed on message {}", "s", 1_001L));
        assertEquals(1_002, failures.count(), "every failure counted, logged or not");

        final List<SubstituteLoggingEvent> logged = new ArrayList<>(events);
        assertEquals(2, logged.size());
        assertEquals("subgroup {}: callback failed on message {}", logged.get(0).getMessage());
        assertArrayEquals(new Object[] {"s", 0L}, logged.get(0).getArgumentArray());
        assertSame(first, logged.get(0).getThrowable());
        assertEquals("subgroup {}: callback failed on message {} ({} more failures since the last one logged)",
            logged.get(1).getMessage());
        assertArrayEquals(new Object[] {"s", 1_001L, 1_000L}, logged.get(1).getArgumentArray());
        assertSame(later, logged.get(1).getThrowable());
    }

    @Test
    void aFailureAfterAQuietIntervalIsLoggedAsItself()
    {
        final IllegalStateException ex = new IllegalStateException("rare");
        assertTrue(failures.failed(ex, "fence {} failed", 1L));
        now.addAndGet(500);
        assertTrue(failures.failed(ex, "fence {} failed", 2L));
        final List<SubstituteLoggingEvent> logged = new ArrayList<>(events);
        assertEquals(2, logged.size());
        assertEquals("fence {} failed", logged.get(1).getMessage());
        assertArrayEquals(new Object[] {2L}, logged.get(1).getArgumentArray());
        assertEquals(2, failures.count());
    }
}

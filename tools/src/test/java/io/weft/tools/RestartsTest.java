package io.weft.tools;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When {@code weft kv} starts an exited member again: at once, after a doubling delay, or never. */
class RestartsTest
{
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aMemberThatServedStartsAgainAtOnce()
    {
        final Restarts r = new Restarts(3);
        assertEquals("kv: member 1 exited with 137; starting it again (it joins the group)", r.exited(1, 137, true, 0));
        assertTrue(r.waiting(1) && r.due(1, 0));
        r.started(1);
        assertFalse(r.waiting(1) || r.due(1, 0));
    }

    @Test
    void aMemberThatExitsBeforeServingWaitsTwiceAsLongEachTimeUpTo30Seconds()
    {
        final Restarts r = new Restarts(3);
        long now = 0;
        final long[] waits = {1, 2, 4, 8, 16, 30, 30};
        for (final long wait : waits)
        {
            assertEquals("kv: member 2 exited with 5 before serving; starting it again in " + wait + " s (it joins " +
                "the group)", r.exited(2, 5, false, now));
            assertFalse(r.due(2, now + wait * S - 1));
            now += wait * S;
            assertTrue(r.due(2, now));
            r.started(2);
        }
        r.exited(2, 137, true, now); // it served at last: the next exit before serving waits 1 s again
        r.started(2);
        assertTrue(r.exited(2, 5, false, now).endsWith("in 1 s (it joins the group)"));
    }

    @Test
    void aRefusalIsNotStartedAgainUntilTheWholeGroupStarts()
    {
        final Restarts r = new Restarts(3);
        assertEquals("kv: member 0 exited with 2, a refusal that starting it again would repeat (its output above " +
            "says why): it is not started again", r.exited(0, Weft.EXIT_CONFIG, true, 0));
        assertTrue(r.waiting(0));
        assertFalse(r.due(0, Long.MAX_VALUE - 1));
        r.reset();
        assertFalse(r.waiting(0));
    }
}

package io.weft.sst.rdma;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Completions are accounted to the write they complete, however long that write stayed in flight. */
class WriteContextsTest
{
    @Test
    void aWriteInFlightKeepsItsContextWhileManyLaterWritesComplete()
    {
        final WriteContexts contexts = new WriteContexts(16, 8, 16);
        final int toDeadPeer = contexts.peek(3);
        contexts.posted(3);
        for (int i = 0; i < 1_000; i++) // far more than the 16 contexts, each completing at once
        {
            final int c = contexts.peek(2);
            contexts.posted(2);
            assertEquals(2, contexts.completed(c));
        }
        assertEquals(1, contexts.outstanding());
        assertEquals(1, contexts.outstanding(3));
        assertEquals(0, contexts.outstanding(2));
        // a flush that waits for what was posted before it waits for the dead peer, not for the live one
        assertEquals(1_000, contexts.completedTo(2));
        assertEquals(contexts.postedTo(2), contexts.completedTo(2));
        assertEquals(1, contexts.postedTo(3));
        assertEquals(0, contexts.completedTo(3));
        // the dead peer's error arrives at last: it names the dead peer, not whoever wrote last with that slot
        assertEquals(3, contexts.completed(toDeadPeer));
        assertEquals(0, contexts.outstanding());
        assertEquals(1, contexts.completedTo(3));
    }

    @Test
    void everyContextInFlightRefusesTheNextWriteUntilOneCompletes()
    {
        final WriteContexts contexts = new WriteContexts(4, 8, 4);
        final int[] taken = new int[4];
        for (int i = 0; i < 4; i++)
        {
            taken[i] = contexts.peek(i);
            contexts.posted(i);
        }
        assertEquals(-1, contexts.peek(5));
        assertEquals(4, contexts.outstanding());
        assertEquals(2, contexts.completed(taken[2]));
        assertEquals(taken[2], contexts.peek(5));
    }

    @Test
    void aCompletionOfAContextNotInFlightChangesNothing()
    {
        final WriteContexts contexts = new WriteContexts(4, 8, 4);
        final int c = contexts.peek(1);
        contexts.posted(1);
        assertEquals(1, contexts.completed(c));
        assertEquals(-1, contexts.completed(c), "a second completion of the same context");
        assertEquals(0, contexts.outstanding());
        assertEquals(0, contexts.outstanding(1));
        for (int i = 0; i < 4; i++) // every context is still free once, none twice
        {
            contexts.posted(0);
        }
        assertEquals(-1, contexts.peek(1));
    }

    /** A peer that died holds its share of the contexts, never more: writes to the live peers still get one. */
    @Test
    void aTargetHoldsAtMostItsShare()
    {
        final WriteContexts contexts = new WriteContexts(12, 4, 4); // 4 rows: 3 targets, 12 / 3 each
        for (int i = 0; i < 4; i++)
        {
            contexts.posted(3); // writes to a peer that died: none completes
        }
        assertEquals(-1, contexts.peek(3), "the dead peer's writes wait once it holds its share");
        for (final int live : new int[] {1, 2})
        {
            for (int i = 0; i < 4; i++)
            {
                final int c = contexts.peek(live);
                assertTrue(c >= 0, "a live peer found no context");
                contexts.posted(live);
            }
        }
        assertEquals(12, contexts.outstanding());
    }

    /**
     * A reliable-datagram provider may complete a target's writes out of order: the completed count moves only over
     * writes that completed with all before them, so a flush waiting for the first write is not let go by the second.
     */
    @Test
    void aLaterWritesCompletionDoesNotCountForAnEarlierOneStillInFlight()
    {
        final WriteContexts contexts = new WriteContexts(8, 2, 4);
        final int[] taken = new int[3];
        for (int i = 0; i < 3; i++)
        {
            taken[i] = contexts.peek(1);
            contexts.posted(1);
        }
        assertEquals(1, contexts.completed(taken[1]));
        assertEquals(1, contexts.completed(taken[2]));
        assertEquals(0, contexts.completedTo(1), "the first write is still in flight");
        assertEquals(3, contexts.outstanding(1));
        assertEquals(1, contexts.outstanding());
        taken[1] = contexts.peek(1); // a fourth write fits the share of 4; a fifth must wait for the first
        contexts.posted(1);
        assertEquals(-1, contexts.peek(1), "the target's writes past its completed prefix fill its share");
        assertEquals(1, contexts.completed(taken[0]));
        assertEquals(3, contexts.completedTo(1), "the first three all completed");
        assertEquals(1, contexts.completed(taken[1]));
        assertEquals(4, contexts.completedTo(1));
        assertEquals(0, contexts.outstanding(1));
        for (int round = 0; round < 50; round++) // the ring wraps many times, completions in reverse order
        {
            for (int i = 0; i < 3; i++)
            {
                taken[i] = contexts.peek(1);
                contexts.posted(1);
            }
            for (int i = 2; i >= 0; i--)
            {
                contexts.completed(taken[i]);
                assertEquals(i == 0 ? 4 + 3 * (round + 1) : 4 + 3 * round, contexts.completedTo(1));
            }
        }
    }
}

package io.weft.smc;

import io.weft.sst.Sst;

/**
 * The pushes one trigger decided, posted in order after the trigger released its lock (early lock release: safe
 * because every pushed value is monotone, so a later push subsumes an earlier one). The transport's flush then runs
 * once at the end of the predicate pass ({@link io.weft.predicates.PredicateThread#afterPass}), so that the
 * triggers of one pass leave in one socket write or doorbell per target. Without early lock release (the baseline)
 * every trigger flushes at once, under its lock. Used by the predicate thread only (and by the membership thread
 * once the predicate thread has stopped, which flushes at once).
 */
final class PushBatch
{
    private final Sst sst;
    private final int[] targets;
    private final boolean flushAfterPass;
    private final long[] offsets = new long[4];
    private final long[] lengths = new long[4];
    private int size;

    PushBatch(final Sst sst, final int[] targets, final boolean flushAfterPass)
    {
        this.sst = sst;
        this.targets = targets;
        this.flushAfterPass = flushAfterPass;
    }

    /** A batch to the same targets whose {@link #flush()} posts and writes at once: a committing thread's. */
    PushBatch immediate()
    {
        return new PushBatch(sst, targets, false);
    }

    /** Defers a push of {@code length} bytes of my row at {@code rowOffset}. */
    void add(final long rowOffset, final long length)
    {
        if (size == offsets.length)
        {
            flush();
        }
        offsets[size] = rowOffset;
        lengths[size] = length;
        size++;
    }

    /** Posts the deferred pushes in order; the flush follows at the end of the pass. */
    void flush()
    {
        post(!flushAfterPass);
    }

    /** Pushes one range at once, from a thread that is not running a trigger (the deferred ones are not touched). */
    void pushNow(final long rowOffset, final long length)
    {
        if (targets.length > 0)
        {
            sst.push(rowOffset, length, targets);
        }
    }

    /** Posts the deferred pushes in order and flushes now (off the predicate thread). */
    void flushNow()
    {
        post(true);
    }

    private void post(final boolean flush)
    {
        if (size == 0)
        {
            return;
        }
        if (targets.length > 0)
        {
            for (int i = 0; i < size; i++)
            {
                sst.post(offsets[i], lengths[i], targets);
            }
            if (flush)
            {
                sst.flush();
            }
        }
        size = 0;
    }
}

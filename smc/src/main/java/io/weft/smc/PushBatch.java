package io.weft.smc;

import io.weft.sst.Sst;

/**
 * The pushes one trigger decided, posted in order and then flushed once (one socket write or doorbell per target for
 * the whole trigger). With early lock release the trigger flushes after releasing its lock: safe because every pushed
 * value is monotone, so a later push subsumes an earlier one. Used by the predicate thread only (and by the membership
 * thread once the predicate thread has stopped).
 */
final class PushBatch
{
    private final Sst sst;
    private final int[] targets;
    private final long[] offsets = new long[4];
    private final long[] lengths = new long[4];
    private int size;

    PushBatch(final Sst sst, final int[] targets)
    {
        this.sst = sst;
        this.targets = targets;
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

    /** Posts the deferred pushes in order, then flushes once. */
    void flush()
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
            sst.flush();
        }
        size = 0;
    }
}

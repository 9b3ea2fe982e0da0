package io.weft.smc;

/**
 * The header at the start of every slot, followed by the payload:
 * <pre>
 *   0  length:int      payload bytes (0 for a null run)
 *   4  nullCount:int   0 for an application message; k for a run of k nulls published as this one slot
 *   8  index:long      the sender's message index (the first of the run for nulls)
 *   16 timestamp:long  System.nanoTime() at commit, in the sender's process (latency is measured at the sender)
 *   24 reserved:long
 * </pre>
 */
final class SlotHeader
{
    static final int LENGTH = 0;
    static final int NULL_COUNT = 4;
    static final int INDEX = 8;
    static final int TIMESTAMP = 16;
    static final int SIZE = 32;

    private SlotHeader()
    {
    }

    static int slotSize(final int maxPayload)
    {
        return (SIZE + maxPayload + 7) & -8;
    }
}

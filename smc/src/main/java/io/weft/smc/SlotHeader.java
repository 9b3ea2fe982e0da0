package io.weft.smc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The header at the start of every record of a ring, followed by the payload, read and written through this
 * flyweight over the table (one per ring, cursor and delivery; each call names the record's base offset):
 * <pre>
 *   0  length:int      payload bytes (0 for a null run)
 *   4  nullCount:int   0 for an application message; k for a run of k nulls published as this one record;
 *                      -1 for the padding mark: the ring's tail from here is unused, the next record is at its start
 *   8  index:long      the sender's message index (the first of the run for nulls)
 *   16 timestamp:long  System.nanoTime() at commit, in the sender's process (latency is measured at the sender)
 *   24 extent:int      bytes the record takes in the ring, header included, 8-aligned: the next record follows
 *   28 reserved:int
 * </pre>
 * Plain accesses: a record is published by the ring's release store of its ready mark (sender) and read after the
 * acquire load of the sender's published counter (receivers).
 */
final class SlotHeader
{
    private static final int LENGTH = 0;
    private static final int NULL_COUNT = 4;
    private static final int INDEX = 8;
    private static final int TIMESTAMP = 16;
    private static final int EXTENT = 24;
    private static final int PADDING = -1;
    static final int SIZE = 32;

    private final MemorySegment table;

    SlotHeader(final MemorySegment table)
    {
        this.table = table;
    }

    /** Bytes a record of {@code length} payload bytes takes in a ring. */
    static int extent(final int length)
    {
        return (SIZE + length + 7) & -8;
    }

    int length(final long base)
    {
        return table.get(ValueLayout.JAVA_INT, base + LENGTH);
    }

    int nullCount(final long base)
    {
        return table.get(ValueLayout.JAVA_INT, base + NULL_COUNT);
    }

    long index(final long base)
    {
        return table.get(ValueLayout.JAVA_LONG, base + INDEX);
    }

    long timestamp(final long base)
    {
        return table.get(ValueLayout.JAVA_LONG, base + TIMESTAMP);
    }

    int extent(final long base)
    {
        return table.get(ValueLayout.JAVA_INT, base + EXTENT);
    }

    boolean isPadding(final long base)
    {
        return nullCount(base) == PADDING;
    }

    /** A claimed record of {@code extent} bytes: an application message (so far) with this index. */
    void claimed(final long base, final long index, final int extent)
    {
        table.set(ValueLayout.JAVA_INT, base + NULL_COUNT, 0);
        table.set(ValueLayout.JAVA_LONG, base + INDEX, index);
        table.set(ValueLayout.JAVA_INT, base + EXTENT, extent);
    }

    /** A claimed record that gives back bytes it did not use: it now takes {@code extent}. */
    void extent(final long base, final int extent)
    {
        table.set(ValueLayout.JAVA_INT, base + EXTENT, extent);
    }

    /** The padding mark: the ring's tail from {@code base} holds no record. */
    void padding(final long base)
    {
        table.set(ValueLayout.JAVA_INT, base + NULL_COUNT, PADDING);
    }

    /** A committed slot: {@code length} payload bytes, or one null in place of an aborted claim. */
    void committed(final long base, final int length, final boolean asNull, final long nanos)
    {
        table.set(ValueLayout.JAVA_INT, base + LENGTH, asNull ? 0 : length);
        table.set(ValueLayout.JAVA_INT, base + NULL_COUNT, asNull ? 1 : 0);
        table.set(ValueLayout.JAVA_LONG, base + TIMESTAMP, nanos);
    }

    /** A run of {@code count} nulls from index {@code first}, in one header-only record. */
    void nullRun(final long base, final long first, final int count)
    {
        table.set(ValueLayout.JAVA_INT, base + LENGTH, 0);
        table.set(ValueLayout.JAVA_INT, base + NULL_COUNT, count);
        table.set(ValueLayout.JAVA_LONG, base + INDEX, first);
        table.set(ValueLayout.JAVA_LONG, base + TIMESTAMP, 0L);
        table.set(ValueLayout.JAVA_INT, base + EXTENT, SIZE);
    }
}

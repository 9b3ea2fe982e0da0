package io.weft.smc;

import io.weft.sst.Sst;

/**
 * Where a subgroup's rings lie in the table, and how a ring's records are found. Every sender's ring is
 * {@link #capacity} bytes in its own row, sized as {@code window} slots of header + max-payload; a record takes only
 * its own header and payload, 8-aligned ({@link SlotHeader#extent}), so small messages do not each take a
 * max-payload slot. A record never wraps: one that does not fit before the ring's end starts at its beginning, and
 * the tail left behind is skipped by readers (a padding mark, or a tail shorter than a header).
 *
 * <p>The sender's positions are virtual: a byte count from the ring's first use that only grows; {@code v % capacity}
 * is where it lies in the ring. Readers consume each ring in order, so each keeps the offset in the ring of its next
 * record, and moves on by each record's extent: no division per message.
 */
final class RingGeometry
{
    static final int RECORDS_BOUND = 8192;
    final long capacity;
    /**
     * The most records a ring holds at once: as many header-only records (nulls) as fit, and at most
     * {@value #RECORDS_BOUND} (or the window): the sender keeps four longs per record on its heap, and 8,192
     * messages in flight cover a round trip of 50 us at 160M messages per second.
     */
    final int maxRecords;
    private final long rowSize;
    private final long slotsOffset;

    RingGeometry(final SubgroupLayout layout, final Sst sst)
    {
        this.capacity = layout.slots.length();
        this.maxRecords = (int)Math.min(capacity / SlotHeader.SIZE, Math.max(layout.config.window(), RECORDS_BOUND));
        this.rowSize = sst.layout().rowSize();
        this.slotsOffset = layout.slots.offset();
    }

    /** Table offset of virtual position {@code v} of the ring in row {@code row}. */
    long at(final int row, final long v)
    {
        return ring(row) + v % capacity;
    }

    /** Table offset of the ring in row {@code row}. */
    long ring(final int row)
    {
        return row * rowSize + slotsOffset;
    }

    /** Offset within a row of virtual position {@code v}. */
    long inRow(final long v)
    {
        return slotsOffset + v % capacity;
    }

    /** The start of the next lap after virtual position {@code v}. */
    long nextLap(final long v)
    {
        return v - v % capacity + capacity;
    }

    /**
     * The offset in the ring of row {@code row} of the record at or after offset {@code inRing}: {@code inRing}, or
     * the ring's start where the tail from there holds no record. Read only once the guard shows a record there.
     */
    long record(final SlotHeader header, final int row, final long inRing)
    {
        return !roomForMark(inRing) || header.isPadding(ring(row) + inRing) ? 0 : inRing;
    }

    /** Whether the tail of a ring from offset {@code inRing} holds a header: else a reader skips it unmarked. */
    boolean roomForMark(final long inRing)
    {
        return capacity - inRing >= SlotHeader.SIZE;
    }
}

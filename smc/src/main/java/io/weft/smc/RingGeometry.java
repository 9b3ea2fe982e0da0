package io.weft.smc;

import io.weft.sst.Sst;

/** Where a subgroup's slot rings lie in the table: every sender's ring of {@code window} slots in its own row. */
final class RingGeometry
{
    final int window;
    final int slotSize;
    private final long rowSize;
    private final long slotsOffset;

    RingGeometry(final SubgroupLayout layout, final Sst sst)
    {
        this.window = layout.config.window();
        this.slotSize = layout.slotSize;
        this.rowSize = sst.layout().rowSize();
        this.slotsOffset = layout.slots.offset();
    }

    /** Table offset of the header of ring slot {@code slot} (counting from 0, wrapping) in row {@code row}. */
    long slot(final int row, final long slot)
    {
        return row * rowSize + slotsOffset + (slot % window) * slotSize;
    }

    /** Offset within a row of ring position {@code pos}. */
    long position(final int pos)
    {
        return slotsOffset + (long)pos * slotSize;
    }
}

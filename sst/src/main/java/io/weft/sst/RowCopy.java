package io.weft.sst;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The copy every transport uses to apply or snapshot a push, and the source of the ordering contract:
 * <ul>
 *     <li>a release fence first, so every store of earlier pushes is visible before any store of this one
 *     (pushes to one target are applied in issue order);</li>
 *     <li>8-byte opaque stores for short ranges, so an aligned counter is never seen torn (opaque accesses are
 *     bitwise atomic); long ranges (slot runs) go through {@link MemorySegment#copy}, whose bulk path copies
 *     8-aligned ranges in 8-byte units (HotSpot's {@code Unsafe.copyMemory} picks the widest unit the alignment of
 *     source, destination and length allows), so counters inside them are not torn either;</li>
 *     <li>no order within one push: a guard and the payload it guards belong in two pushes, payload first.</li>
 * </ul>
 * Offsets and lengths are multiples of 8 (the layout guarantees it).
 */
public final class RowCopy
{
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** From this length on the bulk copy beats the per-word loop. */
    static final long BULK = 256;

    private RowCopy()
    {
    }

    /** Copies {@code length} bytes as described above: word by word below {@link #BULK}, else in bulk. */
    public static void copy(final MemorySegment src, final long srcOffset, final MemorySegment dst,
        final long dstOffset,
        final long length)
    {
        VarHandle.releaseFence();
        if (length >= BULK)
        {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
            return;
        }
        for (long i = 0; i < length; i += 8)
        {
            LONG.setOpaque(dst, dstOffset + i, (long)LONG.getOpaque(src, srcOffset + i));
        }
    }
}

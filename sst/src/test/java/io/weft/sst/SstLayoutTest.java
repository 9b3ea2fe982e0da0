package io.weft.sst;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SstLayoutTest
{
    @Test
    void columnsAreEightByteAlignedAndRowsWholePages()
    {
        final SstLayout layout = SstLayout.builder().counter("a").bools("flags", 3).bytes("payload", 13)
            .counters("received", 5).build();
        assertEquals(0, layout.column("a").offset());
        assertEquals(8, layout.column("flags").offset());
        assertEquals(32, layout.column("payload").offset());
        assertEquals(16, layout.column("payload").length());
        assertEquals(48, layout.column("received").offset());
        assertEquals(48 + 40, layout.column("received").offsetOf(4) + 8);
        assertEquals(4096, layout.rowSize());
        for (final Column c : layout.columns())
        {
            assertEquals(0, c.offset() % 8, c.name());
        }
    }

    @Test
    void checksumChangesWithTheLayout()
    {
        final long a = SstLayout.builder().counter("x").counter("y").build().checksum();
        assertEquals(a, SstLayout.builder().counter("x").counter("y").build().checksum());
        assertNotEquals(a, SstLayout.builder().counter("y").counter("x").build().checksum());
        assertNotEquals(a, SstLayout.builder().counter("x").bool("y").build().checksum());
    }

    @Test
    void misuseIsRefusedWithTheColumnName()
    {
        assertThrows(IllegalArgumentException.class, () -> SstLayout.builder().counter("x").counter("x"));
        assertThrows(IllegalArgumentException.class, () -> SstLayout.builder().counters("x", 0));
        assertThrows(IllegalArgumentException.class, () -> SstLayout.builder().bytes("x", -1));
        assertThrows(IllegalStateException.class, () -> SstLayout.builder().build());
        final SstLayout layout = SstLayout.builder().counters("x", 2).build();
        assertThrows(IllegalArgumentException.class, () -> layout.column("nope"));
        assertThrows(IndexOutOfBoundsException.class, () -> layout.column("x").offsetOf(2));
    }
}

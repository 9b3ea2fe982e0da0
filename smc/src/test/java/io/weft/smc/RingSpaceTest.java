package io.weft.smc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where a ring's records go: the bytes they take, the lap they skip to, and what frees room for the next one. */
class RingSpaceTest
{
    @Test
    void recordsTakeTheirOwnBytesAndOneThatDoesNotFitStartsTheNextLap()
    {
        final RingSpace space = new RingSpace(256, 8);
        assertEquals(0, space.place(0, 40));
        space.take(0, 0, 40, 0);
        assertEquals(40, space.place(1, 200));
        space.take(1, 40, 200, 1);
        assertEquals(-1, space.place(2, 32), "16 bytes left before the end, and the lap's start still held");
        assertEquals(0, space.needFor(2, 32), "room at the lap's start once record 0 is acknowledged");
        assertEquals(1, space.needFor(2, 48), "48 bytes do not fit the 40 that record 0 frees");
        space.free();
        assertEquals(-1, space.place(2, 48), "record 1 still holds 40..240");
        assertEquals(256, space.place(2, 32), "the tail is skipped: the record starts the next lap");
        assertEquals(0, space.take(2, 256, 32, 2), "at the ring's start");
        assertEquals(240, space.from(2), "its reservation starts where record 1 ended: the skipped tail with it");
        assertEquals(288, space.head());
    }

    @Test
    void aRecordEndingAtTheRingsEndIsFollowedAtItsStart()
    {
        final RingSpace space = new RingSpace(256, 8);
        assertEquals(0, space.take(0, space.place(0, 128), 128, 0));
        assertEquals(128, space.take(1, space.place(1, 128), 128, 1));
        assertEquals(0, space.headInRing());
        space.free();
        assertEquals(256, space.place(2, 64), "the next lap, with no tail to skip");
        assertEquals(0, space.take(2, 256, 64, 2));
        assertEquals(256, space.from(2));
    }

    @Test
    void theNewestRecordGivesBackWhatItDidNotUse()
    {
        final RingSpace space = new RingSpace(256, 8);
        space.take(0, space.place(0, 200), 200, 0);
        space.shrink(0, 40);
        assertEquals(40, space.head());
        assertEquals(40, space.headInRing());
        assertEquals(40, space.place(1, 200), "the 160 bytes given back hold the next record");
        space.take(1, 40, 200, 1);
        assertEquals(240, space.headInRing());
        space.free();
        assertEquals(256, space.place(2, 40), "the 16 bytes at the end are skipped");
        assertEquals(0, space.take(2, 256, 40, 2));
        space.shrink(2, 32);
        assertEquals(288, space.head());
        assertEquals(32, space.headInRing(), "given back at the start of the next lap");
    }

    @Test
    void noMoreRecordsThanTheEntriesHoldHoweverSmall()
    {
        final RingSpace space = new RingSpace(1024, 4);
        for (long slot = 0; slot < 4; slot++)
        {
            final long v = space.place(slot, 32);
            assertEquals(slot * 32, v);
            space.take(slot, v, 32, slot);
        }
        assertEquals(-1, space.place(4, 32), "four entries, all held");
        assertEquals(0, space.needFor(4, 32));
        space.free();
        assertEquals(128, space.place(4, 32));
        assertEquals(-1, space.needFor(4, 32), "fits now");
    }
}

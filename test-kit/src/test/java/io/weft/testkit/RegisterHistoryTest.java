package io.weft.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The checker itself: it accepts linearizable histories and finds the classic violations. */
@Timeout(30)
class RegisterHistoryTest
{
    private static RegisterHistory.Op w(final int client, final long call, final long ret, final String v)
    {
        return new RegisterHistory.Op("k", client, call, ret, true, v);
    }

    private static RegisterHistory.Op r(final int client, final long call, final long ret, final String v)
    {
        return new RegisterHistory.Op("k", client, call, ret, false, v);
    }

    @Test
    void acceptsOverlapsAndUnknownWrites()
    {
        final RegisterHistory h = new RegisterHistory();
        h.add(w(0, 0, 10, "a"));
        h.add(r(1, 5, 6, null));    // overlaps the write: may see the old value
        h.add(r(1, 7, 8, "a"));     // or the new one, later
        h.add(w(2, 12, Long.MAX_VALUE, "b")); // unknown outcome
        h.add(r(0, 20, 21, "b"));   // it took effect
        h.add(r(1, 22, 23, "b"));
        assertEquals(0, h.violations().size(), h.violations().toString());
    }

    @Test
    void findsAStaleReadAndANewOldInversion()
    {
        final RegisterHistory stale = new RegisterHistory();
        stale.add(w(0, 0, 10, "a"));
        stale.add(r(1, 11, 12, null)); // the write returned before this read began
        assertEquals(1, stale.violations().size());

        final RegisterHistory inversion = new RegisterHistory();
        inversion.add(w(0, 0, 100, "a"));
        inversion.add(r(1, 10, 20, "a"));
        inversion.add(r(2, 30, 40, null)); // after a read that saw "a", nobody may see the older state
        assertEquals(1, inversion.violations().size());

        final RegisterHistory lostUnknown = new RegisterHistory();
        lostUnknown.add(w(0, 0, Long.MAX_VALUE, "a"));
        lostUnknown.add(r(1, 5, 6, "a"));
        lostUnknown.add(r(1, 7, 8, null)); // an unknown write cannot take effect and then vanish
        assertEquals(1, lostUnknown.violations().size());
    }
}

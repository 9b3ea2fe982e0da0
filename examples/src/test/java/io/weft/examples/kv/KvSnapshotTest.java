package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class KvSnapshotTest
{
    @Test
    void aServingDonorsStateIsInstalledWithItsPosition()
    {
        final KvSnapshot s = KvSnapshot.decode(KvSnapshot.encode(4_711, false, new byte[] {1, 2, 3}));
        assertEquals(4_711, s.position());
        assertArrayEquals(new byte[] {1, 2, 3}, s.state());
    }

    /** A donor still in a cold start's recovery: the joiner would serve before the group, from a state behind. */
    @Test
    void aRecoveringDonorsStateIsRefusedWithTheReason()
    {
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> KvSnapshot.decode(KvSnapshot.encode(70, true, new byte[] {1})));
        assertTrue(refused.getMessage().startsWith("the group is still in a cold start's recovery (its donor was at " +
            "write position 70): join once it serves"), refused.getMessage());
    }

    @Test
    void bytesTooShortForASnapshotAreRefused()
    {
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> KvSnapshot.decode(new byte[5]));
        assertEquals("a key-value snapshot of 5 bytes: at least 9 expected", refused.getMessage());
    }
}

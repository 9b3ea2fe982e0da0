package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class KvSnapshotTest
{
    @Test
    void aServingDonorsStateIsInstalledWithItsPosition() throws IOException
    {
        final ByteArrayInputStream in = new ByteArrayInputStream(head(4_711, false, 1, 2, 3));
        assertEquals(4_711, KvSnapshot.readHead(in));
        assertEquals(3, in.available(), "the store follows the head");
    }

    /** A donor still in a cold start's recovery: the joiner would serve before the group, from a state behind. */
    @Test
    void aRecoveringDonorsStateIsRefusedWithTheReason()
    {
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> KvSnapshot.readHead(new ByteArrayInputStream(head(70, true, 1))));
        assertTrue(refused.getMessage().startsWith("the group is still in a cold start's recovery (its donor was at " +
            "write position 70): join once it serves"), refused.getMessage());
    }

    @Test
    void bytesTooShortForAHeadAreRefused()
    {
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> KvSnapshot.readHead(new ByteArrayInputStream(new byte[5])));
        assertEquals("a key-value state that ends before its head (9 bytes: a write position, a recovery flag)",
            refused.getMessage());
    }

    private static byte[] head(final long position, final boolean recovering, final int... store) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        KvSnapshot.writeHead(out, position, recovering);
        for (final int b : store)
        {
            out.write(b);
        }
        return out.toByteArray();
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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

    /**
     * A donor of an older build writes no WATCH versions: installed, this member would decide a watched transaction
     * otherwise than the group's members, so the join fails with the reason; a state of this build is installed.
     */
    @Test
    void aStateOfAnOlderBuildIsRefusedWithTheReason() throws IOException
    {
        final KvStore store = new KvStore();
        final long[] installed = {-1};
        final KvStateTransfer transfer = new KvStateTransfer(store, null, () -> 0, () -> false, p -> installed[0] = p);
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> transfer.install(new ByteArrayInputStream(head(12, false, 0, 0, 0, 0)))); // no entries, no versions
        assertEquals("the donor's state has no WATCH versions: the group runs an older build of the store, and the " +
            "members of a group must run one build", refused.getMessage());
        assertEquals(-1, installed[0]);

        final KvStore donor = new KvStore();
        donor.versions().writing(12, KvWire.VERSION);
        donor.apply(List.of("SET".getBytes(), "k".getBytes(), "v".getBytes()), 0);
        donor.versions().written();
        final ByteArrayOutputStream state = new ByteArrayOutputStream();
        new KvStateTransfer(donor, null, () -> 12, () -> false, p -> { }).capture(new byte[0]).writeTo(state);
        transfer.install(new ByteArrayInputStream(state.toByteArray()));
        assertEquals(12, installed[0]);
        assertArrayEquals(donor.snapshot(), store.snapshot(), "the entries and their versions");
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

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keys held inline (up to 16 bytes) and as arrays: equality, bytes, order, across the boundary. */
@Timeout(10)
class KeyTest
{
    private static byte[] bytes(final int length, final int seed)
    {
        final byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void aKeyEqualsAnotherOfTheSameBytesWhereverTheyAreReadAndGivesItsBytesBackAtEveryLength()
    {
        for (int length = 0; length <= 40; length++)
        {
            final byte[] b = bytes(length, length);
            final Key key = new Key(b);
            final Key same = new Key(b.clone());
            assertEquals(key, same, "length " + length);
            assertEquals(key.hashCode(), same.hashCode());
            assertEquals(0, key.compareTo(same));
            assertArrayEquals(b, key.bytes(), "length " + length);
            final byte[] around = new byte[length + 7]; // the same bytes inside a batch: read in place
            java.util.Arrays.fill(around, (byte)0x5A);
            System.arraycopy(b, 0, around, 3, length);
            final Key inPlace = new Key(around, 3, length);
            assertEquals(key, inPlace, "length " + length);
            assertEquals(key.hash(), inPlace.hash());
            assertArrayEquals(b, inPlace.bytes(), "length " + length);
        }
    }

    @Test
    void keysThatDifferInOneByteOrOnlyInTrailingZerosAreDifferent()
    {
        final List<byte[]> all = new ArrayList<>();
        for (int length = 0; length <= 24; length++)
        {
            all.add(new byte[length]); // zeros only: they differ in length alone
            for (int at = 0; at < length; at++)
            {
                final byte[] b = bytes(length, 7);
                b[at] ^= 1;
                all.add(b);
            }
        }
        for (int i = 0; i < all.size(); i++)
        {
            for (int j = 0; j < all.size(); j++)
            {
                final boolean sameBytes = java.util.Arrays.equals(all.get(i), all.get(j));
                final Key a = new Key(all.get(i));
                final Key b = new Key(all.get(j));
                assertEquals(sameBytes, a.equals(b), i + " against " + j);
                if (!sameBytes)
                {
                    assertNotEquals(0, a.compareTo(b));
                    assertEquals(Integer.signum(a.compareTo(b)), -Integer.signum(b.compareTo(a)));
                }
            }
        }
        assertTrue(all.size() > 300);
    }
}

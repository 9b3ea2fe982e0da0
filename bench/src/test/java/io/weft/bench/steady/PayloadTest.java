package io.weft.bench.steady;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PayloadTest
{
    private static UnsafeBuffer message(final int size, final int kind, final int sender, final long counter)
    {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[size + 16]);
        Payload.write(b, 8, size, kind, sender, counter, 123_456_789L);
        return b;
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 33, 39, 40, 128, 1024, 10240})
    void aWrittenMessageVerifiesAndCarriesItsHeader(final int size)
    {
        final UnsafeBuffer b = message(size, Payload.KIND_DATA, 2, 77);
        assertTrue(Payload.verify(b, 8, size));
        assertEquals(77, Payload.counter(b, 8));
        assertEquals(2, Payload.sender(b, 8));
        assertEquals(Payload.KIND_DATA, Payload.kind(b, 8));
        assertEquals(123_456_789L, Payload.timestamp(b, 8));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 33, 128, 1031})
    void everyFlippedByteOfTheMessageIsCaught(final int size)
    {
        final UnsafeBuffer b = message(size, Payload.KIND_DATA, 1, 5);
        for (int i = 0; i < size; i++)
        {
            final byte original = b.getByte(8 + i);
            for (final int mask : new int[] {0x01, 0x80, 0xff})
            {
                b.putByte(8 + i, (byte)(original ^ mask));
                assertFalse(Payload.verify(b, 8, size), "a flip of byte " + i + " with mask " + mask + " went unseen");
            }
            b.putByte(8 + i, original);
        }
        assertTrue(Payload.verify(b, 8, size));
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 24, 32, 64, 992})
    void twoWordsSwappedAreCaught(final int distance)
    {
        final int size = 1024;
        final UnsafeBuffer b = message(size, Payload.KIND_DATA, 1, 9);
        final int first = 8 + Payload.HEADER_LENGTH;
        final long word = b.getLong(first);
        b.putLong(first, b.getLong(first + distance));
        b.putLong(first + distance, word);
        assertFalse(Payload.verify(b, 8, size), "words " + distance + " bytes apart, swapped, went unseen");
    }

    @Test
    void differentMessagesHaveDifferentBodies()
    {
        final UnsafeBuffer a = message(64, Payload.KIND_DATA, 0, 1);
        final UnsafeBuffer b = message(64, Payload.KIND_DATA, 0, 2);
        assertFalse(a.getLong(8 + 40) == b.getLong(8 + 40), "the body depends on the counter");
    }

    @Test
    void aMessageBeyondItsBufferIsRefusedBeforeAnyByteIsTouched()
    {
        final UnsafeBuffer b = message(64, Payload.KIND_DATA, 0, 3);
        assertThrows(IndexOutOfBoundsException.class, () -> Payload.verify(b, 8, 64 + 9));
        assertThrows(IndexOutOfBoundsException.class,
            () -> Payload.write(b, 16, 64 + 1, Payload.KIND_DATA, 0, 4, 0));
        assertTrue(Payload.verify(b, 8, 64), "the refused write left the message as it was");
    }

    @Test
    void aMessageShorterThanTheHeaderFails()
    {
        final UnsafeBuffer b = message(32, Payload.KIND_DATA, 0, 0);
        assertFalse(Payload.verify(b, 8, 31));
    }

    @Test
    void deliveriesReportACorruptedPayload()
    {
        final Deliveries d = new Deliveries(1, 3, 2);
        assertFalse(d.onMessage(message(128, Payload.KIND_DATA, 0, 0), 8, 128));
        final UnsafeBuffer bad = message(128, Payload.KIND_DATA, 0, 1);
        bad.putByte(8 + 100, (byte)(bad.getByte(8 + 100) + 1));
        d.onMessage(bad, 8, 128);
        assertTrue(d.check().contains("payload checksum mismatch"), d.check());
        assertEquals(1, d.delivered(), "a corrupted message is not counted");
    }

    @Test
    void deliveriesCheckOrderOnceAndTheEndCount()
    {
        final Deliveries d = new Deliveries(0, 2, 2);
        d.onMessage(message(64, Payload.KIND_DATA, 0, 0), 8, 64);
        d.onMessage(message(64, Payload.KIND_DATA, 1, 0), 8, 64);
        d.onMessage(message(64, Payload.KIND_DATA, 0, 1), 8, 64);
        assertFalse(d.onMessage(message(32, Payload.KIND_END, 0, 2), 8, 32));
        assertTrue(d.onMessage(message(32, Payload.KIND_END, 1, 1), 8, 32), "complete once every sender ended");
        assertEquals("ok", d.check());
        assertEquals(3, d.delivered());

        final Deliveries gap = new Deliveries(0, 2, 2);
        gap.onMessage(message(64, Payload.KIND_DATA, 1, 0), 8, 64);
        gap.onMessage(message(64, Payload.KIND_DATA, 1, 2), 8, 64);
        assertTrue(gap.check().contains("message 2 delivered when 1 was due"), gap.check());

        final Deliveries lost = new Deliveries(0, 1, 1);
        lost.onMessage(message(64, Payload.KIND_DATA, 0, 0), 8, 64);
        lost.onMessage(message(32, Payload.KIND_END, 0, 5), 8, 32);
        assertTrue(lost.check().contains("sent 5 messages, 1 were delivered"), lost.check());

        final Deliveries stranger = new Deliveries(0, 3, 1);
        stranger.onMessage(message(64, Payload.KIND_DATA, 2, 0), 8, 64);
        assertTrue(stranger.check().contains("not a sender"), stranger.check());
    }
}

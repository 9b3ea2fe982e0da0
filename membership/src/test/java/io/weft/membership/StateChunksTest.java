package io.weft.membership;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The state on the control channel: chunked, each chunk checked before a byte of it is handed on. */
@Timeout(60)
class StateChunksTest
{
    private static final String SECRET = "s3cret";
    private static final String GROUP = "g";
    private final byte[] joinerNonce = ControlWire.nonce();
    private final byte[] memberNonce = ControlWire.nonce();

    @Test
    void aStateOfSeveralChunksArrivesWholeAndInOrder() throws IOException
    {
        final byte[] state = new byte[2 * StateChunks.CHUNK + 12345];
        new Random(7).nextBytes(state);
        final byte[] wire = send(state, memberNonce);
        assertEquals(3, frames(wire).size(), "2 full chunks and the last");
        final StateChunks.Input in = input(wire);
        assertArrayEquals(state, in.readAllBytes());
        in.finish();
    }

    @Test
    void anEmptyStateIsOneLastChunk() throws IOException
    {
        final byte[] wire = send(new byte[0], memberNonce);
        assertEquals(1, frames(wire).size());
        final StateChunks.Input in = input(wire);
        assertEquals(-1, in.read());
        in.finish();
    }

    @Test
    void aChangedByteFailsItsChunkBeforeAnyOfItIsHandedOn() throws IOException
    {
        final byte[] state = new byte[StateChunks.CHUNK + 10];
        final byte[] wire = send(state, memberNonce);
        wire[wire.length - 5] ^= 1; // in the last chunk's data
        final StateChunks.Input in = input(wire);
        final byte[] first = new byte[StateChunks.CHUNK];
        assertEquals(StateChunks.CHUNK, in.readNBytes(first, 0, first.length), "the first chunk is intact");
        final IOException ex = assertThrows(IOException.class, () -> in.read());
        assertTrue(ex.getMessage().contains("state chunk 1 from member 0 failed authentication"), ex.getMessage());
    }

    @Test
    void chunksOfAnotherAdmissionAreRefused() throws IOException
    {
        final byte[] wire = send(new byte[100], ControlWire.nonce()); // another handshake's nonce
        final IOException ex = assertThrows(IOException.class, () -> input(wire).read());
        assertTrue(ex.getMessage().contains("failed authentication"), ex.getMessage());
    }

    @Test
    void droppedOrReorderedChunksAreRefused() throws IOException
    {
        final List<byte[]> frames = frames(send(new byte[2 * StateChunks.CHUNK + 1], memberNonce));
        final byte[] dropped = concat(frames.get(0), frames.get(2));
        final StateChunks.Input in = input(dropped);
        in.readNBytes(StateChunks.CHUNK);
        assertThrows(ControlWire.ProtocolException.class, () -> in.read());
        final byte[] swapped = concat(frames.get(1), frames.get(0), frames.get(2));
        assertThrows(ControlWire.ProtocolException.class, () -> input(swapped).read());
    }

    @Test
    void aStateCutShortNeverEnds() throws IOException
    {
        final List<byte[]> frames = frames(send(new byte[StateChunks.CHUNK + 1], memberNonce));
        final StateChunks.Input in = input(frames.getFirst()); // the last chunk never comes
        in.readNBytes(StateChunks.CHUNK);
        assertThrows(EOFException.class, () -> in.read());
    }

    @Test
    void anInstallerThatLeavesBytesUnreadIsAnError() throws IOException
    {
        final StateChunks.Input in = input(send(new byte[10], memberNonce));
        in.readNBytes(4);
        final IllegalStateException ex = assertThrows(IllegalStateException.class, in::finish);
        assertTrue(ex.getMessage().contains("left bytes of the state from member 0 unread"), ex.getMessage());
    }

    private byte[] send(final byte[] state, final byte[] nonce) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (StateChunks.Output out = new StateChunks.Output(new DataOutputStream(bytes), SECRET, GROUP, 3, joinerNonce,
            nonce))
        {
            out.write(state, 0, state.length / 2);
            out.write(state, state.length / 2, state.length - state.length / 2);
        }
        return bytes.toByteArray();
    }

    private StateChunks.Input input(final byte[] wire)
    {
        return new StateChunks.Input(new DataInputStream(new ByteArrayInputStream(wire)), SECRET, GROUP, 3,
            joinerNonce, memberNonce, "member 0");
    }

    /** The frames of {@code wire}, each whole (header and payload). */
    private static List<byte[]> frames(final byte[] wire) throws IOException
    {
        final List<byte[]> frames = new ArrayList<>();
        final DataInputStream in = new DataInputStream(new ByteArrayInputStream(wire));
        int at = 0;
        while (in.available() > 0)
        {
            final int length = ControlWire.read(in, 2 * StateChunks.CHUNK).payload().length + 10;
            frames.add(Arrays.copyOfRange(wire, at, at + length));
            at += length;
        }
        return frames;
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] p : parts)
        {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}

package io.weft.bench.steady;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

/**
 * The bench message, the same for Weft and every peer: a 32-byte header and a body. The sender writes every byte of
 * the body and a checksum over the whole message; every receiver reads every byte back and checks it. So each system
 * does the same payload work per message, and a receiver that sees a corrupted byte reports it. The checksum runs
 * four rotate-xor lanes, each over every fourth word of the body, so that checking is bound by reading the bytes
 * rather than by one chain of dependent steps; a message's bounds are checked once, not at every word.
 *
 * <pre>
 *  0 counter    long  the sender's message number (END: how many data messages it sent)
 *  8 timestamp  long  System.nanoTime() at send: own-delivery latency (CLOCK_MONOTONIC, one host)
 * 16 checksum   long  over every other byte of the message
 * 24 sender     int   member index of the sender
 * 28 kind       int   DATA, END or BYE
 * 32 body             length - 32 bytes, all written by the sender
 * </pre>
 */
public final class Payload
{
    public static final int COUNTER_OFFSET = 0;
    public static final int TIMESTAMP_OFFSET = 8;
    public static final int CHECKSUM_OFFSET = 16;
    public static final int SENDER_OFFSET = 24;
    public static final int KIND_OFFSET = 28;
    public static final int HEADER_LENGTH = 32;

    public static final int KIND_DATA = 0;
    /** A sender's last message: its counter is the number of data messages it sent. */
    public static final int KIND_END = 1;
    /** A member's goodbye (peers whose members must not leave before every other member is done). */
    public static final int KIND_BYE = 2;
    /**
     * Filler after a sender's END, in runs without null-sends: what an application must send itself there, so that
     * the round-robin order reaches the other senders' last messages. Checked, never counted.
     */
    public static final int KIND_PAD = 3;

    private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;
    /** Four words, one per lane of the checksum. */
    private static final int LANES_LENGTH = 32;

    private Payload()
    {
    }

    /** Writes a whole message of {@code length} bytes (at least {@link #HEADER_LENGTH}) at {@code offset}. */
    public static void write(final MutableDirectBuffer buffer, final int offset, final int length, final int kind,
        final int sender, final long counter, final long timestamp)
    {
        final long seed = seed(kind, sender, counter, timestamp);
        long a = seed;
        long b = Long.rotateLeft(seed, 16);
        long c = Long.rotateLeft(seed, 32);
        long d = Long.rotateLeft(seed, 48);
        long word = counter * GOLDEN ^ sender;
        buffer.boundsCheck(offset, length); // once per message: the loops below write unchecked, as the reads do
        final byte[] array = buffer.byteArray();
        final long at = buffer.addressOffset() + offset;
        int i = HEADER_LENGTH;
        for (; i + LANES_LENGTH <= length; i += LANES_LENGTH)
        {
            word += GOLDEN;
            UnsafeApi.putLong(array, at + i, word);
            a = mix(a, word);
            word += GOLDEN;
            UnsafeApi.putLong(array, at + i + 8, word);
            b = mix(b, word);
            word += GOLDEN;
            UnsafeApi.putLong(array, at + i + 16, word);
            c = mix(c, word);
            word += GOLDEN;
            UnsafeApi.putLong(array, at + i + 24, word);
            d = mix(d, word);
        }
        for (; i + 8 <= length; i += 8)
        {
            word += GOLDEN;
            UnsafeApi.putLong(array, at + i, word);
            a = mix(a, word);
        }
        for (; i < length; i++)
        {
            final byte v = (byte)(word >>> ((i & 7) << 3));
            UnsafeApi.putByte(array, at + i, v);
            a = mix(a, v);
        }
        final long sum = combine(a, b, c, d);
        buffer.putLong(offset + COUNTER_OFFSET, counter);
        buffer.putLong(offset + TIMESTAMP_OFFSET, timestamp);
        buffer.putInt(offset + SENDER_OFFSET, sender);
        buffer.putInt(offset + KIND_OFFSET, kind);
        buffer.putLong(offset + CHECKSUM_OFFSET, sum);
    }

    /** Reads every byte of the message and returns whether its checksum holds. */
    public static boolean verify(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH)
        {
            return false;
        }
        final long seed =
            seed(kind(buffer, offset), sender(buffer, offset), counter(buffer, offset), timestamp(buffer, offset));
        long a = seed;
        long b = Long.rotateLeft(seed, 16);
        long c = Long.rotateLeft(seed, 32);
        long d = Long.rotateLeft(seed, 48);
        buffer.boundsCheck(offset, length); // once per message, not once per word
        final byte[] array = buffer.byteArray();
        final long at = buffer.addressOffset() + offset;
        int i = HEADER_LENGTH;
        for (; i + LANES_LENGTH <= length; i += LANES_LENGTH)
        {
            a = mix(a, UnsafeApi.getLong(array, at + i));
            b = mix(b, UnsafeApi.getLong(array, at + i + 8));
            c = mix(c, UnsafeApi.getLong(array, at + i + 16));
            d = mix(d, UnsafeApi.getLong(array, at + i + 24));
        }
        for (; i + 8 <= length; i += 8)
        {
            a = mix(a, UnsafeApi.getLong(array, at + i));
        }
        for (; i < length; i++)
        {
            a = mix(a, UnsafeApi.getByte(array, at + i));
        }
        final long sum = combine(a, b, c, d);
        return sum == buffer.getLong(offset + CHECKSUM_OFFSET);
    }

    public static long counter(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + COUNTER_OFFSET);
    }

    public static long timestamp(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + TIMESTAMP_OFFSET);
    }

    public static int sender(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + SENDER_OFFSET);
    }

    public static int kind(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + KIND_OFFSET);
    }

    private static long seed(final int kind, final int sender, final long counter, final long timestamp)
    {
        return mix(mix(mix(mix(GOLDEN, kind), sender), counter), timestamp);
    }

    // the lanes in a fixed order, each rotated before the next: a word moved to another lane changes the sum
    private static long combine(final long a, final long b, final long c, final long d)
    {
        return mix(mix(mix(a, b), c), d);
    }

    // a rotation before each word makes the sum depend on position: a flipped bit anywhere changes it
    private static long mix(final long sum, final long value)
    {
        return Long.rotateLeft(sum, 7) ^ value;
    }
}

package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A HyperLogLog sketch kept in a string as Redis keeps it: "HYLL", its encoding (0 dense, 1 sparse), three zero
 * bytes, a cached cardinality (8 bytes, little-endian, its top bit set while stale), then 16,384 registers: dense,
 * 6 bits each (12,288 bytes), or sparse, as runs (ZERO {@code 00xxxxxx}: 1-64 zeros; XZERO {@code 01xxxxxx
 * yyyyyyyy}: 1-16,384 zeros; VAL {@code 1vvvvvxx}: 1-4 registers of value 1-32). Elements hash with Redis's
 * MurmurHash64A and seed, and counts use Ertl's estimator as Redis 5 and later do, so a count here is Redis's count
 * for the same elements. Sparse runs are written canonically (the fewest, longest runs), which Redis's in-place edits
 * need not be; a sketch turns dense, for good, once a register passes 32 or its runs 3,000 bytes, as in Redis.
 */
final class HllSketch
{
    static final int REGISTERS = 1 << 14;
    static final int HEADER = 16;
    static final int DENSE_SIZE = HEADER + REGISTERS * 6 / 8;
    private static final int P = 14;
    private static final int Q = 64 - P;
    private static final byte DENSE = 0;
    private static final byte SPARSE = 1;
    /** Redis's {@code hll-sparse-max-bytes} default, header included. */
    private static final int SPARSE_MAX_BYTES = 3000;
    private static final int SPARSE_MAX_VALUE = 32;
    private static final int ZERO_MAX_LENGTH = 64;
    /** Redis's {@code HLL_ALPHA_INF}, 0.5 / ln 2, as the literal it writes. */
    private static final double ALPHA_INF = 0.721347520444481703680;
    private static final byte[] MAGIC = "HYLL".getBytes(StandardCharsets.US_ASCII);

    private HllSketch()
    {
    }

    /** A new sketch of no elements: sparse, one XZERO run, its cached count 0 and current, as Redis makes one. */
    static byte[] empty()
    {
        final byte[] sketch = Arrays.copyOf(MAGIC, HEADER + 2);
        sketch[4] = SPARSE;
        sketch[HEADER] = (byte)(0x40 | (REGISTERS - 1) >>> 8);
        sketch[HEADER + 1] = (byte)(REGISTERS - 1);
        return sketch;
    }

    /** Whether {@code value} can be a sketch, as Redis checks one: its header, and a dense one's exact length. */
    static boolean isSketch(final byte[] value)
    {
        return value.length >= HEADER && Arrays.equals(value, 0, 4, MAGIC, 0, 4) && (value[4] == DENSE ||
            value[4] == SPARSE) && (value[4] == SPARSE || value.length == DENSE_SIZE);
    }

    /** A sketch's cached count, or -1 if stale. */
    static long cachedCount(final byte[] sketch)
    {
        if ((sketch[15] & 0x80) != 0)
        {
            return -1;
        }
        long count = 0;
        for (int i = 7; i >= 0; i--)
        {
            count = count << 8 | (sketch[8 + i] & 0xFF);
        }
        return count;
    }

    /**
     * Adds {@code sketch}'s registers into {@code registers} (one byte each), each the larger of the two; false if its
     * sparse runs do not cover exactly 16,384 registers (a corrupted sketch).
     */
    static boolean mergeInto(final byte[] registers, final byte[] sketch)
    {
        if (sketch[4] == DENSE)
        {
            for (int i = 0; i < REGISTERS; i++)
            {
                registers[i] = (byte)Math.max(registers[i], dense(sketch, i));
            }
            return true;
        }
        int at = 0;
        for (int p = HEADER; p < sketch.length; p++)
        {
            final int op = sketch[p] & 0xFF;
            final int run;
            if (op < 0x40) // ZERO
            {
                run = op + 1;
            }
            else if (op < 0x80) // XZERO, two bytes
            {
                if (++p == sketch.length)
                {
                    return false;
                }
                run = ((op & 0x3F) << 8 | sketch[p] & 0xFF) + 1;
            }
            else // VAL
            {
                run = (op & 3) + 1;
            }
            if (at + run > REGISTERS)
            {
                return false;
            }
            for (int i = at; op >= 0x80 && i < at + run; i++)
            {
                registers[i] = (byte)Math.max(registers[i], (op >>> 2 & 0x1F) + 1);
            }
            at += run;
        }
        return at == REGISTERS;
    }

    /** Adds {@code element} to {@code registers}: whether its register grew. */
    static boolean add(final byte[] registers, final byte[] element)
    {
        final long hash = murmurHash64A(element);
        final int index = (int)(hash & (REGISTERS - 1));
        final int run = Long.numberOfTrailingZeros(hash >>> P | 1L << Q) + 1; // the pattern 0...01's length
        if (run <= registers[index])
        {
            return false;
        }
        registers[index] = (byte)run;
        return true;
    }

    static boolean isDense(final byte[] sketch)
    {
        return sketch[4] == DENSE;
    }

    /**
     * The sketch of {@code registers}, after {@code before} (its header kept, its cached count marked stale): sparse
     * if {@code before} was, no {@code dense} one was asked for and the runs allow it; dense otherwise.
     */
    static byte[] encode(final byte[] registers, final byte[] before, final boolean dense)
    {
        final byte[] sparse = before[4] == SPARSE && !dense ? sparse(registers) : null;
        final byte[] sketch = sparse != null ? sparse : packed(registers);
        System.arraycopy(before, 0, sketch, 0, HEADER);
        sketch[4] = sparse != null ? SPARSE : DENSE;
        sketch[15] |= (byte)0x80;
        return sketch;
    }

    /** A dense sketch's bytes after a header's room: register {@code i} at bit {@code 6i}, least significant first. */
    private static byte[] packed(final byte[] registers)
    {
        final byte[] sketch = new byte[DENSE_SIZE];
        for (int i = 0; i < REGISTERS; i++)
        {
            final int bit = i * 6;
            sketch[HEADER + bit / 8] |= (byte)(registers[i] << (bit & 7));
            if ((bit & 7) > 2)
            {
                sketch[HEADER + bit / 8 + 1] |= (byte)(registers[i] >>> (8 - (bit & 7)));
            }
        }
        return sketch;
    }

    /** The estimated count of distinct elements that made {@code registers} (Ertl, arXiv:1702.01284, as Redis). */
    static long count(final byte[] registers)
    {
        final int[] histogram = new int[64]; // a dense register holds up to 63; the estimate reads up to Q + 1
        for (final byte r : registers)
        {
            histogram[r]++;
        }
        final double m = REGISTERS;
        double z = m * tau((m - histogram[Q + 1]) / m);
        for (int j = Q; j >= 1; j--)
        {
            z += histogram[j];
            z *= 0.5;
        }
        z += m * sigma(histogram[0] / m);
        return Math.round(ALPHA_INF * m * m / z);
    }

    /** {@code registers} as the fewest runs after a header's room; null if a value or the size is past sparse. */
    private static byte[] sparse(final byte[] registers)
    {
        final byte[] out = new byte[SPARSE_MAX_BYTES];
        int length = HEADER;
        for (int i = 0; i < REGISTERS; )
        {
            final int value = registers[i];
            int run = 1;
            while (i + run < REGISTERS && registers[i + run] == value)
            {
                run++;
            }
            final int bytes = value == 0 ? (run > ZERO_MAX_LENGTH ? 2 : 1) : (run + 3) / 4;
            if (value > SPARSE_MAX_VALUE || length + bytes > SPARSE_MAX_BYTES)
            {
                return null;
            }
            if (value == 0 && run > ZERO_MAX_LENGTH)
            {
                out[length++] = (byte)(0x40 | (run - 1) >>> 8);
                out[length++] = (byte)(run - 1);
            }
            else if (value == 0)
            {
                out[length++] = (byte)(run - 1);
            }
            for (int left = run; value != 0 && left > 0; left -= 4)
            {
                out[length++] = (byte)(0x80 | (value - 1) << 2 | Math.min(left, 4) - 1);
            }
            i += run;
        }
        return Arrays.copyOf(out, length);
    }

    /** Register {@code i} of a dense sketch: 6 bits from bit {@code 6i} of its registers, least significant first. */
    private static int dense(final byte[] sketch, final int i)
    {
        final int bit = i * 6;
        final int at = HEADER + bit / 8;
        final int high = at + 1 < sketch.length ? (sketch[at + 1] & 0xFF) << (8 - (bit & 7)) : 0;
        return ((sketch[at] & 0xFF) >>> (bit & 7) | high) & 0x3F;
    }

    private static double sigma(final double x)
    {
        if (x == 1.0)
        {
            return Double.POSITIVE_INFINITY;
        }
        double power = x;
        double y = 1;
        double z = x;
        double previous;
        do
        {
            power *= power;
            previous = z;
            z += power * y;
            y += y;
        }
        while (previous != z);
        return z;
    }

    private static double tau(final double x)
    {
        if (x == 0.0 || x == 1.0)
        {
            return 0.0;
        }
        double root = x;
        double y = 1.0;
        double z = 1 - x;
        double previous;
        do
        {
            root = Math.sqrt(root);
            previous = z;
            y *= 0.5;
            z -= (1 - root) * (1 - root) * y;
        }
        while (previous != z);
        return z / 3;
    }

    /** Redis's MurmurHash64A of {@code key} with its seed 0xadc83b19, 8-byte words read little-endian. */
    static long murmurHash64A(final byte[] key)
    {
        final long m = 0xc6a4a7935bd1e995L;
        final int r = 47;
        final int len = key.length;
        long h = 0xadc83b19L ^ (len * m);
        final int words = len - (len & 7);
        for (int i = 0; i < words; i += 8)
        {
            long k = 0;
            for (int b = 7; b >= 0; b--)
            {
                k = k << 8 | (key[i + b] & 0xFF);
            }
            k *= m;
            k ^= k >>> r;
            k *= m;
            h ^= k;
            h *= m;
        }
        if ((len & 7) != 0)
        {
            for (int b = (len & 7) - 1; b >= 0; b--)
            {
                h ^= (long)(key[words + b] & 0xFF) << (8 * b);
            }
            h *= m;
        }
        h ^= h >>> r;
        h *= m;
        h ^= h >>> r;
        return h;
    }
}

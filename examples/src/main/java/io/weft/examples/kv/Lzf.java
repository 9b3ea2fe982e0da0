package io.weft.examples.kv;

/**
 * LZF decompression (liblzf's format, which Redis compresses long strings and list nodes of a DUMP payload in): a
 * control byte below 32 starts a run of that many plus one literal bytes; any other is a back reference, its length
 * in the top 3 bits (7: plus the next byte) plus 2, its distance in the low 5 bits and the next byte, plus 1.
 */
final class Lzf
{
    private Lzf()
    {
    }

    /**
     * The {@code length} bytes that {@code in}'s {@code compressed} bytes from {@code from} decompress to; null if
     * they are no LZF data of exactly that length (a reference before the start, a run past either end).
     */
    static byte[] decompress(final byte[] in, final int from, final int compressed, final int length)
    {
        final byte[] out = new byte[length];
        final int end = from + compressed;
        int i = from;
        int o = 0;
        while (i < end)
        {
            final int control = in[i++] & 0xff;
            if (control < 32)
            {
                final int run = control + 1;
                if (i + run > end || o + run > length)
                {
                    return null;
                }
                System.arraycopy(in, i, out, o, run);
                i += run;
                o += run;
                continue;
            }
            int run = control >>> 5;
            if (run == 7)
            {
                if (i >= end)
                {
                    return null;
                }
                run += in[i++] & 0xff;
            }
            if (i >= end)
            {
                return null;
            }
            final int ref = o - ((control & 0x1f) << 8) - (in[i++] & 0xff) - 1;
            run += 2;
            if (ref < 0 || o + run > length)
            {
                return null;
            }
            for (int k = 0; k < run; k++) // byte by byte: a reference may overlap what it writes
            {
                out[o++] = out[ref + k];
            }
        }
        return o == length ? out : null;
    }
}

package io.weft.examples.kv;

import java.io.ByteArrayOutputStream;

/**
 * Builds a listpack as Redis 7's listpack.c lays one out ({@link RdbReader#listpack} reads it): a header of its total
 * bytes and its count of elements (65535 once past 65534), each element as its encoding, its data and its length
 * written backwards, then 0xFF. As lpAppend does, a string that is an integer's canonical decimal form is kept as
 * that integer, in the smallest encoding that holds it: what Redis would build from the same appends, byte for byte.
 */
final class ListpackWriter
{
    /** The header's bytes: the first element follows them. */
    static final int HEADER = 6;
    /** listpack.c's LP_HDR_NUMELE_UNKNOWN: the count is past what the header holds. */
    private static final int UNKNOWN_COUNT = 0xffff;

    /** The bytes so far, the header's place first. */
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int elements;

    ListpackWriter()
    {
        body.writeBytes(new byte[HEADER]);
    }

    /** What the listpack takes now, header and end mark included (lpBytes). */
    int size()
    {
        return body.size() + 1;
    }

    /** Appends {@code s}: as an integer if it is one's canonical decimal form, else as a string. */
    void add(final byte[] s)
    {
        if (ValueEdits.isInteger(s)) // lpStringToInt64 takes what string2ll takes
        {
            add(ValueEdits.integer(s));
            return;
        }
        final int start = body.size();
        if (s.length < 1 << 6)
        {
            body.write(0x80 | s.length);
        }
        else if (s.length < 1 << 12)
        {
            body.write(0xe0 | s.length >>> 8);
            body.write(s.length & 0xff);
        }
        else
        {
            body.write(0xf0);
            littleEndian(s.length, 4);
        }
        body.writeBytes(s);
        backLength(body.size() - start);
    }

    /** Appends integer {@code v} in the smallest of listpack's integer encodings. */
    void add(final long v)
    {
        final int start = body.size();
        if (v >= 0 && v <= 127)
        {
            body.write((int)v);
        }
        else if (v >= -4096 && v <= 4095)
        {
            body.write(0xc0 | (int)(v >>> 8) & 0x1f); // 13 bits, two's complement
            body.write((int)v & 0xff);
        }
        else
        {
            final int bytes = v >= Short.MIN_VALUE && v <= Short.MAX_VALUE ? 2 : v >= -(1 << 23) && v < 1 << 23 ? 3 :
                v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? 4 : 8;
            body.write(switch (bytes)
            {
                case 2 -> 0xf1;
                case 3 -> 0xf2;
                case 4 -> 0xf3;
                default -> 0xf4;
            });
            littleEndian(v, bytes);
        }
        backLength(body.size() - start);
    }

    /** The listpack, its header filled in. */
    byte[] toByteArray()
    {
        body.write(0xff);
        final byte[] lp = body.toByteArray();
        final int count = Math.min(elements, UNKNOWN_COUNT);
        for (int i = 0; i < 4; i++)
        {
            lp[i] = (byte)(lp.length >>> 8 * i);
        }
        lp[4] = (byte)count;
        lp[5] = (byte)(count >>> 8);
        return lp;
    }

    /** An element's length, in 7-bit groups from its last byte back, the high bit set on all but the first. */
    private void backLength(final int length)
    {
        elements++;
        final int groups = length <= 127 ? 1 : length < 16383 ? 2 : length < 2097151 ? 3 : length < 268435455 ? 4 : 5;
        for (int g = groups - 1; g >= 0; g--)
        {
            body.write(length >>> 7 * g & 0x7f | (g == groups - 1 ? 0 : 0x80));
        }
    }

    private void littleEndian(final long v, final int bytes)
    {
        for (int i = 0; i < bytes; i++)
        {
            body.write((int)(v >>> 8 * i) & 0xff);
        }
    }
}

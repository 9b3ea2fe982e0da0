package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a value in Redis's RDB serialization, a DUMP payload's body: lengths, strings (plain, as integers, LZF
 * compressed), doubles, and the blobs Redis packs small values in (listpacks since Redis 7, ziplists before, intsets).
 * Every read checks its bounds against the payload, and no count read from it sizes an allocation before its
 * elements are read: a payload that is no such value throws {@link Malformed}, whatever its bytes.
 */
final class RdbReader
{
    /** A payload that is not a value of Redis's serialization: RESTORE's "Bad data format". */
    static final class Malformed extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Malformed()
        {
            super("ERR Bad data format", null, false, false);
        }
    }

    static final Malformed MALFORMED = new Malformed();
    /** An LZF stream expands at most 88 times (a 3-byte reference copies 264 bytes): a larger length is a lie. */
    private static final int LZF_MAX_RATIO = 90;

    private final byte[] in;
    private final int end;
    private int at;

    /** Reads {@code in} from {@code from} up to {@code end}. */
    RdbReader(final byte[] in, final int from, final int end)
    {
        this.in = in;
        this.at = from;
        this.end = end;
    }

    /** Where the next read starts. */
    int position()
    {
        return at;
    }

    /** The next byte, unsigned. */
    int u8()
    {
        need(1);
        return in[at++] & 0xff;
    }

    /** A length: 6 or 14 bits, or 0x80 and 32 bits or 0x81 and 64 bits, big-endian; negative past 2^63. */
    long length()
    {
        final int first = u8();
        return switch (first >>> 6)
        {
            case 0 -> first & 0x3f;
            case 1 -> (first & 0x3f) << 8 | u8();
            case 2 -> first == 0x80 ? bigEndian(4) : first == 0x81 ? bigEndian(8) : fail();
            default -> fail(); // a string's special encoding is no length
        };
    }

    /** A count of things that follow, each of at least one byte, so never above what is left. */
    int count()
    {
        final long n = length();
        if (n < 0 || n > end - at)
        {
            throw MALFORMED;
        }
        return (int)n;
    }

    /** A string: its bytes, an integer saved as 8, 16 or 32 bits (its decimal digits), or LZF compressed. */
    byte[] string()
    {
        need(1);
        final int first = in[at] & 0xff;
        if (first >>> 6 != 3)
        {
            return bytes(count());
        }
        at++;
        return switch (first & 0x3f)
        {
            case 0 -> decimal((byte)u8());
            case 1 -> decimal((short)littleEndian(2));
            case 2 -> decimal((int)littleEndian(4));
            case 3 -> lzf();
            default -> throw MALFORMED;
        };
    }

    /** An LZF-compressed string: its compressed length, its length, then the compressed bytes. */
    private byte[] lzf()
    {
        final int compressed = count();
        final long length = length(); // may pass what is left, unlike a count
        if (length <= 0 || length > (long)LZF_MAX_RATIO * compressed + 64 || length > Integer.MAX_VALUE - 8)
        {
            throw MALFORMED;
        }
        need(compressed);
        final byte[] out = Lzf.decompress(in, at, compressed, (int)length);
        if (out == null)
        {
            throw MALFORMED;
        }
        at += compressed;
        return out;
    }

    /** A double as ZSET_2 saves it: 8 bytes, little-endian. */
    double binaryDouble()
    {
        return Double.longBitsToDouble(littleEndian(8));
    }

    /** A double as the old ZSET saves it: its length in a byte, then its text; 253 NaN, 254 inf, 255 -inf. */
    double textDouble()
    {
        final int length = u8();
        return switch (length)
        {
            case 253 -> Double.NaN;
            case 254 -> Double.POSITIVE_INFINITY;
            case 255 -> Double.NEGATIVE_INFINITY;
            default -> score(bytes(length));
        };
    }

    /** A score saved as its text (an old ZSET's, or a packed sorted set's): as strtod reads it, NaN if none. */
    static double score(final byte[] text)
    {
        return Strtod.read(new String(text, StandardCharsets.ISO_8859_1), false);
    }

    /** The entries of a listpack (Redis 7's small lists, hashes, sorted sets): strings and integers as digits. */
    static List<byte[]> listpack(final byte[] lp)
    {
        final RdbReader r = new RdbReader(lp, 0, lp.length);
        if (r.littleEndian(4) != lp.length || lp.length < 7 || (lp[lp.length - 1] & 0xff) != 0xff)
        {
            throw MALFORMED;
        }
        final int declared = (int)r.littleEndian(2);
        final List<byte[]> entries = new ArrayList<>();
        while (r.at < lp.length - 1)
        {
            final int start = r.at;
            final int b = r.u8();
            final byte[] entry;
            if (b < 0x80)
            {
                entry = decimal(b);
            }
            else if (b >>> 6 == 2)
            {
                entry = r.bytes(b & 0x3f);
            }
            else if (b >>> 5 == 6)
            {
                entry = decimal(((b & 0x1f) << 8 | r.u8()) << 19 >> 19); // 13 bits, signed
            }
            else if (b >>> 4 == 0xe)
            {
                entry = r.bytes((b & 0x0f) << 8 | r.u8());
            }
            else
            {
                entry = switch (b)
                {
                    case 0xf0 -> r.bytes(r.size(r.littleEndian(4)));
                    case 0xf1 -> decimal((short)r.littleEndian(2));
                    case 0xf2 -> decimal((int)r.littleEndian(3) << 8 >> 8);
                    case 0xf3 -> decimal((int)r.littleEndian(4));
                    case 0xf4 -> decimal(r.littleEndian(8));
                    default -> throw MALFORMED;
                };
            }
            final int length = r.at - start; // its back length follows: the entry's length in 1 to 5 bytes
            r.skip(length <= 127 ? 1 : length < 16383 ? 2 : length < 2097151 ? 3 : length < 268435455 ? 4 : 5);
            entries.add(entry);
        }
        if (r.at != r.end - 1 || declared != 0xffff && declared != entries.size()) // an entry ran into the end mark
        {
            throw MALFORMED;
        }
        return entries;
    }

    /** The entries of a ziplist (small lists, hashes and sorted sets before Redis 7). */
    static List<byte[]> ziplist(final byte[] zl)
    {
        final RdbReader r = new RdbReader(zl, 0, zl.length);
        if (r.littleEndian(4) != zl.length || zl.length < 11 || (zl[zl.length - 1] & 0xff) != 0xff)
        {
            throw MALFORMED;
        }
        r.skip(4); // the offset of the last entry
        final int declared = (int)r.littleEndian(2);
        final List<byte[]> entries = new ArrayList<>();
        while (r.at < zl.length - 1)
        {
            final int previous = r.u8(); // the previous entry's length: a byte, or 254 and four
            r.skip(previous < 254 ? 0 : previous == 254 ? 4 : RdbReader.<Integer>fail());
            final int b = r.u8();
            entries.add(switch (b >>> 6)
            {
                case 0 -> r.bytes(b & 0x3f);
                case 1 -> r.bytes((b & 0x3f) << 8 | r.u8());
                case 2 -> b == 0x80 ? r.bytes(r.size(r.bigEndian(4))) : fail();
                default -> switch (b)
                {
                    case 0xc0 -> decimal((short)r.littleEndian(2));
                    case 0xd0 -> decimal((int)r.littleEndian(4));
                    case 0xe0 -> decimal(r.littleEndian(8));
                    case 0xf0 -> decimal((int)r.littleEndian(3) << 8 >> 8);
                    case 0xfe -> decimal((byte)r.u8());
                    default -> b > 0xf0 && b < 0xfe ? decimal((b & 0x0f) - 1) : fail();
                };
            });
        }
        if (r.at != r.end - 1 || declared != 0xffff && declared != entries.size()) // an entry ran into the end mark
        {
            throw MALFORMED;
        }
        return entries;
    }

    /** The members of an intset: its width (2, 4 or 8 bytes), its count, then the integers, little-endian. */
    static List<byte[]> intset(final byte[] set)
    {
        final RdbReader r = new RdbReader(set, 0, set.length);
        final long width = r.littleEndian(4);
        final long count = r.littleEndian(4);
        if (width != 2 && width != 4 && width != 8 || set.length != 8 + width * count)
        {
            throw MALFORMED;
        }
        final List<byte[]> members = new ArrayList<>((int)count);
        for (int i = 0; i < count; i++)
        {
            final long v = r.littleEndian((int)width);
            members.add(decimal(width == 2 ? (short)v : width == 4 ? (int)v : v));
        }
        return members;
    }

    private byte[] bytes(final int length)
    {
        need(length);
        final byte[] b = new byte[length];
        System.arraycopy(in, at, b, 0, length);
        at += length;
        return b;
    }

    private void skip(final int n)
    {
        need(n);
        at += n;
    }

    private int size(final long n)
    {
        if (n > end - at)
        {
            throw MALFORMED;
        }
        return (int)n;
    }

    private void need(final int n)
    {
        if (n < 0 || n > end - at)
        {
            throw MALFORMED;
        }
    }

    /** {@code n} bytes as an unsigned big-endian integer (8 bytes: the long they make). */
    long bigEndian(final int n)
    {
        need(n);
        long v = 0;
        for (int i = 0; i < n; i++)
        {
            v = v << 8 | in[at++] & 0xff;
        }
        return v;
    }

    /** {@code n} bytes as an unsigned little-endian integer (8 bytes: the long they make). */
    long littleEndian(final int n)
    {
        need(n);
        long v = 0;
        for (int i = 0; i < n; i++)
        {
            v |= (in[at++] & 0xffL) << 8 * i;
        }
        return v;
    }

    private static byte[] decimal(final long v)
    {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    /** Throws {@link #MALFORMED}: for an expression of any type. */
    private static <T> T fail()
    {
        throw MALFORMED;
    }
}

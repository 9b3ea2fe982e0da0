package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's {@code cmsgpack} library for scripts (lua-cmsgpack 0.4.0 as Redis 7.0 carries it): {@code pack},
 * {@code unpack}, {@code unpack_one} and {@code unpack_limit}. A number equal to a 64-bit integer is packed as the
 * smallest integer form, another as a float when a float holds it exactly, else a double; a table whose keys are 1 to n
 * is an array (an empty one too), another a map; tables nested past 16 levels, functions and other values pack as
 * nil. Unpacking knows the forms pack makes (bin and ext are bad data, as in Redis) and nests at most
 * {@value #MAX_UNPACK_DEPTH} deep (Redis has no bound; here Java's stack, which differs between members, must not end a
 * script). Errors are worded as lua-cmsgpack's. A map's pairs come in LuaJ's table order, the same at every member.
 */
final class LuaCmsgpack
{
    private static final int MAX_NESTING = 16;
    private static final int MAX_UNPACK_DEPTH = 1000;

    private LuaCmsgpack()
    {
    }

    /** {@return the library's table: pack, unpack, unpack_one and unpack_limit} */
    static LuaTable library()
    {
        final LuaTable cmsgpack = new LuaTable();
        cmsgpack.set("pack", ScriptRuntime.function(args ->
        {
            if (args.narg() == 0)
            {
                throw new LuaError("bad argument #0 to 'pack' (MessagePack pack needs input.)");
            }
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = 1; i <= args.narg(); i++)
            {
                pack(args.arg(i), out, 0);
            }
            return LuaValue.valueOf(out.toByteArray());
        }));
        cmsgpack.set("unpack", ScriptRuntime.function(args -> unpack(input(args, "unpack"), 0, 0)));
        cmsgpack.set("unpack_one", ScriptRuntime.function(args ->
            unpack(input(args, "unpack_one"), 1, integer(args, 2, "unpack_one", 0))));
        cmsgpack.set("unpack_limit", ScriptRuntime.function(args ->
        {
            final LuaString data = input(args, "unpack_limit");
            final int limit = integer(args, 2, "unpack_limit", null);
            return unpack(data, limit, integer(args, 3, "unpack_limit", 0));
        }));
        return cmsgpack;
    }

    private static LuaString input(final Varargs args, final String function)
    {
        final LuaValue v = args.arg1();
        if (!v.isstring())
        {
            throw ScriptRuntime.badArgument(args, 1, function, "string");
        }
        return v.checkstring();
    }

    /** Argument {@code i} as an integer, {@code absent} when it is missing (null: it must be given). */
    private static int integer(final Varargs args, final int i, final String function, final Integer absent)
    {
        final LuaValue v = args.arg(i);
        if (v.isnil() && absent != null)
        {
            return absent;
        }
        if (!v.isnumber())
        {
            throw ScriptRuntime.badArgument(args, i, function, "number");
        }
        return (int)v.todouble();
    }

    private static void pack(final LuaValue v, final ByteArrayOutputStream out, final int level)
    {
        switch (v.type())
        {
            case LuaValue.TSTRING -> string(v.checkstring(), out);
            case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
            case LuaValue.TNUMBER -> number(v.todouble(), out);
            case LuaValue.TTABLE ->
            {
                if (level == MAX_NESTING)
                {
                    out.write(0xc0); // as lua-cmsgpack, which so survives a table that holds itself
                }
                else
                {
                    table((LuaTable)v, out, level);
                }
            }
            default -> out.write(0xc0);
        }
    }

    private static void string(final LuaString s, final ByteArrayOutputStream out)
    {
        final int n = s.m_length;
        if (n < 32)
        {
            out.write(0xa0 | n);
        }
        else if (n <= 0xff)
        {
            out.write(0xd9);
            out.write(n);
        }
        else if (n <= 0xffff)
        {
            header(0xda, n, 2, out);
        }
        else
        {
            header(0xdb, n, 4, out);
        }
        out.write(s.m_bytes, s.m_offset, n);
    }

    private static void number(final double d, final ByteArrayOutputStream out)
    {
        // C's (int64_t)d == d, where x86 makes any double out of range the least integer
        if (d >= -Lua51Format.TWO_TO_63 && d < Lua51Format.TWO_TO_63 && (long)d == d)
        {
            integer((long)d, out);
        }
        else if ((float)d == d)
        {
            header(0xca, Float.floatToRawIntBits((float)d), 4, out);
        }
        else
        {
            // a NaN as x86 makes one (0/0, inf - inf: the sign bit set), what Redis writes; Java's has it clear
            header(0xcb, Double.isNaN(d) ? Lua51Format.X86_NAN : Double.doubleToRawLongBits(d), 8, out);
        }
    }

    private static void integer(final long n, final ByteArrayOutputStream out)
    {
        if (n >= 0)
        {
            if (n <= 127)
            {
                out.write((int)n);
            }
            else
            {
                final int bytes = n <= 0xff ? 1 : n <= 0xffff ? 2 : n <= 0xffffffffL ? 4 : 8;
                header(bytes == 1 ? 0xcc : bytes == 2 ? 0xcd : bytes == 4 ? 0xce : 0xcf, n, bytes, out);
            }
        }
        else if (n >= -32)
        {
            out.write((int)n & 0xff);
        }
        else
        {
            final int bytes = n >= -128 ? 1 : n >= -32768 ? 2 : n >= Integer.MIN_VALUE ? 4 : 8;
            header(bytes == 1 ? 0xd0 : bytes == 2 ? 0xd1 : bytes == 4 ? 0xd2 : 0xd3, n, bytes, out);
        }
    }

    /** A type byte and the low {@code bytes} bytes of {@code value}, big-endian. */
    private static void header(final int type, final long value, final int bytes, final ByteArrayOutputStream out)
    {
        out.write(type);
        for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8)
        {
            out.write((int)(value >>> shift) & 0xff);
        }
    }

    private static void table(final LuaTable t, final ByteArrayOutputStream out, final int level)
    {
        double max = 0;
        int count = 0;
        for (Varargs e = t.next(LuaValue.NIL); !e.arg1().isnil(); e = t.next(e.arg1()))
        {
            final LuaValue key = e.arg1();
            final double k = key.type() == LuaValue.TNUMBER ? key.todouble() : 0;
            max = k > 0 && k == Math.floor(k) && max >= 0 ? Math.max(max, k) : -1;
            count++;
        }
        if (max == count) // keys 1 to count: an array (an empty table too)
        {
            collection(0x90, 0xdc, 0xdd, count, out);
            for (int i = 1; i <= count; i++)
            {
                pack(t.rawget(i), out, level + 1);
            }
            return;
        }
        collection(0x80, 0xde, 0xdf, count, out);
        for (Varargs e = t.next(LuaValue.NIL); !e.arg1().isnil(); e = t.next(e.arg1()))
        {
            pack(e.arg1(), out, level + 1);
            pack(e.arg(2), out, level + 1);
        }
    }

    private static void collection(final int fix, final int sixteen, final int thirtyTwo, final int n,
        final ByteArrayOutputStream out)
    {
        if (n < 16)
        {
            out.write(fix | n);
        }
        else
        {
            header(n <= 0xffff ? sixteen : thirtyTwo, n, n <= 0xffff ? 2 : 4, out);
        }
    }

    /**
     * Unpacks from byte {@code offset} on: every value when {@code limit} is 0 (then only the values), else at most
     * {@code limit}, preceded by the offset to go on from (-1 once the input is used up).
     */
    private static Varargs unpack(final LuaString data, final int limit, final int offset)
    {
        final int length = data.m_length;
        if (offset < 0 || limit < 0)
        {
            throw new LuaError("Invalid request to unpack with offset of " + offset + " and limit of " + length + ".");
        }
        if (offset > length)
        {
            throw new LuaError("Start offset " + offset + " greater than input length " + length + ".");
        }
        final Reader reader = new Reader(data, offset);
        final List<LuaValue> values = new ArrayList<>();
        if (limit > 0)
        {
            values.add(LuaValue.NIL); // the offset to go on from, known at the end
        }
        while (reader.left() > 0 && (limit == 0 || values.size() <= limit))
        {
            values.add(reader.value(0));
        }
        if (limit > 0)
        {
            values.set(0, LuaValue.valueOf(reader.left() == 0 ? -1 : length - reader.left()));
        }
        return LuaValue.varargsOf(values.toArray(LuaValue[]::new));
    }

    /** Reads values from a packed string, lua-cmsgpack's errors when it is short or holds a form it does not know. */
    private static final class Reader
    {
        private final byte[] bytes;
        private final int end;
        private int at;

        /** Reads {@code data} from its byte {@code offset} on. */
        Reader(final LuaString data, final int offset)
        {
            bytes = data.m_bytes;
            at = data.m_offset + offset;
            end = data.m_offset + data.m_length;
        }

        int left()
        {
            return end - at;
        }

        LuaValue value(final int depth)
        {
            if (depth > MAX_UNPACK_DEPTH)
            {
                throw new LuaError("cmsgpack: values nested past " + MAX_UNPACK_DEPTH + " levels");
            }
            final int type = (int)next(1);
            if (type <= 0x7f || type >= 0xe0)
            {
                return LuaValue.valueOf((byte)type);
            }
            if (type >= 0xa0 && type <= 0xbf)
            {
                return string(type & 0x1f);
            }
            if (type >= 0x90 && type <= 0x9f)
            {
                return array(type & 0x0f, depth);
            }
            if (type >= 0x80 && type <= 0x8f)
            {
                return map(type & 0x0f, depth);
            }
            return switch (type)
            {
                case 0xc0 -> LuaValue.NIL;
                case 0xc2 -> LuaValue.FALSE;
                case 0xc3 -> LuaValue.TRUE;
                case 0xca -> LuaValue.valueOf(Float.intBitsToFloat((int)next(4)));
                case 0xcb -> LuaValue.valueOf(Double.longBitsToDouble(next(8)));
                case 0xcc, 0xcd, 0xce, 0xcf -> LuaValue.valueOf((double)next(1 << (type - 0xcc)));
                case 0xd0 -> LuaValue.valueOf((byte)next(1));
                case 0xd1 -> LuaValue.valueOf((short)next(2));
                case 0xd2 -> LuaValue.valueOf((int)next(4));
                case 0xd3 -> LuaValue.valueOf((double)next(8));
                case 0xd9 -> string((int)next(1));
                case 0xda -> string((int)next(2));
                case 0xdb -> string(size(next(4)));
                case 0xdc -> array((int)next(2), depth);
                case 0xdd -> array(size(next(4)), depth);
                case 0xde -> map((int)next(2), depth);
                case 0xdf -> map(size(next(4)), depth);
                default -> throw new LuaError("Bad data format in input.");
            };
        }

        /** The next {@code n} bytes as an unsigned big-endian number (8: its bits as a long). */
        private long next(final int n)
        {
            need(n);
            long v = 0;
            for (int i = 0; i < n; i++)
            {
                v = v << 8 | (bytes[at++] & 0xff);
            }
            return v;
        }

        private void need(final long n)
        {
            if (n > left())
            {
                throw new LuaError("Missing bytes in input.");
            }
        }

        /** A 32-bit count of bytes or elements: one the input cannot hold (each element takes a byte) is short. */
        private int size(final long n)
        {
            need(n);
            return (int)n;
        }

        private LuaValue string(final int n)
        {
            need(n);
            final LuaValue s = LuaValue.valueOf(java.util.Arrays.copyOfRange(bytes, at, at + n));
            at += n;
            return s;
        }

        private LuaTable array(final int n, final int depth)
        {
            final LuaTable t = new LuaTable(Math.min(n, left()), 0); // a count past the input: no table of it
            for (int i = 1; i <= n; i++)
            {
                t.rawset(i, value(depth + 1));
            }
            return t;
        }

        private LuaTable map(final int n, final int depth)
        {
            final LuaTable t = new LuaTable();
            for (int i = 0; i < n; i++)
            {
                final LuaValue key = value(depth + 1);
                final LuaValue v = value(depth + 1);
                if (key.isnil() || key.isnumber() && Double.isNaN(key.todouble()))
                {
                    throw new LuaError("table index is " + (key.isnil() ? "nil" : "NaN")); // Lua's, as Redis
                }
                t.rawset(key, v);
            }
            return t;
        }
    }
}

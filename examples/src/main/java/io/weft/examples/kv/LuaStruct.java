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
 * Redis's {@code struct} library for scripts (Roberto Ierusalimschy's struct 0.2 as Redis 7.0 carries it):
 * {@code pack}, {@code unpack} and {@code size} of strings laid out as C structs, as redis-server runs on x86-64:
 * little-endian unless {@code >} says otherwise, {@code h} of 2 bytes, {@code i} of 4, {@code l}, {@code L} and
 * {@code T} of 8, {@code !} aligning to 8 at the most; numbers made integers as x86 truncates them (out of range or
 * NaN: the "integer indefinite"), a NaN packed as x86 makes one (0/0: its sign bit set). Results, their limits and
 * errors are redis-server 7.0.15's (LuaStructTest).
 */
final class LuaStruct
{
    /**
     * The KvWire version since which scripts have {@code struct}: before, it was an unknown global, and a log's older
     * batch replays so.
     */
    static final byte SINCE = 27;
    private static final int MAX_INT_SIZE = 32;
    /** x86-64's largest alignment: a double's, a pointer's. */
    private static final int MAX_ALIGN = 8;
    /** Lua 5.1's C stack: a function's arguments and results together, 2 kept free as {@code unpack} checks. */
    private static final int MAX_C_STACK = 8000;
    private static final int X86_FLOAT_NAN = 0xffc00000;

    private LuaStruct()
    {
    }

    /** {@return the library's table: pack, unpack and size} */
    static LuaTable library()
    {
        final LuaTable struct = new LuaTable();
        struct.set("pack", ScriptRuntime.function(LuaStruct::pack));
        struct.set("unpack", ScriptRuntime.function(LuaStruct::unpack));
        struct.set("size", ScriptRuntime.function(LuaStruct::size));
        return struct;
    }

    private static LuaValue pack(final Varargs given)
    {
        final Format f = new Format(given, "pack");
        final LuaValue[] values = new LuaValue[given.narg() + 1];
        for (int i = 0; i < given.narg(); i++)
        {
            values[i] = given.arg(i + 1);
        }
        values[given.narg()] = LuaValue.NIL; // struct pushes a nil after them: a missing value is that nil, as there
        final Varargs args = LuaValue.varargsOf(values);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 2;
        long total = 0;
        while (f.more())
        {
            final int opt = f.next();
            int size = f.size(opt);
            final int padding = f.padding(total, opt, size);
            total += padding;
            out.write(new byte[padding], 0, padding);
            switch (opt)
            {
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' ->
                    write(out, Lua51Format.unsigned(Lua51Number.checkNumber(args, arg++, "pack")), size, f.little);
                case 'x' -> out.write(0);
                case 'f' ->
                {
                    final float v = (float)Lua51Number.checkNumber(args, arg++, "pack");
                    write(out, Float.isNaN(v) ? X86_FLOAT_NAN : Float.floatToRawIntBits(v), 4, f.little);
                }
                case 'd' ->
                {
                    final double v = Lua51Number.checkNumber(args, arg++, "pack");
                    write(out, Double.isNaN(v) ? Lua51Format.X86_NAN : Double.doubleToRawLongBits(v), 8, f.little);
                }
                case 'c', 's' ->
                {
                    final LuaString s = Lua51Number.checkString(args, arg++, "pack");
                    size = size == 0 ? s.length() : size;
                    if (s.length() < size)
                    {
                        throw new LuaError("bad argument #" + arg + " to 'pack' (string too short)"); // as struct's
                    }
                    out.write(s.m_bytes, s.m_offset, size);
                    if (opt == 's')
                    {
                        out.write(0);
                        size++;
                    }
                }
                default -> f.control(opt);
            }
            total += size;
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    private static Varargs unpack(final Varargs args)
    {
        final Format f = new Format(args, "unpack");
        final LuaString data = Lua51Number.checkString(args, 2, "unpack");
        final long length = data.length();
        long pos = Lua51Number.optInteger(args, 3, 1, "unpack"); // a size_t: unsigned from here on, as in C
        if (pos == 0)
        {
            throw new LuaError("bad argument #3 to 'unpack' (offset must be 1 or greater)");
        }
        pos--;
        final List<LuaValue> results = new ArrayList<>();
        while (f.more())
        {
            final int opt = f.next();
            long size = f.size(opt);
            pos += f.padding(pos, opt, (int)size);
            checkRoom(size, pos, length);
            if (args.narg() + results.size() + 2 > MAX_C_STACK) // its arguments and results on Lua's stack
            {
                throw new LuaError("stack overflow (too many results)");
            }
            final int at = (int)pos; // within the data: checked above
            switch (opt)
            {
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' ->
                    results.add(LuaValue.valueOf(read(data, at, (int)size, f.little, Character.isLowerCase(opt))));
                case 'x' ->
                {
                }
                case 'f' -> results.add(LuaValue.valueOf(Float.intBitsToFloat((int)bits(data, at, 4, f.little))));
                case 'd' -> results.add(LuaValue.valueOf(Double.longBitsToDouble(bits(data, at, 8, f.little))));
                case 'c' ->
                {
                    if (size == 0)
                    {
                        final LuaValue previous = results.isEmpty() ? LuaValue.NIL :
                            Lua51Number.number(results.getLast());
                        if (previous.isnil())
                        {
                            throw new LuaError("format 'c0' needs a previous size");
                        }
                        size = Lua51Format.unsigned(previous.todouble()); // a size_t, as C makes one of it
                        results.removeLast();
                        checkRoom(size, pos, length);
                    }
                    results.add(data.substring(at, at + (int)size));
                }
                case 's' ->
                {
                    final int end = data.indexOf((byte)0, at);
                    if (end < 0)
                    {
                        throw new LuaError("unfinished string in data");
                    }
                    size = end - at + 1;
                    results.add(data.substring(at, end));
                }
                default -> f.control(opt);
            }
            pos += size;
        }
        results.add(LuaValue.valueOf((double)(pos + 1))); // the next position, a signed integer as Lua pushes it
        return LuaValue.varargsOf(results.toArray(LuaValue[]::new));
    }

    private static LuaValue size(final Varargs args)
    {
        final Format f = new Format(args, "size");
        long pos = 0;
        while (f.more())
        {
            final int opt = f.next();
            final int size = f.size(opt);
            pos += f.padding(pos, opt, size);
            if (opt == 's' || opt == 'c' && size == 0)
            {
                throw new LuaError("bad argument #1 to 'size' (option '" + (opt == 's' ? "s" : "c0") +
                    "' has no fixed size)");
            }
            if (!(opt < 128 && Character.isLetterOrDigit(opt)))
            {
                f.control(opt); // a letter or digit that is no option counts nothing here, as in struct
            }
            pos += size;
        }
        return LuaValue.valueOf((double)pos);
    }

    /** {@code size} bytes at {@code pos} lie within data of {@code length} bytes (all unsigned, as size_t). */
    private static void checkRoom(final long size, final long pos, final long length)
    {
        if (Long.compareUnsigned(size, length) > 0 || Long.compareUnsigned(pos, length - size) > 0)
        {
            throw new LuaError("bad argument #2 to 'unpack' (data string too short)");
        }
    }

    /** The {@code size} low bytes of {@code value} in the order asked (past 8 bytes, zeros). */
    private static void write(final ByteArrayOutputStream out, final long value, final int size, final boolean little)
    {
        for (int i = 0; i < size; i++)
        {
            final int shift = 8 * (little ? i : size - 1 - i);
            out.write(shift < 64 ? (int)(value >>> shift) : 0);
        }
    }

    /** {@code size} bytes at {@code at} as an integer, only the last 8 kept, as struct's C shifts them in. */
    private static long bits(final LuaString data, final int at, final int size, final boolean little)
    {
        long l = 0;
        for (int i = 0; i < size; i++)
        {
            l = l << 8 | data.luaByte(at + (little ? size - 1 - i : i));
        }
        return l;
    }

    /** An integer field as a Lua number: a signed one extended from its top bit (x86 masks the shift to 63). */
    private static double read(final LuaString data, final int at, final int size, final boolean little,
        final boolean signed)
    {
        long l = bits(data, at, size, little);
        if (!signed)
        {
            return l >= 0 ? l : ((l >>> 1) | (l & 1)) * 2.0; // unsigned to double, rounded as gcc's conversion
        }
        final long mask = -1L << (size * 8 - 1);
        if ((l & mask) != 0)
        {
            l |= mask;
        }
        return l;
    }

    /** A format string read option by option, with the byte order and alignment it sets so far. */
    private static final class Format
    {
        private final String function;
        private final LuaString format;
        private int at;
        private boolean little = true;
        private int align = 1;

        Format(final Varargs args, final String function)
        {
            this.function = function;
            this.format = Lua51Number.checkString(args, 1, function);
        }

        boolean more()
        {
            return at < format.length();
        }

        int next()
        {
            return format.luaByte(at++);
        }

        /** An option's size: its own, or the digits after it; 0 for those that take no room of their own. */
        int size(final int opt)
        {
            return switch (opt)
            {
                case 'b', 'B', 'x' -> 1;
                case 'h', 'H' -> 2;
                case 'f' -> 4;
                case 'l', 'L', 'T', 'd' -> 8;
                case 'c' -> number(1);
                case 'i', 'I' ->
                {
                    final int n = number(4);
                    if (n > MAX_INT_SIZE)
                    {
                        throw new LuaError("integral size " + n + " is larger than limit of " + MAX_INT_SIZE);
                    }
                    yield n;
                }
                default -> 0;
            };
        }

        /** The padding before an item of {@code size} at {@code pos}: to its size, at most the alignment set. */
        int padding(final long pos, final int opt, final int size)
        {
            if (size == 0 || opt == 'c')
            {
                return 0;
            }
            final long to = Math.min(size, align);
            return (int)((to - (pos & (to - 1))) & (to - 1));
        }

        /** A white space, byte order or alignment: its setting; anything else is refused. */
        void control(final int opt)
        {
            switch (opt)
            {
                case ' ' ->
                {
                }
                case '>' -> little = false;
                case '<' -> little = true;
                case '!' ->
                {
                    final int a = number(MAX_ALIGN);
                    if (a <= 0 || (a & (a - 1)) != 0)
                    {
                        throw new LuaError("alignment " + a + " is not a power of 2");
                    }
                    align = a;
                }
                default -> throw new LuaError("bad argument #1 to '" + function + "' (invalid format option '" +
                    (char)opt + "')");
            }
        }

        /** The digits that follow, or {@code otherwise} if none do. */
        private int number(final int otherwise)
        {
            if (!more() || !digit(format.luaByte(at)))
            {
                return otherwise;
            }
            int n = 0;
            do
            {
                final int d = format.luaByte(at++) - '0';
                if (n > Integer.MAX_VALUE / 10 || n * 10 > Integer.MAX_VALUE - d)
                {
                    throw new LuaError("integral size overflow");
                }
                n = n * 10 + d;
            }
            while (more() && digit(format.luaByte(at)));
            return n;
        }

        private static boolean digit(final int b)
        {
            return b >= '0' && b <= '9';
        }
    }
}

package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Numbers and text as Lua 5.1 in Redis converts them, where LuaJ 3.0.1 does otherwise: a number as text is
 * {@code %.14g} ({@link #text}), and {@code tonumber} reads a string with glibc's {@code strtod} (in base 10) or
 * {@code strtoul} (in another base), as {@code luaB_tonumber} does ({@link #tonumber}).
 */
final class Lua51Number
{
    /**
     * The KvWire version since which {@code tonumber} reads as Lua 5.1 does: before, LuaJ's read no {@code inf},
     * {@code +inf}, {@code nan} or hexadecimal fraction ({@code tonumber('+inf')} was nil, Redis's inf); a log's older
     * batch replays with LuaJ's.
     */
    static final byte TONUMBER_SINCE = 19;
    /** glibc's NaN: {@code nan}, in any case, signed or not, with a parenthesized tag or not. */
    private static final Pattern NAN = Pattern.compile("[+-]?[nN][aA][nN](\\([0-9A-Za-z_]*\\))?");

    private Lua51Number()
    {
    }

    /**
     * A number as Lua 5.1 makes it a string ({@code tostring}, {@code %s}): {@code %.14g}, so 1/3 is
     * {@code 0.33333333333333} and 1e15 {@code 1e+15}, where LuaJ writes a Java float's digits ({@code 0.33333334})
     * and an integral number whole.
     */
    static String text(final double number)
    {
        return LuaFormat.real(".14", 'g', number, true);
    }

    /**
     * Lua's {@code luaL_checklstring}: argument {@code i} of {@code function}, a string or a number as its text
     * ({@link #text}, not LuaJ's), else the error.
     */
    static LuaString checkString(final Varargs args, final int i, final String function)
    {
        ScriptRuntime.checkString(args, i, function);
        return string(args.arg(i));
    }

    /** A string or a number (as its {@link #text}) as a Lua string: what {@code lua_tolstring} makes of it. */
    static LuaString string(final LuaValue value)
    {
        return value.type() == LuaValue.TNUMBER ? LuaString.valueOf(text(value.todouble())) : value.checkstring();
    }

    /** Lua's {@code luaL_checkinteger}: argument {@code i} as a number, truncated as x86 converts it to an integer. */
    static long checkInteger(final Varargs args, final int i, final String function)
    {
        return Lua51Format.x86(ScriptRuntime.checkNumber(args, i, function), Long.MIN_VALUE);
    }

    /** Lua's {@code luaL_optinteger}: {@code otherwise} if argument {@code i} is absent or nil, else as above. */
    static long optInteger(final Varargs args, final int i, final long otherwise, final String function)
    {
        return args.arg(i).isnil() ? otherwise : checkInteger(args, i, function);
    }

    /**
     * Lua 5.1's {@code lua_tonumber}: a number as it is, a string as {@code strtod} reads all of it (white space around
     * it; hexadecimal, {@code inf}, {@code nan}), else nil.
     */
    static LuaValue number(final LuaValue value)
    {
        return value.type() == LuaValue.TNUMBER ? value : value.type() == LuaValue.TSTRING ? decimal(cString(value)) :
            LuaValue.NIL;
    }

    /** Lua 5.1's {@code luaL_checknumber}: argument {@code i} of {@code function} as {@link #number} reads it. */
    static double checkNumber(final Varargs args, final int i, final String function)
    {
        final LuaValue n = number(args.arg(i));
        if (n.isnil())
        {
            throw ScriptRuntime.badArgument(args, i, function, "number");
        }
        return n.todouble();
    }

    /**
     * Lua 5.1's {@code tonumber(e [, base])}: in base 10 a number as it is, a string as {@code strtod} reads all of
     * it (white space around it; hexadecimal, {@code inf}, {@code nan}; a C string, so a NUL ends it), else nil; in
     * base 2 to 36 a string (or a number's text) as {@code strtoul} reads it, past 2^64 - 1 that, a negative one
     * modulo 2^64.
     */
    static Varargs tonumber(final Varargs args)
    {
        final LuaValue baseArg = args.arg(2);
        final int base;
        if (baseArg.isnil())
        {
            base = 10;
        }
        else
        {
            base = (int)ScriptRuntime.checkNumber(args, 2, "tonumber");
        }
        final LuaValue e = args.arg1();
        if (base == 10)
        {
            if (args.narg() == 0)
            {
                throw new LuaError("bad argument #1 to 'tonumber' (value expected)");
            }
            return number(e);
        }
        ScriptRuntime.checkString(args, 1, "tonumber");
        if (base < 2 || base > 36)
        {
            throw new LuaError("bad argument #2 to 'tonumber' (base out of range)");
        }
        return inBase(e.type() == LuaValue.TNUMBER ? text(e.todouble()) : cString(e), base);
    }

    /** {@code strtod} over all of {@code s} but white space around it; nil if it reads less. */
    private static LuaValue decimal(final String s)
    {
        final String t = trimmed(s);
        if (NAN.matcher(t).matches())
        {
            return LuaValue.valueOf(Double.NaN);
        }
        final double value = t.isEmpty() ? Double.NaN : Strtod.read(t, false);
        return Double.isNaN(value) ? LuaValue.NIL : LuaValue.valueOf(value);
    }

    /** {@code strtoul(s, base)} over all of {@code s} but white space around it; nil if it reads less. */
    private static LuaValue inBase(final String s, final int base)
    {
        final String t = trimmed(s);
        int i = t.startsWith("-") || t.startsWith("+") ? 1 : 0;
        if (base == 16 && t.regionMatches(true, i, "0x", 0, 2) && i + 2 < t.length() &&
            Character.digit(t.charAt(i + 2), 16) >= 0)
        {
            i += 2;
        }
        final int first = i;
        long n = 0;
        boolean overflow = false;
        for (; i < t.length() && Character.digit(t.charAt(i), base) >= 0 && t.charAt(i) < 128; i++)
        {
            final long next = n * base + Character.digit(t.charAt(i), base);
            overflow |= Long.compareUnsigned(n, Long.divideUnsigned(-1L, base)) > 0 ||
                Long.compareUnsigned(next, n * base) < 0;
            n = next;
        }
        if (i == first || i != t.length())
        {
            return LuaValue.NIL;
        }
        final long value = overflow ? -1L : t.startsWith("-") ? -n : n;
        return LuaValue.valueOf(value >= 0 ? (double)value : ((double)(value >>> 1 | value & 1)) * 2.0);
    }

    /** {@code s} as C reads it: up to its first NUL byte. */
    private static String cString(final LuaValue s)
    {
        return new String(Lua51Format.cut(LuaFormat.bytes(s)), StandardCharsets.ISO_8859_1);
    }

    /** Without C's white space ({@code isspace}) at either end. */
    private static String trimmed(final String s)
    {
        int from = 0;
        int to = s.length();
        while (from < to && Strtod.isSpace(s.charAt(from)))
        {
            from++;
        }
        while (to > from && Strtod.isSpace(s.charAt(to - 1)))
        {
            to--;
        }
        return s.substring(from, to);
    }
}

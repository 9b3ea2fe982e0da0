package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@code string.format} as Lua 5.1's {@code str_format} in Redis formats, on x86-64 Linux: a directive is scanned
 * as Lua scans it (at most five flags, two digits of width and two of precision), its argument checked as Lua checks
 * it, then written as glibc's {@code sprintf} writes it and cut at its first NUL byte, as Lua cuts it with
 * {@code strlen} (so {@code %c} of 0 writes nothing). A number becomes an integer as x86's {@code cvttsd2si} makes
 * it: {@code %d} of 2^63, an infinity or a NaN is -2^63; {@code %u}, {@code %o}, {@code %x} of -1 are 2^64 - 1. A NaN
 * is written {@code -nan}, as glibc writes 0/0's. {@code %q} escapes as Lua 5.1 does: a quote, a backslash and a
 * newline with a backslash, a carriage return as {@code \r}, a NUL as {@code \000}, every other byte as it is. A
 * number given to {@code %s} or {@code %q} is written as Lua writes it ({@link Lua51Number#text}).
 */
final class Lua51Format
{
    private static final String FLAGS = "-+ #0";
    /** 2^63: from here on a double is past a signed 64-bit integer. */
    static final double TWO_TO_63 = 0x1p63;
    /** The NaN x86 makes (0/0, inf - inf), the one Redis packs: its sign bit set, where Java's has it clear. */
    static final long X86_NAN = 0xfff8000000000000L;

    private Lua51Format()
    {
    }

    /** The formatted string of {@code args}: the format, then one argument a directive. */
    static Varargs format(final Varargs args)
    {
        final LuaString format = ScriptRuntime.checkString(args, 1, "format");
        final byte[] f = Arrays.copyOfRange(format.m_bytes, format.m_offset, format.m_offset + format.m_length);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 1;
        int i = 0;
        while (i < f.length)
        {
            final byte b = f[i++];
            if (b != '%')
            {
                out.write(b);
            }
            else if (i < f.length && f[i] == '%')
            {
                out.write('%');
                i++;
            }
            else
            {
                if (++arg > args.narg()) // Lua checks there is an argument before it reads the directive
                {
                    throw new LuaError("bad argument #" + arg + " to 'format' (no value)");
                }
                final int start = i;
                i = directive(f, i);
                final char conversion = i < f.length ? (char)(f[i] & 0xff) : '\0';
                final String spec = new String(f, start, i - start, StandardCharsets.US_ASCII);
                i++;
                out.writeBytes(formatted(args, arg, spec, conversion));
            }
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    /** Past the flags, width and precision of the directive at {@code i}, refused as Lua refuses them. */
    private static int directive(final byte[] f, final int start)
    {
        int i = start;
        while (i < f.length && FLAGS.indexOf(f[i]) >= 0)
        {
            i++;
        }
        if (i - start > FLAGS.length())
        {
            throw new LuaError("invalid format (repeated flags)");
        }
        i = digits(f, i);
        if (i < f.length && f[i] == '.')
        {
            i = digits(f, i + 1);
        }
        if (i < f.length && Character.isDigit(f[i]))
        {
            throw new LuaError("invalid format (width or precision too long)");
        }
        return i;
    }

    private static int digits(final byte[] f, final int start)
    {
        int i = start;
        while (i < f.length && i < start + 2 && Character.isDigit(f[i]))
        {
            i++;
        }
        return i;
    }

    private static byte[] formatted(final Varargs args, final int arg, final String spec, final char conversion)
    {
        return switch (conversion)
        {
            case 'c' -> cut(LuaFormat.string(spec.indexOf('.') < 0 ? spec : spec.substring(0, spec.indexOf('.')),
                new byte[]{(byte)x86(number(args, arg), Integer.MIN_VALUE)})); // C's %c knows no precision
            case 'd', 'i' -> integer(spec, conversion, x86(number(args, arg), Long.MIN_VALUE));
            case 'o', 'u', 'x', 'X' -> integer(spec, conversion, unsigned(number(args, arg)));
            case 'e', 'E', 'f', 'g', 'G' -> ascii(LuaFormat.real(spec, conversion, number(args, arg), true));
            case 'q' -> quoted(string(args, arg));
            case 's' ->
            {
                final byte[] s = string(args, arg);
                // Lua adds a long string whole when no precision cuts it; else through sprintf, as a C string
                yield s.length >= 100 && spec.indexOf('.') < 0 ? s : LuaFormat.string(spec, cut(s));
            }
            // Lua's message takes the character as a C string: a NUL adds nothing
            default -> throw new LuaError("invalid option '%" + (conversion == 0 ? "" : conversion) + "' to 'format'");
        };
    }

    /** {@code %d} and kin: C's digits of {@code value} (unsigned but for d and i) with the spec's flags, as glibc. */
    private static byte[] integer(final String spec, final char conversion, final long value)
    {
        final boolean signed = conversion == 'd' || conversion == 'i';
        final LuaFormat.Spec s = LuaFormat.Spec.of(spec, -1);
        final String flags = s.flags();
        final int width = s.width();
        final int precision = s.precision();
        String digits = switch (conversion)
        {
            case 'o' -> Long.toOctalString(value);
            case 'x' -> Long.toHexString(value);
            case 'X' -> Long.toHexString(value).toUpperCase(Locale.ROOT);
            case 'u' -> Long.toUnsignedString(value);
            default -> value < 0 ? Long.toUnsignedString(-value) : Long.toString(value);
        };
        if (precision == 0 && value == 0)
        {
            digits = "";
        }
        digits = "0".repeat(Math.max(0, precision - digits.length())) + digits;
        final boolean alternate = flags.indexOf('#') >= 0;
        if (alternate && conversion == 'o' && !digits.startsWith("0"))
        {
            digits = "0" + digits;
        }
        final String prefix = signed ? value < 0 ? "-" : flags.indexOf('+') >= 0 ? "+" :
            flags.indexOf(' ') >= 0 ? " " : "" :
            alternate && value != 0 && conversion == 'x' ? "0x" : alternate && value != 0 && conversion == 'X' ?
            "0X" : "";
        final int pad = width - prefix.length() - digits.length();
        if (pad <= 0)
        {
            return ascii(prefix + digits);
        }
        if (flags.indexOf('-') >= 0)
        {
            return ascii(prefix + digits + " ".repeat(pad));
        }
        return ascii(flags.indexOf('0') >= 0 && precision < 0 ? prefix + "0".repeat(pad) + digits :
            " ".repeat(pad) + prefix + digits);
    }

    /** Lua 5.1's {@code %q}: the string in double quotes, escaped as {@code addquoted} escapes it. */
    private static byte[] quoted(final byte[] s)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(s.length + 2);
        out.write('"');
        for (final byte b : s)
        {
            switch (b)
            {
                case '"', '\\', '\n' ->
                {
                    out.write('\\');
                    out.write(b);
                }
                case '\r' -> out.writeBytes(ascii("\\r"));
                case 0 -> out.writeBytes(ascii("\\000"));
                default -> out.write(b);
            }
        }
        out.write('"');
        return out.toByteArray();
    }

    /**
     * {@code (unsigned long)d} as gcc compiles it for x86-64: below 2^63 converted signed, else 2^63 less
     * converted and the top bit set again (so 2^64 and +inf become 0, -1 is 2^64 - 1, a NaN 2^63).
     */
    static long unsigned(final double d)
    {
        return d >= TWO_TO_63 ? x86(d - TWO_TO_63, Long.MIN_VALUE) ^ Long.MIN_VALUE : x86(d, Long.MIN_VALUE);
    }

    /**
     * {@code d} truncated to an integer as {@code cvttsd2si} truncates it: a NaN or a value out of range of the
     * integer, whose least is {@code least}, is {@code least} (x86's "integer indefinite").
     */
    static long x86(final double d, final long least)
    {
        return Double.isNaN(d) || d >= -(double)least || d < least ? least : (long)d;
    }

    private static double number(final Varargs args, final int arg)
    {
        return ScriptRuntime.checkNumber(args, arg, "format");
    }

    /** A string argument's bytes; a number's as Lua 5.1 writes it ({@link Lua51Number#text}), not as LuaJ does. */
    private static byte[] string(final Varargs args, final int arg)
    {
        return LuaFormat.bytes(Lua51Number.checkString(args, arg, "format"));
    }

    /** The bytes before the first NUL: what C reads of them as a string, and Lua's {@code strlen} of a result. */
    static byte[] cut(final byte[] bytes)
    {
        for (int i = 0; i < bytes.length; i++)
        {
            if (bytes[i] == 0)
            {
                return Arrays.copyOf(bytes, i);
            }
        }
        return bytes;
    }

    private static byte[] ascii(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

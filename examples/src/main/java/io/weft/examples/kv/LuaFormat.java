package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.BooleanSupplier;

/**
 * {@code string.format} for scripts as Redis's Lua 5.1 formats, through C's {@code printf}. LuaJ's own ignores the
 * precision and width of {@code %f}, {@code %e}, {@code %g} and {@code %s} ({@code %.2f} of 3.14159 gave
 * {@code 3.14159}, {@code %g} of 0.0001 {@code 1.0E-4}); those are formatted here. Since KvWire {@value #LUA51_SINCE}
 * every directive is ({@link Lua51Format}): LuaJ's integer directives take a number past 2^31 modulo 2^32
 * ({@code %d} of 1e10 gave {@code 1410065408}, of 2^53 {@code 0}) and know no unsigned value, its {@code %q} escapes
 * other bytes than Lua's; a log's older batch replays with the integer, character and {@code %q} directives passed
 * to LuaJ's one at a time, as its build formatted them.
 *
 * @param luaj  LuaJ's {@code string.format}.
 * @param lua51 whether the batch being applied is of KvWire {@value #LUA51_SINCE} or later.
 */
record LuaFormat(LuaValue luaj, BooleanSupplier lua51)
{
    /** The KvWire version since which every directive is formatted as Lua 5.1 formats it ({@link Lua51Format}). */
    static final byte LUA51_SINCE = 18;

    /** The formatted string of {@code args}: the format, then one argument a directive. */
    Varargs format(final Varargs args)
    {
        return lua51.getAsBoolean() ? Lua51Format.format(args) : beforeLua51(args);
    }

    private Varargs beforeLua51(final Varargs args)
    {
        final LuaString format = args.checkstring(1);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 2;
        for (int i = 0; i < format.m_length; i++)
        {
            final byte b = format.m_bytes[format.m_offset + i];
            if (b != '%')
            {
                out.write(b);
                continue;
            }
            final int start = i++;
            while (i < format.m_length && "-+ #0123456789.".indexOf(format.m_bytes[format.m_offset + i]) >= 0)
            {
                i++;
            }
            if (i >= format.m_length)
            {
                throw new LuaError("invalid option '%' to 'format'");
            }
            final char conversion = (char)format.m_bytes[format.m_offset + i];
            final String spec = new String(format.m_bytes, format.m_offset + start + 1, i - start - 1,
                StandardCharsets.US_ASCII);
            if (conversion == '%')
            {
                out.write('%');
                continue;
            }
            final LuaValue value = args.arg(arg++);
            final byte[] text = switch (conversion)
            {
                case 'f', 'e', 'E', 'g', 'G' -> bytes(real(spec, conversion, value.checkdouble()));
                case 's' -> string(spec, bytes(value));
                default -> bytes(luaj.call(LuaValue.valueOf("%" + spec + conversion), value));
            };
            out.writeBytes(text);
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    /**
     * {@code %f}, {@code %e}, {@code %g} of {@code value} as C writes them (inf and nan as glibc does), {@code spec}
     * the flags, width and precision between the % and the conversion.
     */
    static String real(final String spec, final char conversion, final double value)
    {
        return real(spec, conversion, value, false);
    }

    /**
     * As {@link #real(String, char, double)}; {@code lua51} (KvWire {@value #LUA51_SINCE}) as glibc in full: a NaN
     * is {@code -nan} (0/0's on x86), the sign flags apply to inf and nan, and {@code 0} pads a number that ends in
     * {@code #}'s point; before, nan was unsigned, a space flag left inf bare and such a number was padded with spaces.
     */
    static String real(final String spec, final char conversion, final double value, final boolean lua51)
    {
        final Spec s = Spec.of(spec, 6);
        final String flags = s.flags();
        final int precision = s.precision();
        final String text;
        if (Double.isNaN(value) || Double.isInfinite(value))
        {
            text = lua51 ? signed(flags, Double.isNaN(value) ? "-nan" : value < 0 ? "-inf" : "inf") :
                Double.isNaN(value) ? "nan" : value < 0 ? "-inf" : flags.contains("+") ? "+inf" : "inf";
        }
        else if (conversion == 'g' || conversion == 'G')
        {
            text = signed(flags, general(precision, flags.contains("#"), value));
        }
        else
        {
            text = signed(flags, conversion == 'f' ? fixed(value, precision, flags.contains("#")) :
                scientific(value, precision, flags.contains("#")));
        }
        final int pad = s.width() - text.length();
        if (pad <= 0)
        {
            return conversion == 'G' || conversion == 'E' ? text.toUpperCase(Locale.ROOT) : text;
        }
        final String padded;
        if (flags.contains("-"))
        {
            padded = text + " ".repeat(pad);
        }
        else if (flags.contains("0") && (lua51 ? Double.isFinite(value) :
            Character.isDigit(text.charAt(text.length() - 1))))
        {
            final int sign = "+- ".indexOf(text.charAt(0)) >= 0 ? 1 : 0;
            padded = text.substring(0, sign) + "0".repeat(pad) + text.substring(sign);
        }
        else
        {
            padded = " ".repeat(pad) + text;
        }
        return conversion == 'G' || conversion == 'E' ? padded.toUpperCase(Locale.ROOT) : padded;
    }

    /** {@code %g}: {@code %e} or {@code %f} at {@code precision} significant digits, trailing zeros trimmed. */
    private static String general(final int significant, final boolean keepZeros, final double value)
    {
        final int precision = Math.max(1, significant);
        final BigDecimal rounded = new BigDecimal(value).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        final int exponent = value == 0 ? 0 : rounded.precision() - 1 - rounded.scale();
        final String text = exponent < -4 || exponent >= precision ? scientific(value, precision - 1, keepZeros) :
            fixed(value, precision - 1 - exponent, keepZeros);
        if (keepZeros)
        {
            return text;
        }
        final int e = text.indexOf('e');
        final String mantissa = e < 0 ? text : text.substring(0, e);
        final String trimmed = mantissa.contains(".") ? mantissa.replaceAll("0+$", "").replaceAll("\\.$", "") :
            mantissa;
        return trimmed + (e < 0 ? "" : text.substring(e));
    }

    /**
     * {@code %.Nf}: the double's exact value rounded half to even, as C rounds it (Java's formatter rounds a tie such
     * as 2.5 up); {@code point}: a decimal point also without decimals ({@code #}).
     */
    private static String fixed(final double value, final int precision, final boolean point)
    {
        final String text = new BigDecimal(value).setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
        final boolean negative = value < 0 || value == 0 && 1 / value < 0;
        return (negative && !text.startsWith("-") ? "-" : "") + text + (precision == 0 && point ? "." : "");
    }

    /** {@code %.Ne}: one digit, {@code precision} decimals and an exponent of two digits at least, rounded as C. */
    private static String scientific(final double value, final int precision, final boolean point)
    {
        final boolean negative = value < 0 || value == 0 && 1 / value < 0;
        String digits = "0";
        int exponent = 0;
        if (value != 0)
        {
            final BigDecimal r = new BigDecimal(Math.abs(value)).round(new MathContext(precision + 1,
                RoundingMode.HALF_EVEN));
            digits = r.unscaledValue().toString();
            exponent = digits.length() - 1 - r.scale();
        }
        digits = digits.length() > precision + 1 ? digits.substring(0, precision + 1) :
            digits + "0".repeat(precision + 1 - digits.length());
        final int e = Math.abs(exponent);
        return (negative ? "-" : "") + digits.charAt(0) + (precision > 0 || point ? "." : "") + digits.substring(1) +
            (exponent < 0 ? "e-" : "e+") + (e < 10 ? "0" : "") + e;
    }

    private static String signed(final String flags, final String text)
    {
        return text.startsWith("-") ? text : flags.contains("+") ? "+" + text : flags.contains(" ") ? " " + text :
            text;
    }

    /**
     * A directive's flags, width (0 for none) and precision, read from {@code spec}, what stands between the % and
     * the conversion.
     *
     * @param flags     the flags, those of {@code -+ #0} before the width.
     * @param width     the least width.
     * @param precision the precision.
     */
    record Spec(String flags, int width, int precision)
    {
        /** {@code spec}'s parts; the precision {@code none} if it has none. */
        static Spec of(final String spec, final int none)
        {
            int k = 0;
            while (k < spec.length() && "-+ #0".indexOf(spec.charAt(k)) >= 0)
            {
                k++;
            }
            final int dot = spec.indexOf('.');
            final String width = dot < 0 ? spec.substring(k) : spec.substring(k, dot);
            final int precision = dot < 0 ? none : dot == spec.length() - 1 ? 0 :
                Integer.parseInt(spec.substring(dot + 1));
            return new Spec(spec.substring(0, k), width.isEmpty() ? 0 : Integer.parseInt(width), precision);
        }
    }

    /** {@code %s}: the bytes as they are, cut at the precision, padded to the width (left with {@code -}). */
    static byte[] string(final String spec, final byte[] value)
    {
        final int dot = spec.indexOf('.');
        final String widthPart = (dot < 0 ? spec : spec.substring(0, dot)).replaceAll("[^0-9]", "");
        final int precision = dot < 0 ? Integer.MAX_VALUE : dot == spec.length() - 1 ? 0 :
            Integer.parseInt(spec.substring(dot + 1));
        final int length = Math.min(value.length, precision);
        final int width = widthPart.isEmpty() ? 0 : Integer.parseInt(widthPart);
        final byte[] out = new byte[Math.max(width, length)];
        final int pad = out.length - length;
        final boolean left = spec.contains("-");
        Arrays.fill(out, (byte)' ');
        System.arraycopy(value, 0, out, left ? 0 : pad, length);
        return out;
    }

    static byte[] bytes(final LuaValue value)
    {
        final LuaString s = value.tostring().checkstring();
        final byte[] b = new byte[s.m_length];
        System.arraycopy(s.m_bytes, s.m_offset, b, 0, s.m_length);
        return b;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

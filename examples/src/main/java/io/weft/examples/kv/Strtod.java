package io.weft.examples.kv;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Numbers as Redis reads them with C's {@code strtod}: decimal with an exponent or not, hexadecimal ({@code 0x10},
 * {@code -0x1.8p3}), {@code inf} and {@code infinity} in any case, signed or not; never NaN. Redis reads most
 * arguments with the range checked ({@code ERANGE}: past a double's largest, or a non-zero below its smallest, is
 * no number), and a score range's bounds and SORT's items after white space, where nothing at all is 0.
 */
final class Strtod
{
    /**
     * The first KvWire version that reads hexadecimal numbers, and score bounds after white space and out of range,
     * and sums INCRBYFLOAT's in a long double ({@link LongDouble}): a log's batch of an older one refuses them and sums
     * to 40 digits, as its build did (ZADD 0x10 m added nothing there).
     */
    static final byte SINCE = 14;
    private static final Pattern HEX = Pattern.compile("[+-]?0[xX](\\p{XDigit}+\\.?\\p{XDigit}*|\\.\\p{XDigit}+)" +
        "([pP][+-]?\\d+)?");
    /** A number whose digits are all 0: it is 0, where another that reads as 0 fell below a double's smallest. */
    private static final Pattern ZERO = Pattern.compile("[+-]?(0[xX][0.]*([pP].*)?|[0.]*([eE].*)?)");

    private Strtod()
    {
    }

    /** All of {@code text} as a number; NaN if it is none, or if {@code inRange} and it is out of a double's range. */
    static double read(final String text, final boolean inRange)
    {
        return read(text, inRange, true);
    }

    /** {@link #read(String, boolean)}, a hexadecimal number none unless {@code hexadecimal} (before {@link #SINCE}). */
    static double read(final String text, final boolean inRange, final boolean hexadecimal)
    {
        final int infinity = infinity(text);
        if (infinity != 0)
        {
            return infinity * Double.POSITIVE_INFINITY;
        }
        final boolean hex = (text.indexOf('x') > 0 || text.indexOf('X') > 0) && HEX.matcher(text).matches();
        if (hex && !hexadecimal || !hex && !isDecimal(text))
        {
            return Double.NaN;
        }
        // Java reads a hexadecimal number only with its exponent of 2
        final double value = Double.parseDouble(hex && text.indexOf('p') < 0 && text.indexOf('P') < 0 ? text + "p0" :
            text);
        final boolean outOfRange = Double.isInfinite(value) || value == 0 && !ZERO.matcher(text).matches();
        return inRange && outOfRange ? Double.NaN : value;
    }

    /** 1 if {@code text} is inf or infinity in any case, -1 if it is that with a minus sign, else 0. */
    static int infinity(final String text)
    {
        final int signs = text.startsWith("+") || text.startsWith("-") ? 1 : 0;
        final int length = text.length() - signs;
        final boolean word = (length == 3 || length == 8) && text.regionMatches(true, signs, "infinity", 0, length);
        return !word ? 0 : signs == 1 && text.charAt(0) == '-' ? -1 : 1;
    }

    /** Whether {@code text} is a decimal number as strtod reads one whole: digits, a point, an exponent of 10. */
    private static boolean isDecimal(final String text)
    {
        int i = text.startsWith("+") || text.startsWith("-") ? 1 : 0;
        final int integer = digits(text, i);
        i += integer;
        int fraction = 0;
        if (i < text.length() && text.charAt(i) == '.')
        {
            fraction = digits(text, ++i);
            i += fraction;
        }
        if (integer + fraction == 0)
        {
            return false;
        }
        if (i < text.length() && (text.charAt(i) == 'e' || text.charAt(i) == 'E'))
        {
            i += i + 1 < text.length() && (text.charAt(i + 1) == '+' || text.charAt(i + 1) == '-') ? 2 : 1;
            final int exponent = digits(text, i);
            i += exponent;
            return exponent > 0 && i == text.length();
        }
        return i == text.length();
    }

    /** How many decimal digits {@code text} has from {@code from} on. */
    private static int digits(final String text, final int from)
    {
        int i = from;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9')
        {
            i++;
        }
        return i - from;
    }

    /**
     * {@code bytes} as {@code strtod} reads them after white space, all of them (nothing at all is 0); NaN if they
     * are no number, or if {@code inRange} and it is out of a double's range.
     */
    static double afterSpace(final byte[] bytes, final boolean inRange)
    {
        if (bytes.length == 0)
        {
            return 0;
        }
        int from = 0;
        while (from < bytes.length && isSpace(bytes[from]))
        {
            from++;
        }
        return read(new String(bytes, from, bytes.length - from, StandardCharsets.ISO_8859_1), inRange);
    }

    /** Whether {@code c} is white space to C's {@code isspace}: space, tab, newline, vertical tab, form feed, CR. */
    static boolean isSpace(final int c)
    {
        return c == ' ' || c >= '\t' && c <= '\r';
    }

    /**
     * {@code text}'s exact value if it is a hexadecimal number not far out of a long double's range (INCRBYFLOAT reads
     * its arguments with strtold, which keeps 64 bits of a mantissa: {@link LongDouble#read} rounds and checks it),
     * else null.
     */
    static BigDecimal hexadecimal(final String text)
    {
        final Matcher hex = HEX.matcher(text);
        if (!hex.matches())
        {
            return null;
        }
        final String mantissa = hex.group(1);
        final BigInteger digits = new BigInteger(mantissa.replace(".", ""), 16);
        if (digits.signum() == 0)
        {
            return BigDecimal.ZERO;
        }
        final String power = hex.group(2) == null ? "0" : hex.group(2).substring(1).replaceFirst("^([+-]?)0+(?=\\d)",
            "$1");
        if (power.length() > 7)
        {
            return null; // far past either end of the range
        }
        final int point = mantissa.indexOf('.');
        final long exponent = Long.parseLong(power) - 4L * (point < 0 ? 0 : mantissa.length() - point - 1);
        if (LongDouble.farOutOfRange(digits.bitLength() + exponent))
        {
            return null; // before 2^exponent is built
        }
        // 2^-k is exactly 5^k / 10^k
        final BigDecimal value = exponent >= 0 ? new BigDecimal(digits.shiftLeft((int)exponent)) :
            new BigDecimal(digits.multiply(BigInteger.valueOf(5).pow((int)-exponent)), (int)-exponent);
        return text.startsWith("-") ? value.negate() : value;
    }
}

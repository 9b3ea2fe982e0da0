package io.weft.examples.kv;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The x87 long double Redis's INCRBYFLOAT and HINCRBYFLOAT compute in: 64 significant bits, rounded half to even.
 * Values are kept exactly as decimals (every long double has a finite one), so that every member computes alike.
 */
final class LongDouble
{
    private static final int BITS = 64;
    private static final double LOG2_10 = 3.321928094887362;
    private static final BigInteger FIVE = BigInteger.valueOf(5);
    /** From here on a value rounds to infinity: half a unit above the largest long double, (2^64 - 1/2) * 2^16320. */
    private static final BigDecimal OVERFLOW = new BigDecimal(BigInteger.TWO.pow(BITS + 1).subtract(BigInteger.ONE)
        .shiftLeft(16319));
    /** Up to here a non-zero value rounds to 0: half the smallest long double, 2^-16446 (5^16446 / 10^16446). */
    private static final BigDecimal UNDERFLOW = new BigDecimal(FIVE.pow(16446), 16446);

    private LongDouble()
    {
    }

    /**
     * {@code d} as strtold reads it: the nearest long double, or null out of range (ERANGE: it rounds to infinity, or
     * a non-zero to 0), which Redis's string2ld refuses.
     */
    static BigDecimal read(final BigDecimal d)
    {
        if (d.signum() == 0)
        {
            return BigDecimal.ZERO;
        }
        final long exponent = (long)d.precision() - d.scale() - 1; // of 10, at its first digit: the cheap test first
        if (farOutOfRange((long)Math.floor(exponent * LOG2_10)) || d.abs().compareTo(OVERFLOW) >= 0 ||
            d.abs().compareTo(UNDERFLOW) <= 0)
        {
            return null;
        }
        return round(d);
    }

    /**
     * Whether a non-zero value whose log2 is within 4 of {@code log2} is out of a long double's range for sure
     * ({@code 2^16384} and more rounds to infinity, {@code 2^-16446} and less to 0): a test made before the exact one,
     * and before a huge value is built.
     */
    static boolean farOutOfRange(final long log2)
    {
        return log2 > 16384 + 4 || log2 < -16446 - 4;
    }

    /** {@code a + b} as a long double adds two long doubles: their sum rounded; null if it rounds to infinity. */
    static BigDecimal sum(final BigDecimal a, final BigDecimal b)
    {
        final BigDecimal sum = a.add(b); // exact: a sum rounded to any decimal precision first may miss a tie
        return sum.abs().compareTo(OVERFLOW) >= 0 ? null : round(sum);
    }

    /** {@code d} rounded to the nearest long double (64 significant bits; its exponent's range is not kept). */
    static BigDecimal round(final BigDecimal d)
    {
        if (d.signum() == 0)
        {
            return BigDecimal.ZERO;
        }
        final BigInteger unscaled = d.unscaledValue().abs();
        // 2^63 <= |d| * 2^k < 2^64 before rounding: k from an estimate of log2 |d|, then corrected
        long k = BITS - unscaled.bitLength() + (long)Math.floor(d.scale() * LOG2_10);
        BigInteger[] qr = scaled(unscaled, d.scale(), k);
        while (qr[0].bitLength() != BITS)
        {
            k += qr[0].bitLength() > BITS ? -1 : 1;
            qr = scaled(unscaled, d.scale(), k);
        }
        final int half = qr[1].shiftLeft(1).compareTo(qr[2]);
        BigInteger m = half > 0 || half == 0 && qr[0].testBit(0) ? qr[0].add(BigInteger.ONE) : qr[0];
        if (m.bitLength() > BITS) // rounded up to 2^64
        {
            m = m.shiftRight(1);
            k--;
        }
        final BigDecimal value = k > 0 ? new BigDecimal(m.multiply(FIVE.pow((int)k)), (int)k) :
            new BigDecimal(m.shiftLeft((int)-k)); // 2^-k is exactly 5^k / 10^k
        return d.signum() < 0 ? value.negate() : value;
    }

    /** {@code unscaled * 10^-scale * 2^k} as its integer part, the remainder and the divisor. */
    private static BigInteger[] scaled(final BigInteger unscaled, final int scale, final long k)
    {
        BigInteger numerator = scale < 0 ? unscaled.multiply(BigInteger.TEN.pow(-scale)) : unscaled;
        BigInteger denominator = scale > 0 ? BigInteger.TEN.pow(scale) : BigInteger.ONE;
        numerator = k > 0 ? numerator.shiftLeft((int)k) : numerator;
        denominator = k < 0 ? denominator.shiftLeft((int)-k) : denominator;
        final BigInteger[] qr = numerator.divideAndRemainder(denominator);
        return new BigInteger[] {qr[0], qr[1], denominator};
    }
}

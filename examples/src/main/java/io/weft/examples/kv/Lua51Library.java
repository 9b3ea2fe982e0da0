package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.BooleanSupplier;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * What LuaJ's core libraries lack or do otherwise than Lua 5.1 in Redis, since KvWire {@value #SINCE}: the math
 * functions {@code acos}, {@code asin}, {@code atan}, {@code atan2}, {@code sinh}, {@code cosh}, {@code tanh},
 * {@code log} and {@code log10} (a script that called one failed with "attempt to call nil"), computed by
 * {@link StrictMath} so that every member gets the same bits; and {@code string.upper} and {@code string.lower} of
 * ASCII letters only, as C's in Redis (LuaJ's changed bytes past 127 as Latin-1 letters, so a UTF-8 {@code é} lost
 * its second byte). Since KvWire {@value #EXTREMES_SINCE}, {@code math.max} and {@code min} pass over a NaN after
 * the first argument, as C's comparisons do. A log's older batch meets these as its build did: the math functions as
 * nil, the case functions and extremes as LuaJ's.
 */
final class Lua51Library
{
    /** The KvWire version since which scripts have these functions. */
    static final byte SINCE = 20;
    /**
     * The KvWire version since which {@code math.max} and {@code min} compare as Lua 5.1's: a NaN after the first
     * argument is passed over ({@code math.max(1, 0/0)} is 1), where LuaJ's answered NaN.
     */
    static final byte EXTREMES_SINCE = 21;

    private Lua51Library()
    {
    }

    /**
     * Puts the functions into {@code math} and {@code string}; {@code since} tells whether a batch has them,
     * {@code extremes} whether it has Lua's {@code max} and {@code min}.
     */
    static void install(final LuaValue math, final LuaValue string, final BooleanSupplier since,
        final BooleanSupplier extremes)
    {
        extreme(math, "max", 1, extremes);
        extreme(math, "min", -1, extremes);
        unary(math, "acos", StrictMath::acos, since);
        unary(math, "asin", StrictMath::asin, since);
        unary(math, "atan", StrictMath::atan, since);
        unary(math, "sinh", StrictMath::sinh, since);
        unary(math, "cosh", StrictMath::cosh, since);
        unary(math, "tanh", StrictMath::tanh, since);
        unary(math, "log", StrictMath::log, since); // Lua 5.1's takes no base
        unary(math, "log10", StrictMath::log10, since);
        binary(math, "atan2", StrictMath::atan2, since);
        caseOf(string, "upper", 'a', since);
        caseOf(string, "lower", 'A', since);
    }

    private static void unary(final LuaValue math, final String name, final DoubleUnaryOperator f,
        final BooleanSupplier since)
    {
        math.set(name, ScriptRuntime.function(args ->
            LuaValue.valueOf(f.applyAsDouble(number(args, 1, name, since)))));
    }

    private static void binary(final LuaValue math, final String name, final DoubleBinaryOperator f,
        final BooleanSupplier since)
    {
        math.set(name, ScriptRuntime.function(args ->
            LuaValue.valueOf(f.applyAsDouble(number(args, 1, name, since), number(args, 2, name, since)))));
    }

    /** {@code math.max} ({@code sign} 1) or {@code min} (-1): the first argument, replaced by any beyond it. */
    private static void extreme(final LuaValue math, final String name, final int sign, final BooleanSupplier since)
    {
        final LuaValue luaj = math.get(name);
        math.set(name, ScriptRuntime.function(args ->
        {
            if (!since.getAsBoolean())
            {
                return luaj.invoke(args);
            }
            double best = ScriptRuntime.checkNumber(args, 1, name);
            for (int i = 2; i <= args.narg(); i++)
            {
                final double d = ScriptRuntime.checkNumber(args, i, name);
                if (sign > 0 ? d > best : d < best)
                {
                    best = d;
                }
            }
            return LuaValue.valueOf(best);
        }));
    }

    private static double number(final Varargs args, final int i, final String name, final BooleanSupplier since)
    {
        if (!since.getAsBoolean())
        {
            throw new LuaError("attempt to call nil"); // as LuaJ's call of the absent function failed
        }
        return ScriptRuntime.checkNumber(args, i, name);
    }

    /** {@code string.upper} ({@code from} 'a') or {@code lower} ('A'): the 26 ASCII letters changed, no other byte. */
    private static void caseOf(final LuaValue string, final String name, final char from, final BooleanSupplier since)
    {
        final LuaValue luaj = string.get(name);
        string.set(name, ScriptRuntime.function(args ->
        {
            if (!since.getAsBoolean())
            {
                return luaj.invoke(args);
            }
            final LuaString s = ScriptRuntime.checkString(args, 1, name);
            final byte[] out = new byte[s.m_length];
            for (int i = 0; i < out.length; i++)
            {
                final byte b = s.m_bytes[s.m_offset + i];
                out[i] = b >= from && b < from + 26 ? (byte)(b ^ 0x20) : b;
            }
            return LuaValue.valueOf(out);
        }));
    }
}

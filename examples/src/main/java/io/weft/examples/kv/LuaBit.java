package io.weft.examples.kv;

import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;

/**
 * Redis's {@code bit} library for scripts (LuaBitOp 1.0): 32-bit operations on numbers, each argument first made a
 * signed 32-bit integer as {@link #tobit} does (rounded half to even, taken modulo 2^32), and numeric strings taken
 * as numbers, as Lua's {@code luaL_checknumber} takes them. Results and errors are redis-server 7.0.15's.
 */
final class LuaBit
{
    private static final double TWO_TO_32 = 4294967296.0;

    private LuaBit()
    {
    }

    /** {@return the library's table: tobit, tohex, bnot, band, bor, bxor, lshift, rshift, arshift, rol, ror, bswap} */
    static LuaTable library()
    {
        final LuaTable bit = new LuaTable();
        bit.set("tobit", unary("tobit", x -> x));
        bit.set("bnot", unary("bnot", x -> ~x));
        bit.set("bswap", unary("bswap", Integer::reverseBytes));
        bit.set("band", fold("band", (a, b) -> a & b));
        bit.set("bor", fold("bor", (a, b) -> a | b));
        bit.set("bxor", fold("bxor", (a, b) -> a ^ b));
        bit.set("lshift", shift("lshift", (x, n) -> x << n));
        bit.set("rshift", shift("rshift", (x, n) -> x >>> n));
        bit.set("arshift", shift("arshift", (x, n) -> x >> n));
        bit.set("rol", shift("rol", Integer::rotateLeft));
        bit.set("ror", shift("ror", Integer::rotateRight));
        bit.set("tohex", ScriptRuntime.function(args ->
        {
            final int x = operand(args, 1, "tohex");
            final int n = args.isnoneornil(2) ? 8 : operand(args, 2, "tohex");
            final String hex = String.format(n < 0 ? "%08X" : "%08x", x);
            return LuaValue.valueOf(hex.substring(8 - Math.min(8, Math.abs(n))));
        }));
        return bit;
    }

    /** A number made a signed 32-bit integer as LuaBitOp's {@code tobit}: rounded half to even, modulo 2^32. */
    static int tobit(final double n)
    {
        return (int)(long)Math.rint(n % TWO_TO_32);
    }

    private static int operand(final Varargs args, final int i, final String name)
    {
        final LuaValue v = args.arg(i);
        if (!v.isnumber())
        {
            throw ScriptRuntime.badArgument(args, i, name, "number");
        }
        return tobit(v.todouble());
    }

    private static VarArgFunction unary(final String name, final IntUnaryOperator op)
    {
        return ScriptRuntime.function(args -> LuaValue.valueOf(op.applyAsInt(operand(args, 1, name))));
    }

    private static VarArgFunction fold(final String name, final IntBinaryOperator op)
    {
        return ScriptRuntime.function(args ->
        {
            int x = operand(args, 1, name);
            for (int i = 2; i <= args.narg(); i++)
            {
                x = op.applyAsInt(x, operand(args, i, name));
            }
            return LuaValue.valueOf(x);
        });
    }

    /** A shift or rotation: its count taken modulo 32, as the x86 instructions LuaBitOp uses take it. */
    private static VarArgFunction shift(final String name, final IntBinaryOperator op)
    {
        return ScriptRuntime.function(args ->
            LuaValue.valueOf(op.applyAsInt(operand(args, 1, name), operand(args, 2, name) & 31)));
    }
}

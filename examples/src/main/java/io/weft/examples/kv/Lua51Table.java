package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.util.function.BooleanSupplier;

/**
 * {@code table.concat} as Lua 5.1's {@code tconcat} in Redis, since KvWire {@value #SINCE}: a number among the items
 * or as the separator is Lua's text of it ({@code %.14g}: 1/3 gives {@code 0.33333333333333}, 1e15 {@code 1e+15}),
 * where LuaJ wrote a Java float's digits ({@code 0.33333334}, {@code 1000000000000000}); a nil separator is none
 * (LuaJ refused it); an item neither string nor number is Redis's error naming its type and index. A log's older
 * batch meets LuaJ's.
 */
final class Lua51Table
{
    /** The KvWire version since which scripts have this {@code concat}. */
    static final byte SINCE = 21;

    private Lua51Table()
    {
    }

    /** Puts {@code concat} into {@code table}; no result grows past {@code longest} bytes. */
    static void install(final LuaValue table, final BooleanSupplier since, final long longest)
    {
        final LuaValue luaj = table.get("concat");
        table.set("concat", ScriptRuntime.function(args -> since.getAsBoolean() ? concat(args, longest) :
            luaj.invoke(args)));
    }

    private static Varargs concat(final Varargs args, final long longest)
    {
        final LuaString sep = args.arg(2).isnil() ? LuaValue.EMPTYSTRING : Lua51Number.checkString(args, 2, "concat");
        if (!args.arg1().istable())
        {
            throw ScriptRuntime.badArgument(args, 1, "concat", "table");
        }
        final LuaTable t = (LuaTable)args.arg1();
        final long first = integer(args, 3, 1);
        final long last = integer(args, 4, t.rawlen());
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long i = first; i <= last; i++)
        {
            final LuaValue v = t.rawget((int)i);
            if (!v.isstring())
            {
                throw new LuaError("invalid value (" + v.typename() + ") at index " + i + " in table for " +
                    "'concat'");
            }
            final LuaString s = v.type() == LuaValue.TNUMBER ? LuaString.valueOf(Lua51Number.text(v.todouble())) :
                v.checkstring();
            out.write(s.m_bytes, s.m_offset, s.m_length);
            if (i < last)
            {
                out.write(sep.m_bytes, sep.m_offset, sep.m_length);
            }
            if (out.size() > longest)
            {
                throw new LuaError("table.concat: a result past " + longest + " bytes");
            }
        }
        return LuaString.valueOf(out.toByteArray());
    }

    /** {@code luaL_optint}: {@code otherwise} if absent or nil, else a number truncated to an int as C does. */
    private static long integer(final Varargs args, final int i, final long otherwise)
    {
        return args.arg(i).isnil() ? otherwise :
            (int)Lua51Format.x86(ScriptRuntime.checkNumber(args, i, "concat"), Long.MIN_VALUE);
    }
}

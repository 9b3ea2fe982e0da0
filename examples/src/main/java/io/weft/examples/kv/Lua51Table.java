package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.BooleanSupplier;

/**
 * {@code table.concat}, {@code insert} and {@code maxn} as Lua 5.1's in Redis, since KvWire {@value #SINCE}. In
 * {@code concat} a number among the items or as the separator is Lua's text of it ({@code %.14g}: 1/3 gives
 * {@code 0.33333333333333}, 1e15 {@code 1e+15}), where LuaJ wrote a Java float's digits ({@code 0.33333334},
 * {@code 1000000000000000}); a nil separator is none (LuaJ refused it); an item neither string nor number is Redis's
 * error naming its type and index. {@code insert} takes two or three arguments (LuaJ took more) and a position past
 * the end; {@code maxn} was missing. A log's older batch meets LuaJ's.
 */
final class Lua51Table
{
    /** The KvWire version since which scripts have these functions. */
    static final byte SINCE = 21;

    private Lua51Table()
    {
    }

    /** Puts the functions into {@code table}; no result of {@code concat} grows past {@code longest} bytes. */
    static void install(final LuaValue table, final BooleanSupplier since, final long longest)
    {
        final LuaValue concat = table.get("concat");
        table.set("concat", ScriptRuntime.function(args -> since.getAsBoolean() ? concat(args, longest) :
            concat.invoke(args)));
        final LuaValue insert = table.get("insert");
        table.set("insert", ScriptRuntime.function(args -> since.getAsBoolean() ? insert(args) : insert.invoke(args)));
        table.set("maxn", ScriptRuntime.function(args ->
        {
            if (!since.getAsBoolean())
            {
                throw new LuaError("attempt to call nil"); // as LuaJ's call of the absent function failed
            }
            return maxn(args);
        }));
    }

    /**
     * {@code tinsert}: {@code insert(t, v)} at the end, {@code insert(t, pos, v)} at {@code pos}, the items from there
     * moved up (past the end too, where LuaJ refused a position out of bounds); any other count is an error.
     */
    private static Varargs insert(final Varargs args)
    {
        final LuaTable t = table(args, "insert");
        int end = t.rawlen() + 1;
        final int pos;
        switch (args.narg())
        {
            case 2 -> pos = end;
            case 3 ->
            {
                pos = (int)Lua51Number.checkInteger(args, 2, "insert");
                end = Math.max(end, pos);
                for (int i = end; i > pos; i--)
                {
                    t.rawset(i, t.rawget(i - 1));
                }
            }
            default -> throw new LuaError("wrong number of arguments to 'insert'");
        }
        t.rawset(pos, args.arg(args.narg()));
        return LuaValue.NONE;
    }

    /** {@code maxn}: the largest positive number among the keys, 0 if none (LuaJ lacks it). */
    private static Varargs maxn(final Varargs args)
    {
        double max = 0;
        for (final LuaValue key : table(args, "maxn").keys())
        {
            if (key.type() == LuaValue.TNUMBER && key.todouble() > max)
            {
                max = key.todouble();
            }
        }
        return LuaValue.valueOf(max);
    }

    private static LuaTable table(final Varargs args, final String function)
    {
        if (!args.arg1().istable())
        {
            throw ScriptRuntime.badArgument(args, 1, function, "table");
        }
        return (LuaTable)args.arg1();
    }

    private static Varargs concat(final Varargs args, final long longest)
    {
        final LuaString sep = args.arg(2).isnil() ? LuaValue.EMPTYSTRING : Lua51Number.checkString(args, 2, "concat");
        final LuaTable t = table(args, "concat");
        final long first = (int)Lua51Number.optInteger(args, 3, 1, "concat"); // luaL_optint: an int, as C casts it
        final long last = (int)Lua51Number.optInteger(args, 4, t.rawlen(), "concat");
        final BoundedOutput out = new BoundedOutput(longest, "table.concat");
        for (long i = first; i <= last; i++)
        {
            final LuaValue v = t.rawget((int)i);
            if (!v.isstring())
            {
                throw new LuaError("invalid value (" + v.typename() + ") at index " + i + " in table for " +
                    "'concat'");
            }
            out.add(Lua51Number.string(v));
            if (i < last)
            {
                out.add(sep);
            }
        }
        return out.string();
    }
}

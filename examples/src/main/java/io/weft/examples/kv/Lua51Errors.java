package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.BooleanSupplier;

/**
 * The text of an error a script catches with {@code pcall}, as Lua 5.1 in Redis gives it, since KvWire
 * {@value #SINCE}: {@code user_script:1: text}, where LuaJ gave {@code @user_script:1 text} followed by a Java stack
 * trace ({@code [Java]: in ?}); and {@code error(text, 0)} adds no place. A log's older batch meets LuaJ's.
 */
final class Lua51Errors
{
    /** The KvWire version since which a caught error's text is Lua's. */
    static final byte SINCE = 21;

    private Lua51Errors()
    {
    }

    /** Wraps {@code pcall} and {@code error} in {@code globals}; {@code since} tells whether a batch has them. */
    static void install(final LuaValue globals, final BooleanSupplier since)
    {
        final LuaValue pcall = globals.get("pcall");
        globals.set("pcall", ScriptRuntime.function(args ->
        {
            final Varargs result = pcall.invoke(args);
            return result.arg1().toboolean() || result.arg(2).type() != LuaValue.TSTRING || !since.getAsBoolean() ?
                result : LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf(placed(result.arg(2).tojstring())));
        }));
        final LuaValue error = globals.get("error");
        globals.set("error", ScriptRuntime.function(args ->
        {
            if (args.arg1().type() == LuaValue.TSTRING && args.arg(2).type() == LuaValue.TNUMBER &&
                args.arg(2).todouble() == 0 && since.getAsBoolean())
            {
                throw new LuaError(args.arg1()); // an error object: LuaJ adds no place to it, as Lua at level 0
            }
            return error.invoke(args);
        }));
    }

    /** Redis's form of a place in the script, without LuaJ's traceback: "user_script:3: text". */
    static String placed(final String message)
    {
        return message.replaceFirst("(?s)\\s*stack traceback:.*", "")
            .replaceFirst("^@?user_script:(\\d+) ", "user_script:$1: ");
    }
}

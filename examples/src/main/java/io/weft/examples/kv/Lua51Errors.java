package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.BooleanSupplier;

/**
 * What a script's {@code pcall} returns for an error, as Lua 5.1 in Redis 7.0 gives it, since KvWire {@value #SINCE}:
 * a text is {@code user_script:1: text}, where LuaJ gave {@code @user_script:1 text} followed by a Java stack trace
 * ({@code [Java]: in ?}), and {@code error(text, 0)} adds no place; an error reply raised ({@code redis.call}'s,
 * {@code {err = ...}}) is its text, where LuaJ gave the table (so {@code local ok, e = pcall(redis.call, ...)} then
 * {@code return redis.error_reply(e)} failed). A log's older batch meets LuaJ's.
 */
final class Lua51Errors
{
    /** The KvWire version since which a caught error's text is Lua's. */
    static final byte SINCE = 21;

    private Lua51Errors()
    {
    }

    /**
     * Wraps {@code pcall} and {@code error} in {@code globals}; {@code since} tells whether a batch has them,
     * {@code loaded} whether it has {@code loadstring}'s chunks ({@link #placed}).
     */
    static void install(final LuaValue globals, final BooleanSupplier since, final BooleanSupplier loaded)
    {
        final LuaValue pcall = globals.get("pcall");
        globals.set("pcall", ScriptRuntime.function(args ->
        {
            final Varargs result = pcall.invoke(args);
            final LuaValue error = result.arg(2);
            if (result.arg1().toboolean() || !since.getAsBoolean())
            {
                return result;
            }
            if (error.type() == LuaValue.TSTRING)
            {
                return LuaValue.varargsOf(LuaValue.FALSE,
                    LuaValue.valueOf(placed(error.tojstring(), loaded.getAsBoolean())));
            }
            // an error reply raised (redis.call's, error(redis.error_reply(...))): its text, as Redis 7.0 hands it over
            return error.istable() && error.rawget("err").type() == LuaValue.TSTRING ?
                LuaValue.varargsOf(LuaValue.FALSE, error.rawget("err")) : result;
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

    /**
     * Redis's form of a place in the script, without LuaJ's traceback: "user_script:3: text"; with {@code loaded}, a
     * place in a chunk of {@code loadstring} too, which LuaJ writes after its name's {@code =}
     * ({@link Lua51Base#loadstring}): {@code [string "x = 1"]:1: text}.
     */
    static String placed(final String message, final boolean loaded)
    {
        final String placed = message.replaceFirst("(?s)\\s*stack traceback:.*", "")
            .replaceFirst("^@?user_script:(\\d+) ", "user_script:$1: ");
        return loaded ? placed.replaceFirst("^=(\\[string \".*?\"]|[^\\[].*?):(\\d+) ", "$1:$2: ") : placed;
    }
}

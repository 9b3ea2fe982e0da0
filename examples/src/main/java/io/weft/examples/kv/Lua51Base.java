package io.weft.examples.kv;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Lua 5.1's functions that Redis's scripts have and LuaJ's Lua 5.2 lacks: {@code loadstring} (text chunks only, as
 * Redis 7.0 loads them, named as Lua 5.1 names them), {@code table.foreach}, {@code table.foreachi},
 * {@code table.setn} (obsolete, as in 5.1), {@code math.mod} and {@code string.gfind}. Results and errors are
 * redis-server 7.0.15's (Lua51BaseTest).
 */
final class Lua51Base
{
    /**
     * The KvWire version since which scripts have them: before, each was absent (nil), and a log's older batch
     * replays so, finding none.
     */
    static final byte SINCE = 28;
    /** Lua 5.1 names a chunk where it runs in at most 59 characters ({@code LUA_IDSIZE} 60, its NUL included). */
    private static final int ID_SIZE = 60;
    /** ... and in a syntax error in at most 79 ({@code MAXSRC}). */
    private static final int SYNTAX_ID_SIZE = 80;
    /**
     * What compiling costs in Lua instructions: a call, and each byte of the chunk (measured here: LuaJ compiles a
     * byte in 60 to 270 ns, about 20 instructions' time), so a script compiles some 2.5 MB at most.
     */
    private static final long COMPILE_CALL = 100;
    private static final long COMPILE_BYTE = 20;

    private Lua51Base()
    {
    }

    /**
     * Adds the library functions to {@code table}, {@code math} and {@code string} (LuaJ's own tables, behind the
     * scripts' read-only views): each is found only while {@code since} holds, through a metatable consulted for
     * fields a table lacks, so the fields the tables hold cost nothing more to read.
     */
    static void install(final LuaValue table, final LuaValue math, final LuaValue string, final BooleanSupplier since)
    {
        final LuaValue foreach = ScriptRuntime.function(Lua51Base::foreach);
        final LuaValue foreachi = ScriptRuntime.function(Lua51Base::foreachi);
        final LuaValue setn = ScriptRuntime.function(args ->
        {
            table(args, "setn");
            throw new LuaError("'setn' is obsolete");
        });
        late(table, Map.of("foreach", foreach, "foreachi", foreachi, "setn", setn), since);
        late(math, Map.of("mod", ScriptRuntime.function(args ->
        {
            final double b = Lua51Number.checkNumber(args, 2, "mod"); // the second first, as gcc evaluates C's
            return LuaValue.valueOf(Lua51Number.checkNumber(args, 1, "mod") % b); // Java's % is C's fmod
        })), since);
        late(string, Map.of("gfind", string.get("gmatch")), since);
    }

    private static void late(final LuaValue library, final Map<String, LuaValue> added, final BooleanSupplier since)
    {
        final LuaTable meta = new LuaTable();
        meta.set(LuaValue.INDEX, ScriptRuntime.function(args ->
        {
            final LuaValue key = args.arg(2);
            final LuaValue found = key.isstring() ? added.get(key.tojstring()) : null;
            return found != null && since.getAsBoolean() ? found : LuaValue.NIL;
        }));
        library.setmetatable(meta);
    }

    /**
     * Lua 5.1's {@code loadstring(s [, chunkname])} into {@code globals}: the chunk as a function, or nil and the
     * error. A binary chunk is read as text, as Redis 7.0 reads it (its ESC byte an unexpected symbol). Compiling
     * charges {@code charge} Lua instructions for its work ({@link #COMPILE_BYTE}), the same at every member.
     */
    static LuaValue loadstring(final Globals globals, final LongConsumer charge)
    {
        return ScriptRuntime.function(args ->
        {
            final LuaString source = Lua51Number.checkString(args, 1, "loadstring");
            final LuaString name = args.isnil(2) ? source : Lua51Number.checkString(args, 2, "loadstring");
            charge.accept(COMPILE_CALL + COMPILE_BYTE * source.length());
            if (source.length() > 0 && source.luaByte(0) == 27)
            {
                return LuaValue.varargsOf(LuaValue.NIL,
                    LuaValue.valueOf(chunkId(name, SYNTAX_ID_SIZE) + ":1: unexpected symbol near 'char(27)'"));
            }
            try
            {
                return globals.load(new ByteArrayInputStream(source.m_bytes, source.m_offset, source.m_length),
                    "=" + chunkId(name, ID_SIZE), "t", globals);
            }
            catch (final LuaError ex)
            {
                return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf(ex.getMessage()));
            }
        });
    }

    /**
     * How Lua 5.1 names a chunk in messages ({@code luaO_chunkid}) in at most {@code size - 1} characters: after
     * {@code =} as it is, after {@code @} as a file (its last part if long), else {@code [string "..."]} of its first
     * line, cut with {@code ...} if long; a C string, so a NUL ends it.
     */
    static String chunkId(final LuaString name, final int size)
    {
        final String s = new String(LuaFormat.bytes(name), StandardCharsets.UTF_8).split("\0", 2)[0];
        if (s.startsWith("="))
        {
            return s.substring(1, Math.min(s.length(), size));
        }
        if (s.startsWith("@"))
        {
            final int room = size - " '...' ".length() - 1;
            final String file = s.substring(1);
            return file.length() > room ? "..." + file.substring(file.length() - room) : file;
        }
        final int line = firstLineEnd(s);
        final int room = size - " [string \"...\"] ".length() - 1;
        final int length = Math.min(line, room);
        return "[string \"" + s.substring(0, length) + (length < s.length() ? "..." : "") + "\"]";
    }

    private static int firstLineEnd(final String s)
    {
        for (int i = 0; i < s.length(); i++)
        {
            if (s.charAt(i) == '\n' || s.charAt(i) == '\r')
            {
                return i;
            }
        }
        return s.length();
    }

    /** Lua 5.1's {@code table.foreach(t, f)}: f(k, v) for each pair, until one returns a value, which it returns. */
    private static Varargs foreach(final Varargs args)
    {
        final LuaTable t = table(args, "foreach");
        final LuaValue f = function(args, "foreach");
        LuaValue key = LuaValue.NIL;
        while (true)
        {
            final Varargs next = t.next(key);
            key = next.arg1();
            if (key.isnil())
            {
                return LuaValue.NONE;
            }
            final LuaValue result = f.call(key, next.arg(2));
            if (!result.isnil())
            {
                return result;
            }
        }
    }

    /** Lua 5.1's {@code table.foreachi(t, f)}: f(i, t[i]) for i from 1 to #t, until one returns a value. */
    private static Varargs foreachi(final Varargs args)
    {
        final LuaTable t = table(args, "foreachi");
        final int n = t.rawlen();
        final LuaValue f = function(args, "foreachi");
        for (int i = 1; i <= n; i++)
        {
            final LuaValue result = f.call(LuaValue.valueOf(i), t.rawget(i));
            if (!result.isnil())
            {
                return result;
            }
        }
        return LuaValue.NONE;
    }

    /** Argument 1, a table; else Lua's error naming {@code function}. */
    private static LuaTable table(final Varargs args, final String function)
    {
        if (!args.istable(1))
        {
            throw ScriptRuntime.badArgument(args, 1, function, "table");
        }
        return (LuaTable)args.arg1();
    }

    /** Argument 2, a function; else Lua's error naming {@code function}. */
    private static LuaValue function(final Varargs args, final String function)
    {
        if (!args.isfunction(2))
        {
            throw ScriptRuntime.badArgument(args, 2, function, "function");
        }
        return args.arg(2);
    }
}

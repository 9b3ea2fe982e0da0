package io.weft.examples.kv;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaInteger;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.Bit32Lib;
import org.luaj.vm2.lib.DebugLib;
import org.luaj.vm2.lib.MathLib;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.VarArgFunction;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

/**
 * The Lua state that runs {@link Scripts} on the delivery thread (LuaJ, Lua 5.2 with Redis's 5.1 names {@code unpack}
 * and {@code table.getn}): the base, table, string, math and bit32 libraries, Redis's {@code cjson} ({@link LuaCjson}),
 * {@code cmsgpack} ({@link LuaCmsgpack}), {@code bit} ({@link LuaBit}) and {@code struct} ({@link LuaStruct}, since
 * KvWire 27), the {@code redis} table ({@code call}, {@code pcall}, {@code status_reply}, {@code error_reply},
 * {@code sha1hex}, {@code log}), and {@code KEYS} and {@code ARGV}. A script must change every member's copy alike, so
 * what could differ between members is taken away or made the same: no files, modules, printing or garbage collector;
 * {@code math.random} starts from one seed at every script, and SRANDMEMBER and ZRANDMEMBER inside draw from it
 * ({@link Draws}); {@code tostring} of a table or function names its type only (not its address); {@code TIME} inside a
 * script is the batch's clock; the libraries and globals are read-only (globals cannot be created or misspelt, as in
 * Redis 7), so no script leaves a change for the next, which a member that joined later would run in a fresh state. A
 * script runs at most {@value #INSTRUCTIONS} Lua instructions (a pattern match's steps count as such) and calls
 * {@value #DEPTH} functions deep: past either it ends with an error, at every member at the same instruction (the
 * writes it made stay, as in Redis).
 */
final class ScriptRuntime
{
    /**
     * The KvWire version since which a number passed to redis.call is written as Redis 7.0 writes it ({@code %.17g}):
     * before, LuaJ's text of it, a Java float's digits ({@code 123456.789} became {@code 123456.79}); a log's older
     * batch replays as its build applied it.
     */
    static final byte NUMBERS_SINCE = 17;
    /**
     * KvWire version since which a command's error reaches a script marked {@code ignore_error_stats_update}, a
     * field the script sees, as in Redis 7; before, the table held {@code err} alone.
     */
    static final byte COUNTED_ERRORS_SINCE = 25;
    /**
     * KvWire version since which a script's call of a command its connection answers is refused saying why, not as an
     * unknown command ({@link #MEMBER_ONLY}, {@link #NOSCRIPT}).
     */
    static final byte NOT_ALLOWED_SINCE = 26;
    /** Lua instructions a script may run: about a second of this member's delivery thread, which waits for it. */
    static final long INSTRUCTIONS = 50_000_000L;
    /** Lua calls a script may nest (Java's stack, not the same at every member, must never be what ends one). */
    static final int DEPTH = 200;
    /** The longest string {@code string.rep} or {@code gsub} makes: a command's longest argument (16 MiB). */
    private static final long LONGEST_STRING = 16L << 20;
    private static final int HOOK_EVERY = 10_000;
    private static final int COMPILED = 500;
    private static final String CHUNK = "@user_script";
    /** Commands of a connection, not of the store: Redis refuses them in scripts. */
    private static final Set<String> CONNECTION = Set.of("MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH", "SUBSCRIBE",
        "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "CLIENT", "HELLO", "AUTH", "QUIT",
        "RESET", "SCRIPT", "WAIT", "CONFIG", "ACL", "ROLE");
    /** Commands a connection answers here that Redis flags noscript too: refused in Redis's words. */
    private static final Set<String> NOSCRIPT = Set.of("LATENCY", "SAVE", "BGSAVE", "SYNC", "PSYNC", "REPLCONF");
    /**
     * Commands Redis lets scripts call, answered here by a connection from its member's own state (COMMAND from its
     * build's): a script runs at every member, so it may call only the store's commands.
     */
    private static final Set<String> MEMBER_ONLY = Set.of("INFO", "LASTSAVE", "SLOWLOG", "PUBSUB", "COMMAND");
    private static final Set<String> REMOVED = Set.of("dofile", "loadfile", "load", "loadstring", "require", "module",
        "package", "debug", "print", "collectgarbage", "coroutine", "rawset");
    private static final LuaString STRUCT = LuaString.valueOf("struct");
    private static final LuaString LOADSTRING = LuaString.valueOf("loadstring");
    private static final List<String> LIBRARIES = List.of("string", "table", "math", "bit32", "redis", "cjson", "bit",
        "cmsgpack");

    private final KvStore store;
    private final Globals globals = new Globals();
    /** Compiled scripts by SHA-1, the least recently used dropped beyond {@value #COMPILED}. */
    private final Map<String, LuaValue> compiled = new LinkedHashMap<>(16, 0.75f, true)
    {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, LuaValue> eldest)
        {
            return size() > COMPILED;
        }
    };
    private final Random random = new Random();
    // the script running: its clock, whether it may write, the instructions and depth it reached
    private long now;
    private boolean readOnly;
    private long instructions;
    private int depth;

    ScriptRuntime(final KvStore store)
    {
        this.store = store;
        globals.load(new BaseLib());
        globals.load(new PackageLib());
        globals.load(new Bit32Lib());
        globals.load(new TableLib());
        globals.load(new StringLib());
        globals.load(new MathLib());
        globals.load(new DebugLib());
        LoadState.install(globals);
        LuaC.install(globals);
        globals.get("debug").get("sethook").invoke(LuaValue.varargsOf(new LuaValue[] {
            function(this::onHook), LuaValue.valueOf("cr"), LuaValue.valueOf(HOOK_EVERY)}));
        for (final String name : REMOVED)
        {
            globals.set(name, LuaValue.NIL);
        }
        final LuaValue table = globals.get("table");
        globals.set("unpack", table.get("unpack"));
        table.set("getn", function(args -> LuaValue.valueOf(args.checktable(1).length())));
        final LuaValue math = globals.get("math");
        math.set("random", function(this::random));
        math.set("randomseed", function(args -> seed(args.checklong(1))));
        Lua51Library.install(math, globals.get("string"), () -> since(Lua51Library.SINCE),
            () -> since(Lua51Library.EXTREMES_SINCE));
        Lua51Table.install(table, () -> since(Lua51Table.SINCE), LONGEST_STRING);
        Lua51Strings.install(globals.get("string"), () -> since(Lua51Strings.SINCE), this::charge, LONGEST_STRING);
        final LuaFormat format = new LuaFormat(globals.get("string").get("format"),
            () -> since(LuaFormat.LUA51_SINCE));
        globals.get("string").set("format", function(format::format));
        final LuaValue tostring = globals.get("tostring");
        globals.set("tostring", function(args ->
        {
            final LuaValue v = args.arg1();
            final boolean byAddress = (v.istable() || v.isfunction() || v.isthread() || v.isuserdata()) &&
                (v.getmetatable() == null || v.getmetatable().get("__tostring").isnil());
            if (v.type() == LuaValue.TNUMBER && since(LuaFormat.LUA51_SINCE))
            {
                return LuaValue.valueOf(Lua51Number.text(v.todouble()));
            }
            return byAddress ? LuaValue.valueOf(v.typename()) : tostring.invoke(args);
        }));
        Lua51Errors.install(globals, () -> since(Lua51Errors.SINCE), () -> since(Lua51Base.SINCE));
        final LuaValue tonumber = globals.get("tonumber");
        globals.set("tonumber", function(args -> since(Lua51Number.TONUMBER_SINCE) ? Lua51Number.tonumber(args) :
            tonumber.invoke(args)));
        Lua51Base.install(table, math, globals.get("string"), () -> since(Lua51Base.SINCE));
        globals.set("redis", redisTable());
        globals.set("cjson", LuaCjson.library());
        globals.set("bit", LuaBit.library());
        globals.set("cmsgpack", LuaCmsgpack.library());
        // what one script changes must not reach the next: a member that joins later runs them in a fresh state
        for (final String library : LIBRARIES)
        {
            globals.set(library, readOnly(globals.get(library)));
        }
        LuaString.s_metatable = guard(globals.get("string"));
        // globals added since the first scripts: not globals themselves, so a log's older batch finds none, as its
        // build did
        final LuaTable struct = readOnly(LuaStruct.library());
        final LuaValue loadstring = Lua51Base.loadstring(globals, this::charge);
        globals.setmetatable(guard(function(args ->
        {
            if (args.arg(2).raweq(STRUCT) && since(LuaStruct.SINCE))
            {
                return struct;
            }
            if (args.arg(2).raweq(LOADSTRING) && since(Lua51Base.SINCE))
            {
                return loadstring;
            }
            throw new LuaError("Script attempted to access nonexistent global variable '" + args.arg(2).tojstring() +
                "'");
        })));
    }

    /** An empty table that reads {@code table}'s fields and refuses writes, its metatable hidden (as Redis 7's). */
    private static LuaTable readOnly(final LuaValue table)
    {
        final LuaTable proxy = new LuaTable();
        proxy.setmetatable(guard(table));
        return proxy;
    }

    private static LuaTable guard(final LuaValue index)
    {
        final LuaTable meta = new LuaTable();
        meta.set(LuaValue.INDEX, index);
        meta.set(LuaValue.NEWINDEX, function(args ->
        {
            throw new LuaError("Attempt to modify a readonly table");
        }));
        meta.set(LuaValue.METATABLE, LuaValue.FALSE);
        return meta;
    }

    /**
     * The error SCRIPT LOAD answers for {@code body}, a script that does not compile; null if it does. Redis names no
     * script in it (it has no SHA-1 yet for Redis: it was never loaded).
     */
    static String compileError(final byte[] body)
    {
        final Globals compiler = new Globals();
        LoadState.install(compiler);
        LuaC.install(compiler);
        try
        {
            compiler.load(new ByteArrayInputStream(body), CHUNK, "t", compiler);
            return null;
        }
        catch (final LuaError ex)
        {
            return "ERR Error compiling script (new function): " + ex.getMessage();
        }
    }

    /** Runs a script (compiled once, by its SHA-1) with its keys and arguments at clock reading {@code now}. */
    Reply run(final String sha, final byte[] body, final List<byte[]> keys, final List<byte[]> args,
        final boolean readOnly, final long now)
    {
        LuaValue script = compiled.get(sha);
        if (script == null)
        {
            try
            {
                script = globals.load(new ByteArrayInputStream(body), CHUNK, "t", globals);
            }
            catch (final LuaError ex)
            {
                return Reply.error("ERR Error compiling script (new function): " + ex.getMessage());
            }
            compiled.put(sha, script);
        }
        globals.rawset("KEYS", strings(keys));
        globals.rawset("ARGV", strings(args));
        this.now = now;
        this.readOnly = readOnly;
        instructions = 0;
        depth = 0;
        seed(0);
        Draws.scriptStarted(random); // SRANDMEMBER and ZRANDMEMBER inside draw alike at every member
        try
        {
            final LuaValue result = script.call();
            if (store.counting != null)
            {
                store.counting.answered(LuaReplies.counted(result));
            }
            return LuaReplies.reply(result);
        }
        catch (final LuaError ex)
        {
            final LuaValue thrown = ex.getMessageObject();
            if (store.counting != null)
            {
                store.counting.answered(LuaReplies.counted(thrown));
            }
            final LuaValue err = thrown != null && thrown.istable() ? thrown.rawget("err") : LuaValue.NIL;
            final String message = thrown != null && thrown.type() == LuaValue.TSTRING ? thrown.tojstring() :
                ex.getMessage();
            // error() of nothing: LuaJ's message is Java's null, Redis writes nil
            final String text = Lua51Errors.placed(message, since(Lua51Base.SINCE)).replaceFirst("^null$", "nil");
            return Reply.error(err.type() == LuaValue.TSTRING ? err.tojstring() + " script: " + sha :
                "ERR " + text + " script: " + sha);
        }
        finally
        {
            Draws.scriptEnded();
            globals.rawset("KEYS", LuaValue.NIL);
            globals.rawset("ARGV", LuaValue.NIL);
        }
    }

    private LuaTable redisTable()
    {
        final LuaTable redis = new LuaTable();
        redis.set("call", function(args -> call(args, false)));
        redis.set("pcall", function(args -> call(args, true)));
        redis.set("status_reply", function(args -> LuaReplies.field("ok", args.checkstring(1))));
        redis.set("error_reply", function(args -> LuaReplies.field("err", args.checkstring(1))));
        redis.set("sha1hex", function(args -> LuaValue.valueOf(Scripts.sha1(LuaReplies.bytes(args.checkstring(1))))));
        redis.set("log", function(args -> LuaValue.NONE)); // a member's log is not the script's
        redis.set("setresp", function(args -> args.checkint(1) == 2 ? LuaValue.NONE :
            error("ERR RESP version must be 2 here")));
        redis.set("set_repl", function(args -> LuaValue.NONE)); // every member runs the script: nothing to replicate
        redis.set("replicate_commands", function(args -> LuaValue.TRUE));
        for (final String level : List.of("LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"))
        {
            redis.set(level, LuaValue.valueOf(level.length()));
        }
        for (final String repl : List.of("REPL_NONE", "REPL_AOF", "REPL_SLAVE", "REPL_REPLICA", "REPL_ALL"))
        {
            redis.set(repl, LuaValue.valueOf(repl.length()));
        }
        return redis;
    }

    /** redis.call, redis.pcall: the store's command, its reply as Lua values; its error raised, or returned (pcall). */
    private Varargs call(final Varargs args, final boolean protectedCall)
    {
        if (args.narg() == 0)
        {
            return failed("ERR Please specify at least one argument for this redis lib call", protectedCall, false);
        }
        final List<byte[]> command = new ArrayList<>(args.narg());
        for (int i = 1; i <= args.narg(); i++)
        {
            final LuaValue a = args.arg(i);
            if (a.type() != LuaValue.TSTRING && a.type() != LuaValue.TNUMBER)
            {
                return failed("ERR Lua redis lib command arguments must be strings or integers", protectedCall, false);
            }
            command.add(a.type() == LuaValue.TNUMBER && since(NUMBERS_SINCE) ?
                number(a.todouble()) : LuaReplies.bytes(a.checkstring()));
        }
        final String cmd = Commands.name(command);
        final String refused = refused(cmd, command);
        final Reply reply = refused != null ? Reply.error(refused) : InnerCalls.call(store, command, now);
        // a command's error is counted as it ran: marked so, a script that answers with it has it counted once
        final boolean counted = refused == null && since(COUNTED_ERRORS_SINCE);
        return reply instanceof Reply.Error e ? failed(e.text(), protectedCall, counted) : LuaReplies.lua(reply);
    }

    /** Whether the batch being applied is of KvWire {@code version} or later (a log's older one runs as it ran). */
    private boolean since(final byte version)
    {
        return store.versions().wire() >= version;
    }

    /** A number argument as Redis 7.0 writes it: {@code %.17g}, and a NaN as x86's printf writes one made by 0/0. */
    private static byte[] number(final double d)
    {
        return LuaFormat.real(".17", 'g', d, true).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Whether a script may call {@code cmd}: the store's commands (those of its batch's version: {@link #refused}),
     * but no blocking command, no script and none a connection answers (COMMAND's noscript flag).
     */
    static boolean mayCall(final String cmd)
    {
        return !notAllowed(cmd) && Commands.isQueued(cmd);
    }

    private static boolean notAllowed(final String cmd)
    {
        return BlockedClients.blocks(cmd) || cmd.startsWith("EVAL") || CONNECTION.contains(cmd);
    }

    /**
     * Why a script may not run {@code cmd}, the command {@code words}; null if it may. As in Redis, a container's
     * unknown subcommand (MEMORY's: the one container a script may call) is an unknown command, and a subcommand's
     * arity counts.
     */
    private String refused(final String cmd, final List<byte[]> words)
    {
        if (notAllowed(cmd) || since(NOT_ALLOWED_SINCE) && NOSCRIPT.contains(cmd))
        {
            return "ERR This Redis command is not allowed from script";
        }
        if (since(NOT_ALLOWED_SINCE) && MEMBER_ONLY.contains(cmd))
        {
            return "ERR This Redis command is not allowed from script here: it answers from this member's own state, " +
                "and every member runs the script; a script may call the store's commands";
        }
        if (BlockedClients.blocks(cmd, words)) // XREAD or XREADGROUP with BLOCK: the others are not allowed at all
        {
            final String refusal = " command is not allowed with BLOCK option from scripts";
            return since(StreamReads.SCRIPT_ORDER_SINCE) ? StreamReads.refusalInScript(words, cmd.equals("XREADGROUP"),
                "ERR " + Commands.text(words.getFirst()) + refusal) : "ERR " + cmd + refusal;
        }
        final String sub = words.size() > 1 && Subcommands.isContainer(cmd) ? Commands.word(words.get(1)) : null;
        if (!Commands.inScriptsAt(cmd, store.versions().wire()) || sub != null && !Subcommands.has(cmd, sub))
        {
            return "ERR Unknown Redis command called from script";
        }
        if (readOnly && Commands.isWrite(cmd))
        {
            return "ERR Write commands are not allowed from read-only scripts.";
        }
        final boolean fits = sub != null ? Commands.fitsArity(Subcommands.arity(cmd, sub), words.size()) :
            Commands.fitsArity(cmd, words.size());
        return fits ? null : "ERR Wrong number of args calling Redis command from script";
    }

    /**
     * A redis lib call's error: returned (pcall) or raised; a command's error, {@code counted} as it ran, marked
     * {@code ignore_error_stats_update} as Redis 7 marks it (the script sees the field).
     */
    private static Varargs failed(final String error, final boolean returned, final boolean counted)
    {
        final LuaTable err = LuaReplies.field("err", LuaValue.valueOf(error));
        if (counted)
        {
            err.rawset(LuaReplies.COUNTED, LuaValue.TRUE);
        }
        if (returned)
        {
            return err;
        }
        throw new LuaError(err);
    }

    private static LuaTable strings(final List<byte[]> values)
    {
        final LuaTable t = new LuaTable(values.size(), 0);
        for (int i = 0; i < values.size(); i++)
        {
            t.rawset(i + 1, LuaValue.valueOf(values.get(i)));
        }
        return t;
    }

    /** The debug hook: every {@value #HOOK_EVERY} instructions, and at each call and return. */
    private Varargs onHook(final Varargs args)
    {
        switch (args.checkjstring(1))
        {
            case "count" -> charge(HOOK_EVERY);
            case "call", "tail call" -> depth++;
            case "return" -> depth--;
            default ->
            {
            }
        }
        if (depth > DEPTH)
        {
            throw new LuaError("the script called functions past " + DEPTH + " deep");
        }
        return LuaValue.NONE;
    }

    /** Adds {@code steps} to the instructions run: Lua's, or a library's work charged as such (a pattern's). */
    private void charge(final long steps)
    {
        instructions += steps;
        if (instructions > INSTRUCTIONS)
        {
            throw new LuaError("the script ran past " + INSTRUCTIONS + " Lua instructions");
        }
    }

    /** math.random as Lua's: [0, 1) without arguments, [1, m] with one, [m, n] with two. */
    private Varargs random(final Varargs args)
    {
        if (args.narg() == 0)
        {
            return LuaValue.valueOf(random.nextDouble());
        }
        final long low = args.narg() == 1 ? 1 : args.checklong(1);
        final long high = args.checklong(args.narg() == 1 ? 1 : 2);
        if (low > high)
        {
            throw new LuaError("bad argument #" + args.narg() + " to 'random' (interval is empty)");
        }
        return LuaInteger.valueOf(low + (long)(random.nextDouble() * (high - low + 1)));
    }

    private Varargs seed(final long seed)
    {
        random.setSeed(seed);
        return LuaValue.NONE;
    }

    private static Varargs error(final String text)
    {
        throw new LuaError(text);
    }

    /**
     * {@return Lua's error for argument {@code i} of library function {@code function}, not the {@code expected} type}
     * As {@code luaL_typerror} words it: "bad argument #2 to 'band' (number expected, got string)".
     */
    static LuaError badArgument(final Varargs args, final int i, final String function, final String expected)
    {
        return new LuaError("bad argument #" + i + " to '" + function + "' (" + expected + " expected, got " +
            (i > args.narg() ? "no value" : args.arg(i).typename()) + ")");
    }

    /** Lua's {@code luaL_checknumber}: argument {@code i} as a number (or a string read as one); else the error. */
    static double checkNumber(final Varargs args, final int i, final String function)
    {
        final LuaValue n = args.arg(i).tonumber();
        if (n.isnil())
        {
            throw badArgument(args, i, function, "number");
        }
        return n.todouble();
    }

    /** Lua's {@code luaL_checkstring}: argument {@code i}, a string or a number (as LuaJ writes it), else its error. */
    static LuaString checkString(final Varargs args, final int i, final String function)
    {
        if (!args.isstring(i))
        {
            throw badArgument(args, i, function, "string");
        }
        return args.checkstring(i);
    }

    /** A Lua function of {@code body}, for the libraries made here and in {@link LuaCjson} and its kin. */
    static VarArgFunction function(final Function<Varargs, Varargs> body)
    {
        return new VarArgFunction()
        {
            @Override
            public Varargs invoke(final Varargs args)
            {
                return body.apply(args);
            }
        };
    }
}

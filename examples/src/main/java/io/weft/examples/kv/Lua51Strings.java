package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * {@code string.find}, {@code match}, {@code gmatch}, {@code gsub} and {@code rep} as Lua 5.1's {@code lstrlib.c}
 * in Redis, since KvWire {@value #SINCE}, over {@link Lua51Pattern}. LuaJ's pattern functions answered an internal
 * error naming a Java exception for a malformed pattern ({@code '[a'}, a replacement ending in {@code %}) where Lua
 * names what is wrong, matched no {@code %f} frontier, and its {@code rep} failed on a negative count (Lua: an empty
 * string). A string argument given as a number is Lua's text of it ({@code %.14g}). A log's older batch meets LuaJ's.
 */
final class Lua51Strings
{
    /** The KvWire version since which scripts have these functions. */
    static final byte SINCE = 21;
    /** What makes {@code find} match a pattern rather than search for the bytes. */
    private static final String SPECIALS = "^$*+?.([%-";

    private final Lua51Pattern.Budget budget;
    private final long longest;

    private Lua51Strings(final Lua51Pattern.Budget budget, final long longest)
    {
        this.budget = budget;
        this.longest = longest;
    }

    /**
     * Puts the functions into {@code string}; {@code since} tells whether a batch has them, {@code budget} is the
     * script's, and no result grows past {@code longest} bytes.
     */
    static void install(final LuaValue string, final BooleanSupplier since, final Lua51Pattern.Budget budget,
        final long longest)
    {
        final Lua51Strings lib = new Lua51Strings(budget, longest);
        gated(string, "find", since, args -> lib.find(args, true));
        gated(string, "match", since, args -> lib.find(args, false));
        gated(string, "gmatch", since, lib::gmatch);
        gated(string, "gsub", since, lib::gsub);
        final LuaValue rep = string.get("rep");
        string.set("rep", ScriptRuntime.function(args -> since.getAsBoolean() ? lib.rep(args) :
            lib.luajRep(rep, args)));
    }

    private static void gated(final LuaValue string, final String name, final BooleanSupplier since,
        final Function<Varargs, Varargs> body)
    {
        final LuaValue luaj = string.get(name);
        string.set(name, ScriptRuntime.function(args -> since.getAsBoolean() ? body.apply(args) : luaj.invoke(args)));
    }

    /** {@code str_find_aux}: a plain search when asked or when the pattern has no special byte, else a match. */
    private Varargs find(final Varargs args, final boolean find)
    {
        final String name = find ? "find" : "match";
        final LuaString s = Lua51Number.checkString(args, 1, name);
        final LuaString p = Lua51Number.checkString(args, 2, name);
        final int length = s.m_length;
        final long from = relative(Lua51Number.optInteger(args, 3, 1, name), length) - 1;
        final int init = (int)Math.min(Math.max(0, from), length);
        if (find && (args.arg(4).toboolean() || !hasSpecials(p)))
        {
            final int at = indexOf(s, p, init);
            return at < 0 ? LuaValue.NIL : LuaValue.varargsOf(LuaValue.valueOf(at + 1),
                LuaValue.valueOf(at + p.m_length));
        }
        final Lua51Pattern m = new Lua51Pattern(s, p, budget);
        final boolean anchor = m.anchored();
        int s1 = init;
        do
        {
            final int e = m.matchAt(s1, anchor ? 1 : 0);
            if (e >= 0)
            {
                if (!find)
                {
                    return LuaValue.varargsOf(m.captures(s1, e, true));
                }
                final LuaValue[] captures = m.captures(s1, e, false);
                final LuaValue[] values = new LuaValue[captures.length + 2];
                values[0] = LuaValue.valueOf(s1 + 1);
                values[1] = LuaValue.valueOf(e);
                System.arraycopy(captures, 0, values, 2, captures.length);
                return LuaValue.varargsOf(values);
            }
        }
        while (s1++ < length && !anchor);
        return LuaValue.NIL;
    }

    /** An iterator over the matches from the subject's start; {@code ^} is a byte like another here, as in 5.1. */
    private Varargs gmatch(final Varargs args)
    {
        final Lua51Pattern m = new Lua51Pattern(Lua51Number.checkString(args, 1, "gmatch"),
            Lua51Number.checkString(args, 2, "gmatch"), budget);
        final int[] next = {0};
        return ScriptRuntime.function(ignored ->
        {
            for (int src = next[0]; src <= m.length(); src++)
            {
                final int e = m.matchAt(src, 0);
                if (e >= 0)
                {
                    next[0] = e == src ? e + 1 : e; // past an empty match by one
                    return LuaValue.varargsOf(m.captures(src, e, true));
                }
            }
            return LuaValue.NONE;
        });
    }

    private Varargs gsub(final Varargs args)
    {
        final LuaString src = Lua51Number.checkString(args, 1, "gsub");
        final LuaString p = Lua51Number.checkString(args, 2, "gsub");
        final LuaValue repl = args.arg(3);
        final int max = (int)Lua51Number.optInteger(args, 4, src.m_length + 1L, "gsub"); // luaL_optint: C's int
        final int tr = repl.type();
        if (tr != LuaValue.TNUMBER && tr != LuaValue.TSTRING && tr != LuaValue.TFUNCTION && tr != LuaValue.TTABLE)
        {
            throw new LuaError("bad argument #3 to 'gsub' (string/function/table expected)");
        }
        final LuaString text = tr == LuaValue.TNUMBER || tr == LuaValue.TSTRING ?
            Lua51Number.checkString(args, 3, "gsub") : null;
        final Lua51Pattern m = new Lua51Pattern(src, p, budget);
        final boolean anchor = m.anchored();
        final BoundedOutput out = new BoundedOutput(longest, "string.gsub");
        int s = 0;
        int n = 0;
        while (n < max)
        {
            final int e = m.matchAt(s, anchor ? 1 : 0);
            if (e >= 0)
            {
                n++;
                if (text != null)
                {
                    replaceByText(m, out, s, e, text);
                }
                else
                {
                    replaceByValue(m, out, s, e, repl);
                }
            }
            if (e > s)
            {
                s = e; // past a match that is not empty
            }
            else if (s < m.length())
            {
                out.add(m.at(s++));
            }
            else
            {
                break;
            }
            if (anchor)
            {
                break;
            }
        }
        out.add(m.slice(s, m.length()));
        return LuaValue.varargsOf(out.string(), LuaValue.valueOf(n));
    }

    /** {@code add_s}: {@code %0} to {@code %9} a capture, {@code %} then another byte that byte (at the end, NUL). */
    private static void replaceByText(final Lua51Pattern m, final BoundedOutput out, final int s, final int e,
        final LuaString text)
    {
        for (int i = 0; i < text.m_length; i++)
        {
            final byte b = text.m_bytes[text.m_offset + i];
            if (b != '%')
            {
                out.add(b);
                continue;
            }
            i++;
            final byte c = i < text.m_length ? text.m_bytes[text.m_offset + i] : 0; // C reads the terminator
            if (!Lua51Pattern.isDigit(c))
            {
                out.add(c);
            }
            else if (c == '0')
            {
                out.add(m.slice(s, e));
            }
            else
            {
                out.add(Lua51Number.string(m.capture(c - '1', s, e)));
            }
        }
    }

    /** {@code add_value} for a table or a function: nil or false keep the match, a string or number replace it. */
    private static void replaceByValue(final Lua51Pattern m, final BoundedOutput out, final int s, final int e,
        final LuaValue repl)
    {
        final LuaValue value = repl.isfunction() ? repl.invoke(LuaValue.varargsOf(m.captures(s, e, true))).arg1() :
            repl.get(m.capture(0, s, e));
        if (!value.toboolean())
        {
            out.add(m.slice(s, e));
        }
        else if (!value.isstring())
        {
            throw new LuaError("invalid replacement value (a " + value.typename() + ")");
        }
        else
        {
            out.add(Lua51Number.string(value));
        }
    }

    private Varargs rep(final Varargs args)
    {
        final LuaString s = Lua51Number.checkString(args, 1, "rep");
        final int n = (int)Lua51Number.checkInteger(args, 2, "rep"); // luaL_checkint: an int, as C casts it
        if (n <= 0 || s.m_length == 0)
        {
            return LuaValue.EMPTYSTRING;
        }
        if ((long)s.m_length * n > longest)
        {
            throw new LuaError("string.rep: a result past " + longest + " bytes");
        }
        final byte[] out = new byte[s.m_length * n];
        for (int i = 0; i < n; i++)
        {
            System.arraycopy(s.m_bytes, s.m_offset, out, i * s.m_length, s.m_length);
        }
        return LuaString.valueOf(out);
    }

    /** LuaJ's {@code rep} as a log's older batch ran it: refused past the longest string, an error if negative. */
    private Varargs luajRep(final LuaValue rep, final Varargs args)
    {
        if ((long)args.checkstring(1).length() * Math.max(0, args.checkint(2)) > longest)
        {
            throw new LuaError("string.rep: a result past " + longest + " bytes");
        }
        return rep.invoke(args);
    }

    /** {@code posrelat}: a negative position counts from the end. */
    private static long relative(final long position, final int length)
    {
        final long p = position < 0 ? position + length + 1 : position;
        return Math.max(p, 0);
    }

    /** {@code strpbrk(p, SPECIALS)}: over the pattern as a C string, up to its first NUL. */
    private static boolean hasSpecials(final LuaString p)
    {
        for (int i = 0; i < p.m_length && p.m_bytes[p.m_offset + i] != 0; i++)
        {
            if (SPECIALS.indexOf(p.m_bytes[p.m_offset + i]) >= 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code lmemfind}: the first offset from {@code from} at which all of {@code p}'s bytes are; -1 if none. The
     * bytes compared are charged to the script's budget, as a pattern's steps are.
     */
    private int indexOf(final LuaString s, final LuaString p, final int from)
    {
        long compared = 0;
        try
        {
            for (int at = from; at + p.m_length <= s.m_length; at++)
            {
                final int differ = Arrays.mismatch(s.m_bytes, s.m_offset + at, s.m_offset + at + p.m_length,
                    p.m_bytes, p.m_offset, p.m_offset + p.m_length);
                if (differ < 0)
                {
                    return at;
                }
                compared += differ + 1;
            }
            return -1;
        }
        finally
        {
            budget.charge(compared);
        }
    }
}

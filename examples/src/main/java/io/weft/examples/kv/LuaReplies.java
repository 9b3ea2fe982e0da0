package io.weft.examples.kv;

import org.luaj.vm2.LuaInteger;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.ArrayList;
import java.util.List;

/** Replies between the store and a script, as Redis converts them: a command's reply to Lua, a script's result back. */
final class LuaReplies
{
    /** The field Redis 7 sets in a command's error table: that error is counted (INFO errorstats) as it ran. */
    static final String COUNTED = "ignore_error_stats_update";

    private LuaReplies()
    {
    }

    /**
     * Whether a script's result or raised error is a command's error table that was counted as the command ran
     * (its {@value #COUNTED} field true, as Redis 7 reads it): the script's error reply is not counted again.
     */
    static boolean counted(final LuaValue result)
    {
        if (result == null || !result.istable() || result.rawget("err").type() != LuaValue.TSTRING)
        {
            return false;
        }
        final LuaValue counted = result.rawget(COUNTED);
        return counted.type() == LuaValue.TBOOLEAN && counted.toboolean();
    }

    /** A reply as Redis hands it to a script (RESP2): a table for an array, false for a nil, {ok=...}, {err=...}. */
    static LuaValue lua(final Reply reply)
    {
        return switch (reply)
        {
            case Reply.Int i -> LuaInteger.valueOf(i.value());
            case Reply.Bulk b -> b.bytes() == null ? LuaValue.FALSE : LuaValue.valueOf(b.bytes());
            case Reply.Double d -> LuaValue.valueOf(d.text());
            case Reply.Text t -> LuaValue.valueOf(t.text());
            case Reply.Simple s -> field("ok", LuaValue.valueOf(s.text()));
            case Reply.Error e -> field("err", LuaValue.valueOf(e.text()));
            case Reply.Array a -> a.items() == null ? LuaValue.FALSE : table(a.items());
            case Reply.Map m -> table(m.keysAndValues());
            case Reply.Set s -> table(s.items());
            case Reply.Scored s -> table(s.membersAndScores());
            case Reply.Pairs p -> table(pairs(p.keysAndValues()));
            case Reply.Push p -> table(p.items());
            case Reply.Several s -> table(s.replies());
        };
    }

    /** Keys and values alternating as two-item arrays, as RESP2 writes {@link Reply.Pairs}. */
    private static List<Reply> pairs(final List<Reply> keysAndValues)
    {
        final List<Reply> pairs = new ArrayList<>(keysAndValues.size() / 2);
        for (int i = 0; i < keysAndValues.size(); i += 2)
        {
            pairs.add(new Reply.Array(keysAndValues.subList(i, i + 2)));
        }
        return pairs;
    }

    private static LuaTable table(final List<Reply> items)
    {
        final LuaTable t = new LuaTable(items.size(), 0);
        for (int i = 0; i < items.size(); i++)
        {
            t.rawset(i + 1, lua(items.get(i)));
        }
        return t;
    }

    /** A script's result as Redis replies it: numbers truncated to integers, tables up to their first nil. */
    static Reply reply(final LuaValue v)
    {
        return switch (v.type())
        {
            case LuaValue.TNUMBER -> new Reply.Int(integer(v.todouble()));
            case LuaValue.TSTRING -> new Reply.Bulk(bytes(v.checkstring()));
            case LuaValue.TBOOLEAN -> v.toboolean() ? new Reply.Int(1) : Reply.NIL;
            case LuaValue.TTABLE -> tableReply(v);
            default -> Reply.NIL;
        };
    }

    private static Reply tableReply(final LuaValue t)
    {
        final LuaValue err = t.rawget("err");
        if (err.type() == LuaValue.TSTRING)
        {
            return Reply.error(err.tojstring());
        }
        final LuaValue ok = t.rawget("ok");
        if (ok.type() == LuaValue.TSTRING)
        {
            return new Reply.Simple(ok.tojstring());
        }
        final LuaValue number = t.rawget("double");
        if (number.type() == LuaValue.TNUMBER)
        {
            return new Reply.Double(number.todouble());
        }
        final LuaValue map = t.rawget("map");
        final LuaValue set = t.rawget("set");
        if (map.type() == LuaValue.TTABLE || set.type() == LuaValue.TTABLE)
        {
            final List<Reply> entries = new ArrayList<>();
            final LuaValue of = map.type() == LuaValue.TTABLE ? map : set;
            for (Varargs e = of.next(LuaValue.NIL); !e.arg1().isnil(); e = of.next(e.arg1()))
            {
                entries.add(reply(e.arg1()));
                if (of == map)
                {
                    entries.add(reply(e.arg(2)));
                }
            }
            return of == map ? new Reply.Map(entries) : new Reply.Set(entries);
        }
        final List<Reply> items = new ArrayList<>();
        for (int i = 1; !t.rawget(i).isnil(); i++)
        {
            items.add(reply(t.rawget(i)));
        }
        return new Reply.Array(items);
    }

    /**
     * A Lua number as Redis's C cast makes it an integer on x86-64: truncated, and the lowest long for NaN and for
     * anything past a long's range (math.huge too), where Java's cast would saturate.
     */
    private static long integer(final double d)
    {
        return Double.isNaN(d) || d >= 0x1p63 || d < -0x1p63 ? Long.MIN_VALUE : (long)d;
    }

    /** A table of one {@code field}: {ok=...}, {err=...}. */
    static LuaTable field(final String field, final LuaValue text)
    {
        final LuaTable t = new LuaTable();
        t.rawset(field, text);
        return t;
    }

    /** The bytes of a Lua string, copied. */
    static byte[] bytes(final LuaString s)
    {
        final byte[] b = new byte[s.m_length];
        System.arraycopy(s.m_bytes, s.m_offset, b, 0, s.m_length);
        return b;
    }
}

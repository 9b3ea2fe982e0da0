package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Redis's {@code cjson} library for scripts (lua-cjson 2.1.0 with its defaults): {@code encode}, {@code decode} and
 * {@code null}. A table whose keys are all positive integers is an array (nil holes written as null; one sparser than
 * half full past index 10 refused), an empty table is {@code {}}, any other an object whose keys are strings or
 * numbers; numbers are written as {@code %.14g}, NaN and infinities refused; strings escape {@code "}, {@code \},
 * {@code /} and control bytes and keep other bytes as they are. Decoding gives JSON's null as {@code cjson.null}
 * and \\u escapes as UTF-8; nesting past 1,000 is refused both ways. Errors are worded as lua-cjson's. One difference
 * from Redis: an object's keys are written in LuaJ's table order, not C Lua's (the same at every member).
 */
final class LuaCjson
{
    /** JSON's null: Redis's {@code cjson.null}, a value apart from nil. */
    static final LuaValue NULL = new LuaUserdata(new Object());
    private static final int MAX_DEPTH = 1000;
    private static final int SPARSE_RATIO = 2;
    private static final int SPARSE_SAFE = 10;

    private LuaCjson()
    {
    }

    /** {@return the library's table: encode, decode and null} */
    static LuaTable library()
    {
        final LuaTable cjson = new LuaTable();
        cjson.set("encode", ScriptRuntime.function(args ->
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            encode(one(args, "encode"), out, 0);
            return LuaValue.valueOf(out.toByteArray());
        }));
        cjson.set("decode", ScriptRuntime.function(args ->
        {
            final LuaString text = one(args, "decode").checkstring();
            return new Decoder(text.m_bytes, text.m_offset, text.m_length).document();
        }));
        cjson.set("null", NULL);
        return cjson;
    }

    private static LuaValue one(final Varargs args, final String name)
    {
        if (args.narg() != 1)
        {
            throw new LuaError("bad argument #1 to '" + name + "' (expected 1 argument)");
        }
        return args.arg1();
    }

    private static void encode(final LuaValue v, final ByteArrayOutputStream out, final int depth)
    {
        switch (v.type())
        {
            case LuaValue.TNIL -> out.writeBytes(ascii("null"));
            case LuaValue.TBOOLEAN -> out.writeBytes(ascii(v.toboolean() ? "true" : "false"));
            case LuaValue.TNUMBER -> out.writeBytes(ascii(number(v.todouble())));
            case LuaValue.TSTRING -> string(v.checkstring(), out);
            case LuaValue.TTABLE -> table((LuaTable)v, out, depth + 1);
            default ->
            {
                if (v != NULL)
                {
                    throw new LuaError("Cannot serialise " + v.typename() + ": type not supported");
                }
                out.writeBytes(ascii("null"));
            }
        }
    }

    private static String number(final double d)
    {
        if (Double.isNaN(d) || Double.isInfinite(d))
        {
            throw new LuaError("Cannot serialise number: must not be NaN or Inf");
        }
        return LuaFormat.real(".14", 'g', d);
    }

    private static void table(final LuaTable t, final ByteArrayOutputStream out, final int depth)
    {
        if (depth > MAX_DEPTH)
        {
            throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
        }
        final int length = arrayLength(t);
        if (length > 0)
        {
            out.write('[');
            for (int i = 1; i <= length; i++)
            {
                if (i > 1)
                {
                    out.write(',');
                }
                encode(t.get(i), out, depth);
            }
            out.write(']');
            return;
        }
        out.write('{');
        boolean first = true;
        for (Varargs e = t.next(LuaValue.NIL); !e.arg1().isnil(); e = t.next(e.arg1()))
        {
            final LuaValue key = e.arg1();
            if (!first)
            {
                out.write(',');
            }
            first = false;
            switch (key.type())
            {
                case LuaValue.TSTRING -> string(key.checkstring(), out);
                case LuaValue.TNUMBER -> string(LuaValue.valueOf(number(key.todouble())), out);
                default -> throw new LuaError("Cannot serialise " + key.typename() +
                    ": table key must be a number or string");
            }
            out.write(':');
            encode(e.arg(2), out, depth);
        }
        out.write('}');
    }

    /** The array length of {@code t}, or 0 when it is an object (or empty). */
    private static int arrayLength(final LuaTable t)
    {
        double max = 0;
        int items = 0;
        for (Varargs e = t.next(LuaValue.NIL); !e.arg1().isnil(); e = t.next(e.arg1()))
        {
            final LuaValue key = e.arg1();
            final double k = key.type() == LuaValue.TNUMBER ? key.todouble() : 0;
            if (k < 1 || k != Math.floor(k))
            {
                return 0;
            }
            max = Math.max(max, k);
            items++;
        }
        if (max > (double)items * SPARSE_RATIO && max > SPARSE_SAFE)
        {
            throw new LuaError("Cannot serialise table: excessively sparse array");
        }
        return (int)max;
    }

    private static void string(final LuaString s, final ByteArrayOutputStream out)
    {
        out.write('"');
        for (int i = 0; i < s.m_length; i++)
        {
            final int b = s.m_bytes[s.m_offset + i] & 0xff;
            switch (b)
            {
                case '"', '\\', '/' ->
                {
                    out.write('\\');
                    out.write(b);
                }
                case '\b' -> out.writeBytes(ascii("\\b"));
                case '\f' -> out.writeBytes(ascii("\\f"));
                case '\n' -> out.writeBytes(ascii("\\n"));
                case '\r' -> out.writeBytes(ascii("\\r"));
                case '\t' -> out.writeBytes(ascii("\\t"));
                default ->
                {
                    if (b < 0x20 || b == 0x7f)
                    {
                        out.writeBytes(ascii(String.format("\\u%04x", b)));
                    }
                    else
                    {
                        out.write(b);
                    }
                }
            }
        }
        out.write('"');
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** One JSON document's parse, lua-cjson's tokens and messages ("Expected value but found T_END at character 1"). */
    private static final class Decoder
    {
        private final byte[] bytes;
        private final int start;
        private final int end;
        private int at; // the next byte to read
        private int depth;
        // the last token read: its name for messages, its position (from 1), its value when it has one
        private String token;
        private int tokenAt;
        private LuaValue value;

        Decoder(final byte[] bytes, final int offset, final int length)
        {
            this.bytes = bytes;
            this.start = offset;
            this.end = offset + length;
            this.at = offset;
        }

        LuaValue document()
        {
            next();
            final LuaValue v = value("value");
            next();
            if (!token.equals("T_END"))
            {
                throw unexpected("the end");
            }
            return v;
        }

        private LuaValue value(final String expected)
        {
            return switch (token)
            {
                case "T_STRING", "T_NUMBER", "T_BOOLEAN", "T_NULL" -> value;
                case "T_OBJ_BEGIN" -> object();
                case "T_ARR_BEGIN" -> array();
                default -> throw unexpected(expected);
            };
        }

        private LuaTable object()
        {
            final LuaTable t = new LuaTable();
            if (opens("T_OBJ_END"))
            {
                do
                {
                    if (!token.equals("T_STRING"))
                    {
                        throw unexpected("object key string");
                    }
                    final LuaValue key = value;
                    next();
                    if (!token.equals("T_COLON"))
                    {
                        throw unexpected("colon");
                    }
                    next();
                    t.set(key, value("value"));
                }
                while (!closes("T_OBJ_END", "comma or object end"));
            }
            return t;
        }

        private LuaTable array()
        {
            final LuaTable t = new LuaTable();
            if (opens("T_ARR_END"))
            {
                int i = 1;
                do
                {
                    t.set(i++, value("value"));
                }
                while (!closes("T_ARR_END", "comma or array end"));
            }
            return t;
        }

        /** Enters a container and reads its first token; false when that is its end (an empty one, left again). */
        private boolean opens(final String close)
        {
            descend();
            next();
            return !leaves(close);
        }

        /** After a member: true at the container's end (left), else reads past the comma to the next member. */
        private boolean closes(final String close, final String expected)
        {
            next();
            if (leaves(close))
            {
                return true;
            }
            if (!token.equals("T_COMMA"))
            {
                throw unexpected(expected);
            }
            next();
            return false;
        }

        private boolean leaves(final String close)
        {
            if (!token.equals(close))
            {
                return false;
            }
            depth--;
            return true;
        }

        private void descend()
        {
            if (++depth > MAX_DEPTH)
            {
                throw new LuaError("Found too many nested data structures (" + depth + ") at character " + tokenAt);
            }
        }

        private LuaError unexpected(final String expected)
        {
            return new LuaError("Expected " + expected + " but found " + token + " at character " + tokenAt);
        }

        /** Reads the next token: its name, position and value. */
        private void next()
        {
            while (at < end && (bytes[at] == ' ' || bytes[at] == '\t' || bytes[at] == '\n' || bytes[at] == '\r'))
            {
                at++;
            }
            tokenAt = at - start + 1;
            value = null;
            if (at >= end)
            {
                token = "T_END";
                return;
            }
            final byte b = bytes[at];
            token = switch (b)
            {
                case '{' -> "T_OBJ_BEGIN";
                case '}' -> "T_OBJ_END";
                case '[' -> "T_ARR_BEGIN";
                case ']' -> "T_ARR_END";
                case ',' -> "T_COMMA";
                case ':' -> "T_COLON";
                default -> null;
            };
            if (token != null)
            {
                at++;
            }
            else if (b == '"')
            {
                string();
            }
            else if (b == '-' || (b >= '0' && b <= '9'))
            {
                number();
            }
            else if (word("true") || word("false"))
            {
                token = "T_BOOLEAN";
                value = LuaValue.valueOf(b == 't');
            }
            else if (word("null"))
            {
                token = "T_NULL";
                value = NULL;
            }
            else
            {
                token = "invalid token";
            }
        }

        private boolean word(final String w)
        {
            if (end - at < w.length() || !new String(bytes, at, w.length(), StandardCharsets.US_ASCII).equals(w))
            {
                return false;
            }
            at += w.length();
            return true;
        }

        /** A number as C's strtod reads a decimal one: sign, digits (leading zeros too), fraction, exponent. */
        private void number()
        {
            int i = at + (bytes[at] == '-' ? 1 : 0);
            final int digits = i;
            i = digits(i);
            if (i == digits && !(i < end && bytes[i] == '.' && i + 1 < end && isDigit(bytes[i + 1])))
            {
                token = "invalid number";
                return;
            }
            if (i < end && bytes[i] == '.')
            {
                i = digits(i + 1);
            }
            if (i < end && (bytes[i] == 'e' || bytes[i] == 'E'))
            {
                final int sign = i + 1 < end && (bytes[i + 1] == '+' || bytes[i + 1] == '-') ? i + 2 : i + 1;
                final int exponent = digits(sign);
                i = exponent > sign ? exponent : i;
            }
            token = "T_NUMBER";
            value = LuaValue.valueOf(Double.parseDouble(new String(bytes, at, i - at, StandardCharsets.US_ASCII)));
            at = i;
        }

        private int digits(final int from)
        {
            int i = from;
            while (i < end && isDigit(bytes[i]))
            {
                i++;
            }
            return i;
        }

        private static boolean isDigit(final byte b)
        {
            return b >= '0' && b <= '9';
        }

        private void string()
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            at++;
            while (true)
            {
                if (at >= end)
                {
                    token = "unexpected end of string";
                    tokenAt = at - start + 1;
                    return;
                }
                final byte b = bytes[at];
                if (b == '"')
                {
                    at++;
                    token = "T_STRING";
                    value = LuaValue.valueOf(out.toByteArray());
                    return;
                }
                if (b != '\\')
                {
                    out.write(b);
                    at++;
                    continue;
                }
                final int escape = at;
                final int c = at + 1 < end ? bytes[at + 1] : -1;
                at += 2;
                switch (c)
                {
                    case '"', '\\', '/' -> out.write(c);
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' ->
                    {
                        if (!unicode(out))
                        {
                            token = "invalid unicode escape code";
                            tokenAt = escape - start + 1;
                            return;
                        }
                    }
                    default ->
                    {
                        token = "invalid escape code";
                        tokenAt = escape - start + 1;
                        return;
                    }
                }
            }
        }

        /** A \\u escape (after its "\\u"), with its low surrogate when it is a high one, written as UTF-8. */
        private boolean unicode(final ByteArrayOutputStream out)
        {
            int code = hex4();
            if (code < 0 || (code >= 0xDC00 && code <= 0xDFFF))
            {
                return false;
            }
            if (code >= 0xD800 && code <= 0xDBFF)
            {
                if (end - at < 6 || bytes[at] != '\\' || bytes[at + 1] != 'u')
                {
                    return false;
                }
                at += 2;
                final int low = hex4();
                if (low < 0xDC00 || low > 0xDFFF)
                {
                    return false;
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            }
            out.writeBytes(new String(Character.toChars(code)).getBytes(StandardCharsets.UTF_8));
            return true;
        }

        private int hex4()
        {
            if (end - at < 4)
            {
                return -1;
            }
            int code = 0;
            for (int i = 0; i < 4; i++)
            {
                final int d = Character.digit(bytes[at + i], 16);
                if (d < 0)
                {
                    return -1;
                }
                code = code << 4 | d;
            }
            at += 4;
            return code;
        }
    }
}

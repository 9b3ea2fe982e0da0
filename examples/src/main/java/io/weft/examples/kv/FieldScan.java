package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * HSCAN's, SSCAN's and ZSCAN's arguments, and the listing the first two and HGETALL, HKEYS, HVALS, SMEMBERS share:
 * a hash's fields or a set's members in {@link Key}'s order, the same at every member (Redis's order is its table's;
 * ZSCAN lists a sorted set's in its order). A scan returns the whole value at cursor 0 with the next cursor 0: one
 * call is a whole iteration, which Redis allows (COUNT is a hint; Redis does the same for small values), and no other
 * cursor is ever handed out, so none other is taken.
 *
 * @param pattern MATCH's glob, or null for every field.
 * @param values  whether each field's value follows it (a hash's scan without NOVALUES).
 */
record FieldScan(byte[] pattern, boolean values)
{
    /** Every field, with its value if {@code values}. */
    static final FieldScan ALL = new FieldScan(null, true);
    static final FieldScan NAMES = new FieldScan(null, false);

    /**
     * The options of {@code args} (KEY cursor [MATCH pattern] [COUNT n] [NOVALUES]); NOVALUES only where {@code hash}.
     *
     * @throws KvStore.SyntaxError Redis's error for a cursor other than 0 or a malformed option.
     */
    static FieldScan parse(final List<byte[]> args, final boolean hash)
    {
        if (!"0".equals(new String(args.get(2), StandardCharsets.US_ASCII)))
        {
            throw new KvStore.SyntaxError("ERR invalid cursor");
        }
        byte[] pattern = null;
        boolean values = hash;
        for (int i = 3; i < args.size(); i++)
        {
            final String opt = Commands.word(args.get(i));
            if (hash && opt.equals("NOVALUES"))
            {
                values = false;
            }
            else if (i + 1 >= args.size() || !(opt.equals("MATCH") || opt.equals("COUNT")))
            {
                throw new KvStore.SyntaxError("ERR syntax error");
            }
            else if (opt.equals("MATCH"))
            {
                pattern = args.get(++i);
            }
            else if (ValueEdits.integer(args.get(++i)) < 1)
            {
                throw new KvStore.SyntaxError("ERR syntax error");
            }
        }
        return new FieldScan(pattern, values);
    }

    /** The fields of {@code a} (none if null) that match, each followed by its value if {@link #values}. */
    List<Reply> list(final Aggregate a)
    {
        if (a == null)
        {
            return List.of();
        }
        final List<Reply> found = new ArrayList<>();
        for (final Map.Entry<Key, byte[]> e : a.fields().sorted())
        {
            final byte[] field = e.getKey().bytes();
            if (matches(field))
            {
                found.add(new Reply.Bulk(field));
                if (values)
                {
                    found.add(new Reply.Bulk(e.getValue()));
                }
            }
        }
        return found;
    }

    /** Whether MATCH's pattern, if any, matches {@code field}. */
    boolean matches(final byte[] field)
    {
        return pattern == null || Glob.matches(pattern, field);
    }

    /** The scan's reply: the next cursor, 0, and what {@link #list} finds. */
    Reply reply(final Aggregate a)
    {
        return reply(list(a));
    }

    /** The scan's reply of {@code found}: the next cursor, 0, and what was found. */
    static Reply reply(final List<Reply> found)
    {
        return new Reply.Array(List.of(Reply.Bulk.of("0"), new Reply.Array(found)));
    }
}

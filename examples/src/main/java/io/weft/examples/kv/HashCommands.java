package io.weft.examples.kv;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Redis's commands on hashes ({@link Hash}): HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT (writes, on the
 * delivery thread only) and HGET, HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS, HSTRLEN, HSCAN (reads), at the clock
 * reading of the command's batch. A hash's last field removed removes its key, as in Redis; a command of one type
 * on a key of the other is Redis's WRONGTYPE error. Replies that list fields list them in {@link Key}'s order, so
 * that every member answers alike (Redis's order is its table's); HSCAN returns the whole hash at its first call.
 */
final class HashCommands
{
    private static final String NOT_AN_INTEGER = "ERR hash value is not an integer";
    private static final String NOT_A_FLOAT = "ERR hash value is not a float";

    private final Keyspace map;

    HashCommands(final Keyspace map)
    {
        this.map = map;
    }

    /** Runs {@code cmd}, a hash's command, or answers the unknown command's error. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        final int n = args.size();
        return switch (cmd)
        {
            case "HSET", "HMSET" -> n < 4 || n % 2 != 0 ? Reply.wrongArity(cmd) : set(cmd, args, now);
            case "HSETNX" -> n != 4 ? Reply.wrongArity(cmd) : setNx(args, now);
            case "HGET" -> n != 3 ? Reply.wrongArity(cmd) : new Reply.Bulk(field(args.get(1), args.get(2), now));
            case "HMGET" -> n < 3 ? Reply.wrongArity(cmd) : mget(args, now);
            case "HDEL" -> n < 3 ? Reply.wrongArity(cmd) : delete(args, now);
            case "HLEN" -> n != 2 ? Reply.wrongArity(cmd) : new Reply.Int(fields(args.get(1), now).size());
            case "HEXISTS" -> n != 3 ? Reply.wrongArity(cmd) :
                new Reply.Int(field(args.get(1), args.get(2), now) == null ? 0 : 1);
            case "HSTRLEN" -> n != 3 ? Reply.wrongArity(cmd) : strlen(args, now);
            case "HGETALL" -> n != 2 ? Reply.wrongArity(cmd) : new Reply.Map(pairs(args.get(1), null, true, now));
            case "HKEYS", "HVALS" -> n != 2 ? Reply.wrongArity(cmd) : list(args.get(1), cmd.equals("HKEYS"), now);
            case "HINCRBY" -> n != 4 ? Reply.wrongArity(cmd) : incrBy(args, now);
            case "HINCRBYFLOAT" -> n != 4 ? Reply.wrongArity(cmd) : incrByFloat(args, now);
            case "HSCAN" -> n < 3 ? Reply.wrongArity(cmd) : scan(args, now);
            default -> Reply.error("ERR unknown command '" + cmd.toLowerCase(Locale.ROOT) + "'");
        };
    }

    /** {@code key}'s fields, empty if it has none; WRONGTYPE if it holds a string. */
    private Map<Key, byte[]> fields(final byte[] key, final long now)
    {
        final Hash h = map.hash(new Key(key), now);
        return h == null ? Map.of() : h.fields().map;
    }

    private byte[] field(final byte[] key, final byte[] field, final long now)
    {
        return fields(key, now).get(new Key(field));
    }

    /** {@code key}'s hash for a change: its live one, made writable ({@link Keyspace#writable}), or a new one. */
    private Hash forWrite(final Key key, final long now)
    {
        final Hash h = map.hash(key, now);
        return h == null ? new Hash(map.newFields(), 0) : map.writable(h);
    }

    /** HSET key field value [field value ...]: the fields added; HMSET: OK. */
    private Reply set(final String cmd, final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final Hash h = forWrite(key, now);
        int added = 0;
        for (int i = 2; i < args.size(); i += 2)
        {
            added += h.fields().put(new Key(args.get(i)), args.get(i + 1)) == null ? 1 : 0;
        }
        map.store(key, h);
        return cmd.equals("HMSET") ? Reply.OK : new Reply.Int(added);
    }

    private Reply setNx(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        if (field(args.get(1), args.get(2), now) != null)
        {
            return new Reply.Int(0);
        }
        final Hash h = forWrite(key, now);
        h.fields().put(new Key(args.get(2)), args.get(3));
        map.store(key, h);
        return new Reply.Int(1);
    }

    private Reply mget(final List<byte[]> args, final long now)
    {
        final Map<Key, byte[]> fields = fields(args.get(1), now);
        final List<Reply> values = new ArrayList<>(args.size() - 2);
        for (int i = 2; i < args.size(); i++)
        {
            values.add(new Reply.Bulk(fields.get(new Key(args.get(i)))));
        }
        return new Reply.Array(values);
    }

    /** HDEL key field [field ...]: the fields removed; the key goes with its last field. */
    private Reply delete(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final Hash live = map.hash(key, now);
        if (live == null)
        {
            return new Reply.Int(0);
        }
        final Hash h = map.writable(live);
        int removed = 0;
        for (int i = 2; i < args.size(); i++)
        {
            removed += h.fields().remove(new Key(args.get(i))) ? 1 : 0;
        }
        if (h.fields().map.isEmpty())
        {
            map.remove(key);
        }
        else if (removed > 0)
        {
            map.store(key, h);
        }
        return new Reply.Int(removed);
    }

    private Reply strlen(final List<byte[]> args, final long now)
    {
        final byte[] value = field(args.get(1), args.get(2), now);
        return new Reply.Int(value == null ? 0 : value.length);
    }

    /** Fields in {@link Key}'s order matching {@code pattern} (null: any), each with its value if {@code values}. */
    private List<Reply> pairs(final byte[] key, final byte[] pattern, final boolean values, final long now)
    {
        final Hash h = map.hash(new Key(key), now);
        if (h == null)
        {
            return List.of();
        }
        final List<Reply> found = new ArrayList<>();
        for (final Map.Entry<Key, byte[]> e : h.fields().sorted())
        {
            final byte[] field = e.getKey().bytes();
            if (pattern == null || Glob.matches(pattern, field))
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

    /** HKEYS ({@code keys}) or HVALS, in the order of the fields. */
    private Reply list(final byte[] key, final boolean keys, final long now)
    {
        final List<Reply> pairs = pairs(key, null, true, now);
        final List<Reply> half = new ArrayList<>(pairs.size() / 2);
        for (int i = keys ? 0 : 1; i < pairs.size(); i += 2)
        {
            half.add(pairs.get(i));
        }
        return new Reply.Array(half);
    }

    /** HINCRBY key field increment: the field's integer plus the increment (0 for no field). */
    private Reply incrBy(final List<byte[]> args, final long now)
    {
        final long by = KvStore.integer(args.get(3));
        final byte[] old = field(args.get(1), args.get(2), now);
        final long value;
        try
        {
            value = old == null ? 0 : KvStore.integer(old);
        }
        catch (final KvStore.SyntaxError ex)
        {
            return Reply.error(NOT_AN_INTEGER);
        }
        final long result = ValueEdits.sum(value, by);
        put(args, Long.toString(result).getBytes(StandardCharsets.US_ASCII), now);
        return new Reply.Int(result);
    }

    /** HINCRBYFLOAT key field increment: as INCRBYFLOAT adds ({@link ValueEdits#floatSum}). */
    private Reply incrByFloat(final List<byte[]> args, final long now)
    {
        final byte[] old = field(args.get(1), args.get(2), now);
        final BigDecimal value = old == null ? BigDecimal.ZERO : ValueEdits.decimal(old);
        if (value == null)
        {
            return Reply.error(NOT_A_FLOAT);
        }
        final byte[] result = ValueEdits.floatSum(value, args.get(3));
        put(args, result, now);
        return new Reply.Bulk(result);
    }

    /** Sets field {@code args[2]} of key {@code args[1]} to {@code value}. */
    private void put(final List<byte[]> args, final byte[] value, final long now)
    {
        final Key key = new Key(args.get(1));
        final Hash h = forWrite(key, now);
        h.fields().put(new Key(args.get(2)), value);
        map.store(key, h);
    }

    /**
     * HSCAN key cursor [MATCH pattern] [COUNT n] [NOVALUES]: every field (and value) at cursor 0, with the next cursor
     * 0: a whole iteration in one call, which Redis allows (COUNT is a hint; Redis does the same for small hashes).
     * Only cursor 0 is valid: no other is ever handed out.
     */
    private Reply scan(final List<byte[]> args, final long now)
    {
        if (!"0".equals(new String(args.get(2), StandardCharsets.US_ASCII)))
        {
            return Reply.error("ERR invalid cursor");
        }
        byte[] pattern = null;
        boolean values = true;
        for (int i = 3; i < args.size(); i++)
        {
            final String opt = new String(args.get(i), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
            if (opt.equals("NOVALUES"))
            {
                values = false;
                continue;
            }
            if (i + 1 >= args.size() || !(opt.equals("MATCH") || opt.equals("COUNT")))
            {
                return Reply.error("ERR syntax error");
            }
            if (opt.equals("MATCH"))
            {
                pattern = args.get(++i);
            }
            else if (KvStore.integer(args.get(++i)) < 1)
            {
                return Reply.error("ERR syntax error");
            }
        }
        return new Reply.Array(List.of(Reply.Bulk.of("0"), new Reply.Array(pairs(args.get(1), pattern, values,
            now))));
    }
}

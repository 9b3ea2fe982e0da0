package io.weft.examples.kv;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Redis's commands on hashes ({@link Aggregate}): HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT (writes, on the
 * delivery thread only) and HGET, HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS, HSTRLEN, HSCAN, HRANDFIELD (reads), at
 * the clock reading of the command's batch. A hash's last field removed removes its key, as in Redis; a command of
 * another type's key is Redis's WRONGTYPE error. Replies that list fields list them as {@link FieldScan} does.
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
            case "HGETALL" -> n != 2 ? Reply.wrongArity(cmd) :
                new Reply.Map(FieldScan.ALL.list(hash(args.get(1), now)));
            case "HKEYS" -> n != 2 ? Reply.wrongArity(cmd) :
                new Reply.Array(FieldScan.NAMES.list(hash(args.get(1), now)));
            case "HVALS" -> n != 2 ? Reply.wrongArity(cmd) : values(args.get(1), now);
            case "HINCRBY" -> n != 4 ? Reply.wrongArity(cmd) : incrBy(args, now);
            case "HINCRBYFLOAT" -> n != 4 ? Reply.wrongArity(cmd) : incrByFloat(args, now);
            case "HSCAN" -> n < 3 ? Reply.wrongArity(cmd) : FieldScan.parse(args, true).reply(hash(args.get(1), now));
            case "HRANDFIELD" -> n < 2 ? Reply.wrongArity(cmd) : randomFields(args, now);
            default -> Reply.unknown(cmd);
        };
    }

    /** {@code key}'s hash, null if none; WRONGTYPE if it holds another type. */
    private Aggregate hash(final byte[] key, final long now)
    {
        return map.aggregate(new Key(key), now, false);
    }

    /** {@code key}'s fields, empty if it has none; WRONGTYPE if it holds another type. */
    private Map<Key, byte[]> fields(final byte[] key, final long now)
    {
        return map.fields(new Key(key), now, false);
    }

    private byte[] field(final byte[] key, final byte[] field, final long now)
    {
        return fields(key, now).get(new Key(field));
    }


    /** HSET key field value [field value ...]: the fields added; HMSET: OK. */
    private Reply set(final String cmd, final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final Aggregate h = map.forWrite(key, now, false);
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
        final Aggregate h = map.forWrite(key, now, false);
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
        return new Reply.Int(map.removeFields(new Key(args.get(1)), Key.all(args, 2), now, false));
    }

    private Reply strlen(final List<byte[]> args, final long now)
    {
        final byte[] value = field(args.get(1), args.get(2), now);
        return new Reply.Int(value == null ? 0 : value.length);
    }

    /** HVALS key: the values in the order of their fields (HKEYS', HGETALL's). */
    private Reply values(final byte[] key, final long now)
    {
        final Aggregate h = hash(key, now);
        return new Reply.Array(h == null ? List.of() :
            h.fields().sorted().stream().map(e -> (Reply)new Reply.Bulk(e.getValue())).toList());
    }

    /** HINCRBY key field increment: the field's integer plus the increment (0 for no field). */
    private Reply incrBy(final List<byte[]> args, final long now)
    {
        final long by = ValueEdits.integer(args.get(3));
        final byte[] old = field(args.get(1), args.get(2), now);
        final long value;
        try
        {
            value = old == null ? 0 : ValueEdits.integer(old);
        }
        catch (final KvStore.SyntaxError ex)
        {
            return Reply.error(NOT_AN_INTEGER);
        }
        final long result = ValueEdits.sum(value, by);
        put(args, Long.toString(result).getBytes(StandardCharsets.US_ASCII), now);
        return new Reply.Int(result);
    }

    /**
     * HINCRBYFLOAT key field increment: as INCRBYFLOAT adds ({@link ValueEdits#floatSum}); an infinite increment is
     * refused first, as Redis refuses it.
     */
    private Reply incrByFloat(final List<byte[]> args, final long now)
    {
        final BigDecimal by = ValueEdits.decimal(args.get(3), map.redisNumbers()); // first, before the type
        if (by == null || ValueEdits.infinite(by, map.redisNumbers()))
        {
            return Reply.error(by == null ? "ERR value is not a valid float" : "ERR value is NaN or Infinity");
        }
        final byte[] old = field(args.get(1), args.get(2), now);
        final BigDecimal value = old == null ? BigDecimal.ZERO : ValueEdits.decimal(old, map.redisNumbers());
        if (value == null)
        {
            return Reply.error(NOT_A_FLOAT);
        }
        final byte[] result = ValueEdits.floatSum(value, by, map.redisNumbers());
        put(args, result, now);
        return new Reply.Bulk(result);
    }

    /**
     * HRANDFIELD key [count [WITHVALUES]]: a field at random (nil if none); with a count as SRANDMEMBER picks
     * ({@link Draws#pick}), with WITHVALUES each followed by its value (at one member: a read).
     */
    private Reply randomFields(final List<byte[]> args, final long now)
    {
        final int n = args.size();
        if (n > 4 || n == 4 && !Commands.word(args.get(3)).equals("WITHVALUES"))
        {
            return Reply.error("ERR syntax error");
        }
        final long count = n >= 3 ? ValueEdits.integer(args.get(2)) : 1;
        final List<Map.Entry<Key, byte[]>> picked = Draws.pick(new ArrayList<>(fields(args.get(1), now).entrySet()),
            count);
        if (n == 2)
        {
            return picked.isEmpty() ? Reply.NIL : new Reply.Bulk(picked.getFirst().getKey().bytes());
        }
        final List<Reply> replies = new ArrayList<>();
        for (final Map.Entry<Key, byte[]> field : picked)
        {
            replies.add(new Reply.Bulk(field.getKey().bytes()));
            if (n == 4)
            {
                replies.add(new Reply.Bulk(field.getValue()));
            }
        }
        return n == 4 ? new Reply.Scored(replies) : new Reply.Array(replies);
    }

    /** Sets field {@code args[2]} of key {@code args[1]} to {@code value}. */
    private void put(final List<byte[]> args, final byte[] value, final long now)
    {
        final Key key = new Key(args.get(1));
        final Aggregate h = map.forWrite(key, now, false);
        h.fields().put(new Key(args.get(2)), value);
        map.store(key, h);
    }
}

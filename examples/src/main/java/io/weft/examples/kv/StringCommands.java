package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.weft.examples.kv.ValueEdits.integer;

/**
 * Redis's commands on strings as whole values: SET (its NX, XX, GET, EX, PX, EXAT, PXAT and KEEPTTL), SETNX, SETEX,
 * PSETEX, GETSET, GETDEL, GETEX, MSET, MSETNX (writes, on the delivery thread only) and GET, MGET, STRLEN (reads), at
 * the clock reading of the command's batch. The counters, APPEND and the ranges are {@link ValueEdits}'; the bits
 * {@link BitCommands}'. A read of another type's key is Redis's WRONGTYPE error (MGET answers nil for it).
 */
final class StringCommands
{
    private static final List<String> EXPIRY_OPTIONS = List.of("EX", "PX", "EXAT", "PXAT");

    private final Keyspace map;

    StringCommands(final Keyspace map)
    {
        this.map = map;
    }

    /** Runs {@code cmd}, one of this class's commands, its arity checked. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        final int n = args.size();
        return switch (cmd)
        {
            case "GET" -> n != 2 ? Reply.wrongArity(cmd) : bulk(get(args.get(1), now));
            case "SET" -> n < 3 ? Reply.wrongArity(cmd) : set(args, now);
            case "SETNX" -> n != 3 ? Reply.wrongArity(cmd) :
                new Reply.Int(map.liveStored(args.get(1), now) == null ? put(args.get(1), args.get(2), 0) : 0);
            case "GETSET" -> n != 3 ? Reply.wrongArity(cmd) : getSet(args, now);
            case "GETDEL" -> n != 2 ? Reply.wrongArity(cmd) : getDel(args.get(1), now);
            case "SETEX", "PSETEX" -> n != 4 ? Reply.wrongArity(cmd) : setEx(cmd, args, now);
            case "GETEX" -> n < 2 ? Reply.wrongArity(cmd) : getEx(args, now);
            case "MGET" -> n < 2 ? Reply.wrongArity(cmd) : mget(args, now);
            case "MSET" -> n < 3 || n % 2 == 0 ? Reply.wrongArity(cmd) : mset(args, false, now);
            case "MSETNX" -> n < 3 || n % 2 == 0 ? Reply.wrongArity(cmd) : mset(args, true, now);
            case "STRLEN" -> n != 2 ? Reply.wrongArity(cmd) : strlen(args.get(1), now);
            default -> throw new IllegalArgumentException(cmd + " is not a string command");
        };
    }

    private static Reply bulk(final byte[] value)
    {
        return new Reply.Bulk(value);
    }

    private byte[] get(final byte[] key, final long now)
    {
        final KvStore.Entry e = map.live(key, now);
        return e == null ? null : e.value();
    }

    private int put(final byte[] key, final byte[] value, final long expireAt)
    {
        map.put(new Key(key), new KvStore.Entry(value, expireAt));
        return 1;
    }

    /** SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]. */
    private Reply set(final List<byte[]> args, final long now)
    {
        boolean nx = false;
        boolean xx = false;
        boolean get = false;
        boolean keepTtl = false;
        long expireAt = 0;
        boolean expiry = false;
        for (int i = 3; i < args.size(); i++)
        {
            final String opt = Commands.word(args.get(i));
            switch (opt)
            {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "GET" -> get = true;
                case "KEEPTTL" -> keepTtl = true;
                case "EX", "PX", "EXAT", "PXAT" ->
                {
                    if (expiry || i + 1 >= args.size())
                    {
                        throw new KvStore.SyntaxError("ERR syntax error");
                    }
                    expiry = true;
                    expireAt = expireAt(opt, args.get(++i), now, "set");
                }
                default -> throw new KvStore.SyntaxError("ERR syntax error");
            }
        }
        if ((nx && xx) || (keepTtl && expiry))
        {
            throw new KvStore.SyntaxError("ERR syntax error");
        }
        final Key key = new Key(args.get(1)); // hashed once, for the lookup and the store
        if (!nx && !xx && !get && !keepTtl)
        {
            map.put(key, new KvStore.Entry(args.get(2), expireAt)); // a plain SET needs no lookup: half the map's work
            return Reply.OK;
        }
        final Object found = map.stored(key); // of any type: SET replaces a hash, but its GET option reads strings only
        final Object old = found != null && Stored.live(found, now) ? found : null;
        final Reply previous = get ? bulk(old == null ? null : map.get(key).value()) : null;
        if ((nx && old != null) || (xx && old == null))
        {
            return get ? previous : Reply.NIL;
        }
        map.put(key, new KvStore.Entry(args.get(2), keepTtl && old != null ? Stored.expireAt(old) : expireAt));
        return get ? previous : Reply.OK;
    }

    /**
     * The expiry time in epoch milliseconds of {@code t} after SET's, SETEX's or GETEX's {@code option} (EX, PX, EXAT
     * or PXAT) at {@code now}; Redis's error where it is not positive or does not fit.
     */
    private static long expireAt(final String option, final byte[] t, final long now, final String command)
    {
        final long time = integer(t);
        if (time <= 0)
        {
            throw new KvStore.SyntaxError("ERR invalid expire time in '" + command + "' command");
        }
        return switch (option)
        {
            case "EX" -> KeyCommands.expiryTime(time, 1000, false, now, command);
            case "PX" -> KeyCommands.expiryTime(time, 1, false, now, command);
            case "EXAT" -> KeyCommands.expiryTime(time, 1000, true, now, command);
            default -> time;
        };
    }

    /** SETEX key seconds value, PSETEX key milliseconds value. */
    private Reply setEx(final String cmd, final List<byte[]> args, final long now)
    {
        final long at = expireAt(cmd.equals("SETEX") ? "EX" : "PX", args.get(2), now, cmd.toLowerCase(Locale.ROOT));
        put(args.get(1), args.get(3), at);
        return Reply.OK;
    }

    /** GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]: the value, its expiry set or removed. */
    private Reply getEx(final List<byte[]> args, final long now)
    {
        final String opt = args.size() > 2 ? Commands.word(args.get(2)) : "";
        final boolean persist = opt.equals("PERSIST") && args.size() == 3;
        if (!(args.size() == 2 || persist || (EXPIRY_OPTIONS.contains(opt) && args.size() == 4)))
        {
            return Reply.error("ERR syntax error");
        }
        final KvStore.Entry old = map.live(args.get(1), now);
        if (old == null || args.size() == 2)
        {
            return bulk(old == null ? null : old.value()); // a missing key before its expiry is read, as in Redis
        }
        final long at = persist ? 0 : expireAt(opt, args.get(3), now, "getex");
        if (at != 0 && at <= now)
        {
            map.remove(new Key(args.get(1))); // an EXAT or PXAT already past, as in Redis
        }
        else
        {
            put(args.get(1), old.value(), at);
        }
        return bulk(old.value());
    }

    private Reply getSet(final List<byte[]> args, final long now)
    {
        final byte[] old = get(args.get(1), now);
        put(args.get(1), args.get(2), 0);
        return bulk(old);
    }

    private Reply getDel(final byte[] key, final long now)
    {
        final byte[] old = get(key, now);
        map.remove(new Key(key));
        return bulk(old);
    }

    private Reply mget(final List<byte[]> args, final long now)
    {
        final List<Reply> values = new ArrayList<>(args.size() - 1);
        for (int i = 1; i < args.size(); i++)
        {
            // nil for a key of another type, as Redis answers
            final Object stored = map.liveStored(args.get(i), now);
            values.add(bulk(stored == null || !Stored.isString(stored) ? null : get(args.get(i), now)));
        }
        return new Reply.Array(values);
    }

    /** MSET key value [key value ...]; MSETNX ({@code nx}): all of them only if none of the keys exists, 1 or 0. */
    private Reply mset(final List<byte[]> args, final boolean nx, final long now)
    {
        for (int i = 1; nx && i < args.size(); i += 2)
        {
            if (map.liveStored(args.get(i), now) != null)
            {
                return new Reply.Int(0);
            }
        }
        for (int i = 1; i < args.size(); i += 2)
        {
            put(args.get(i), args.get(i + 1), 0);
        }
        return nx ? new Reply.Int(1) : Reply.OK;
    }

    private Reply strlen(final byte[] key, final long now)
    {
        final byte[] value = get(key, now);
        return new Reply.Int(value == null ? 0 : value.length);
    }
}

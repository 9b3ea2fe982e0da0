package io.weft.examples.kv;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The replicated state machine: string keys and values with optional expiry, and the Redis commands over them.
 * Every member applies the same writes in the same order with the same clock reading (the {@code now} of the batch
 * that carried them, taken at its sender), so every member holds the same state. Writes run on one thread (the
 * predicate thread, in delivery order); reads may run on others (local reads), hence concurrent maps of immutable
 * entries. Reads treat expired entries as absent; writes remove them (a write of the key, and after each batch some of
 * those that expired first: {@link #removeExpired}), so removal is deterministic too.
 */
public final class KvStore
{
    /** Expired entries removed after a batch per write it carries: more than a write can add. */
    static final int EXPIRED_PER_WRITE = 2;
    private final Keyspace map = new Keyspace();

    /** A value and its expiry time in epoch milliseconds, 0 for none. */
    record Entry(byte[] value, long expireAt)
    {
        boolean live(final long now)
        {
            return expireAt == 0 || expireAt > now;
        }
    }

    /** The command's first key, or null if it has none: built before its batch's lookups ({@link #touch}). */
    Key keyOf(final List<byte[]> args)
    {
        return args.size() >= 2 ? new Key(args.get(1)) : null;
    }

    /**
     * Looks up the command's first key {@code key} ({@link #keyOf}), if it has one, and changes nothing: a batch's
     * keys are built first, then looked up in a loop of lookups alone, then the commands apply, so that the lookups'
     * cache misses overlap as far as the processor reaches ahead instead of following one another. A SET replaces
     * the value without reading it, so its old value is not loaded.
     */
    void touch(final Key key, final List<byte[]> args)
    {
        map.moveAlong(); // reads too: a store that only reads after a growth would look twice for a key not moved
        if (key == null)
        {
            return;
        }
        if (Commands.isSet(args))
        {
            touchKey(key);
        }
        else
        {
            map.get(key);
        }
    }

    /** {@link #apply(List, long)} given the command's key from {@link #keyOf}: a plain SET does not build it again. */
    Reply apply(final List<byte[]> args, final Key key, final long now)
    {
        if (key != null && args.size() == 3 && Commands.isSet(args))
        {
            set(key, args.get(2));
            return Reply.OK;
        }
        return apply(args, now);
    }

    /** Looks up {@code key}'s slot alone, not its value: {@link #touch} for a SET, which replaces the value unread. */
    void touchKey(final Key key)
    {
        map.touchKey(key);
    }

    /** {@code SET key value} without options (delivery thread). */
    void set(final Key key, final byte[] value)
    {
        map.put(key, value);
    }

    /** Runs one command (a write only on the delivery thread) at clock reading {@code now}. */
    public Reply apply(final List<byte[]> args, final long now)
    {
        final String cmd = Commands.name(args);
        final int n = args.size();
        try
        {
            return switch (cmd)
            {
                case "GET" -> n != 2 ? Reply.wrongArity(cmd) : bulk(get(args.get(1), now));
                case "SET" -> n < 3 ? Reply.wrongArity(cmd) : set(args, now);
                case "SETNX" -> n != 3 ? Reply.wrongArity(cmd) :
                    new Reply.Int(get(args.get(1), now) == null ? put(args.get(1), args.get(2), 0) : 0);
                case "GETSET" -> n != 3 ? Reply.wrongArity(cmd) : getSet(args, now);
                case "GETDEL" -> n != 2 ? Reply.wrongArity(cmd) : getDel(args.get(1), now);
                case "DEL", "UNLINK" -> n < 2 ? Reply.wrongArity(cmd) : new Reply.Int(delete(args, now));
                case "EXISTS" -> n < 2 ? Reply.wrongArity(cmd) : new Reply.Int(exists(args, now));
                case "INCR" -> n != 2 ? Reply.wrongArity(cmd) : incrBy(args.get(1), 1, now);
                case "DECR" -> n != 2 ? Reply.wrongArity(cmd) : incrBy(args.get(1), -1, now);
                case "INCRBY" -> n != 3 ? Reply.wrongArity(cmd) : incrBy(args.get(1), integer(args.get(2)), now);
                case "DECRBY" -> n != 3 ? Reply.wrongArity(cmd) : decrBy(args.get(1), integer(args.get(2)), now);
                case "MGET" -> n < 2 ? Reply.wrongArity(cmd) : mget(args, now);
                case "MSET" -> n < 3 || n % 2 == 0 ? Reply.wrongArity(cmd) : mset(args);
                case "APPEND" -> n != 3 ? Reply.wrongArity(cmd) : append(args.get(1), args.get(2), now);
                case "STRLEN" -> n != 2 ? Reply.wrongArity(cmd) : strlen(args.get(1), now);
                case "EXPIRE" -> n < 3 ? Reply.wrongArity(cmd) : expire(args, 1000, now);
                case "PEXPIRE" -> n < 3 ? Reply.wrongArity(cmd) : expire(args, 1, now);
                case "PERSIST" -> n != 2 ? Reply.wrongArity(cmd) : persist(args.get(1), now);
                case "TTL" -> n != 2 ? Reply.wrongArity(cmd) : ttl(args.get(1), now, true);
                case "PTTL" -> n != 2 ? Reply.wrongArity(cmd) : ttl(args.get(1), now, false);
                case "KEYS" -> n != 2 ? Reply.wrongArity(cmd) : keys(args.get(1), now);
                case "SCAN" -> n < 2 ? Reply.wrongArity(cmd) : scan(args, now);
                case "DBSIZE" -> n != 1 ? Reply.wrongArity(cmd) : new Reply.Int(size(now));
                case "FLUSHDB", "FLUSHALL" -> n > 2 ? Reply.wrongArity(cmd) : flush();
                default -> Reply.error("ERR unknown command '" + cmd.toLowerCase(Locale.ROOT) + "'");
            };
        }
        catch (final SyntaxError ex)
        {
            return Reply.error(ex.getMessage());
        }
    }

    /**
     * The delivery thread, after a batch of {@code writes} writes at {@code now}: removes up to {@value
     * #EXPIRED_PER_WRITE} expired entries a write, those that expired first (the same at every member). Removed at this
     * pace, keys that expire faster than they are written again (a cache of sessions) cannot fill the store. Besides
     * the removals, a batch sorts out the early and stale pairs that come due ({@link ExpiryHeap}): each one left
     * behind by a write before, so that work is the writes' too, but not bounded per batch.
     */
    void removeExpired(final long now, final int writes)
    {
        map.removeExpired(now, EXPIRED_PER_WRITE * writes);
    }

    /** Live keys (expired ones not yet removed are not counted). */
    public long size(final long now)
    {
        return map.live(now);
    }

    /**
     * What the entries take, estimated: their keys' and values' bytes and {@value Keyspace#ENTRY_OVERHEAD} each for
     * the rest; expired entries count until writes remove them ({@link #removeExpired}). Any thread.
     */
    public long bytes()
    {
        return map.bytes();
    }

    /** Live keys with an expiry. */
    public long expiring(final long now)
    {
        return map.liveExpiring(now);
    }

    private static Reply bulk(final byte[] value)
    {
        return new Reply.Bulk(value);
    }

    private byte[] get(final byte[] key, final long now)
    {
        final Entry e = map.get(new Key(key));
        return e != null && e.live(now) ? e.value : null;
    }

    private Entry entry(final byte[] key, final long now)
    {
        final Entry e = map.get(new Key(key));
        return e != null && e.live(now) ? e : null;
    }

    private int put(final byte[] key, final byte[] value, final long expireAt)
    {
        map.put(new Key(key), new Entry(value, expireAt));
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
            final String opt = new String(args.get(i), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
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
                        throw new SyntaxError("ERR syntax error");
                    }
                    expiry = true;
                    final long t = integer(args.get(++i));
                    if (t <= 0)
                    {
                        throw new SyntaxError("ERR invalid expire time in 'set' command");
                    }
                    expireAt = switch (opt)
                    {
                        case "EX" -> now + Math.multiplyExact(t, 1000);
                        case "PX" -> now + t;
                        case "EXAT" -> Math.multiplyExact(t, 1000);
                        default -> t;
                    };
                }
                default -> throw new SyntaxError("ERR syntax error");
            }
        }
        if ((nx && xx) || (keepTtl && expiry))
        {
            throw new SyntaxError("ERR syntax error");
        }
        final Key key = new Key(args.get(1)); // hashed once, for the lookup and the store
        if (!nx && !xx && !get && !keepTtl)
        {
            map.put(key, new Entry(args.get(2), expireAt)); // a plain SET needs no lookup: half the map's work
            return Reply.OK;
        }
        final Entry found = map.get(key);
        final Entry old = found != null && found.live(now) ? found : null;
        final Reply previous = get ? bulk(old == null ? null : old.value) : null;
        if ((nx && old != null) || (xx && old == null))
        {
            return get ? previous : Reply.NIL;
        }
        map.put(key, new Entry(args.get(2), keepTtl && old != null ? old.expireAt : expireAt));
        return get ? previous : Reply.OK;
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

    private long delete(final List<byte[]> args, final long now)
    {
        long deleted = 0;
        for (int i = 1; i < args.size(); i++)
        {
            final Entry e = map.remove(new Key(args.get(i)));
            deleted += e != null && e.live(now) ? 1 : 0;
        }
        return deleted;
    }

    private long exists(final List<byte[]> args, final long now)
    {
        long found = 0;
        for (int i = 1; i < args.size(); i++)
        {
            found += get(args.get(i), now) != null ? 1 : 0;
        }
        return found;
    }

    private Reply decrBy(final byte[] key, final long by, final long now)
    {
        if (by == Long.MIN_VALUE)
        {
            return Reply.error("ERR decrement would overflow");
        }
        return incrBy(key, -by, now);
    }

    private Reply incrBy(final byte[] key, final long by, final long now)
    {
        final Entry old = entry(key, now);
        final long value;
        try
        {
            value = old == null ? 0 : integer(old.value);
        }
        catch (final SyntaxError ex)
        {
            return Reply.error(ex.getMessage());
        }
        final long result;
        try
        {
            result = Math.addExact(value, by);
        }
        catch (final ArithmeticException ex)
        {
            return Reply.error("ERR increment or decrement would overflow");
        }
        put(key, Long.toString(result).getBytes(StandardCharsets.US_ASCII), old == null ? 0 : old.expireAt);
        return new Reply.Int(result);
    }

    private Reply mget(final List<byte[]> args, final long now)
    {
        final List<Reply> values = new ArrayList<>(args.size() - 1);
        for (int i = 1; i < args.size(); i++)
        {
            values.add(bulk(get(args.get(i), now)));
        }
        return new Reply.Array(values);
    }

    private Reply mset(final List<byte[]> args)
    {
        for (int i = 1; i < args.size(); i += 2)
        {
            put(args.get(i), args.get(i + 1), 0);
        }
        return Reply.OK;
    }

    private Reply append(final byte[] key, final byte[] suffix, final long now)
    {
        final Entry old = entry(key, now);
        final byte[] value;
        if (old == null)
        {
            value = suffix;
        }
        else
        {
            value = java.util.Arrays.copyOf(old.value, old.value.length + suffix.length);
            System.arraycopy(suffix, 0, value, old.value.length, suffix.length);
        }
        put(key, value, old == null ? 0 : old.expireAt);
        return new Reply.Int(value.length);
    }

    private Reply strlen(final byte[] key, final long now)
    {
        final byte[] value = get(key, now);
        return new Reply.Int(value == null ? 0 : value.length);
    }

    /** EXPIRE key seconds [NX|XX|GT|LT] (PEXPIRE in milliseconds). */
    private Reply expire(final List<byte[]> args, final long unitMillis, final long now)
    {
        if (args.size() > 4)
        {
            return Reply.wrongArity(Commands.name(args));
        }
        final long t = integer(args.get(2));
        final String opt = args.size() == 4 ? new String(args.get(3), StandardCharsets.US_ASCII)
            .toUpperCase(Locale.ROOT) : "";
        if (!Set.of("", "NX", "XX", "GT", "LT").contains(opt))
        {
            return Reply.error("ERR Unsupported option " + opt);
        }
        final Entry old = entry(args.get(1), now);
        if (old == null)
        {
            return new Reply.Int(0);
        }
        final long at;
        try
        {
            at = Math.addExact(now, Math.multiplyExact(t, unitMillis));
        }
        catch (final ArithmeticException ex)
        {
            return Reply.error("ERR invalid expire time in '" + Commands.name(args).toLowerCase(Locale.ROOT) +
                "' command");
        }
        final boolean none = old.expireAt == 0;
        final boolean allowed = switch (opt)
        {
            case "NX" -> none;
            case "XX" -> !none;
            case "GT" -> !none && at > old.expireAt;
            case "LT" -> none || at < old.expireAt;
            default -> true;
        };
        if (!allowed)
        {
            return new Reply.Int(0);
        }
        if (at <= now)
        {
            map.remove(new Key(args.get(1)));
        }
        else
        {
            put(args.get(1), old.value, at);
        }
        return new Reply.Int(1);
    }

    private Reply persist(final byte[] key, final long now)
    {
        final Entry old = entry(key, now);
        if (old == null || old.expireAt == 0)
        {
            return new Reply.Int(0);
        }
        put(key, old.value, 0);
        return new Reply.Int(1);
    }

    private Reply ttl(final byte[] key, final long now, final boolean seconds)
    {
        final Entry e = entry(key, now);
        if (e == null)
        {
            return new Reply.Int(-2);
        }
        if (e.expireAt == 0)
        {
            return new Reply.Int(-1);
        }
        final long left = e.expireAt - now;
        return new Reply.Int(seconds ? (left + 500) / 1000 : left);
    }

    private Reply keys(final byte[] pattern, final long now)
    {
        final List<Reply> found = new ArrayList<>();
        for (final Map.Entry<Key, Entry> e : map.sorted())
        {
            final byte[] key = e.getKey().bytes();
            if (e.getValue().live(now) && Glob.matches(pattern, key))
            {
                found.add(bulk(key));
            }
        }
        return new Reply.Array(found);
    }

    /**
     * SCAN cursor [MATCH pattern] [COUNT n]: whole buckets of the {@link Keyspace} from the cursor (a bucket index)
     * until at least COUNT keys were visited; the next cursor is the next bucket, 0 at the end. Every key present for
     * the whole scan is returned, at any member.
     */
    private Reply scan(final List<byte[]> args, final long now)
    {
        final long cursor;
        try
        {
            cursor = Long.parseUnsignedLong(new String(args.get(1), StandardCharsets.US_ASCII));
        }
        catch (final NumberFormatException ex)
        {
            return Reply.error("ERR invalid cursor");
        }
        byte[] pattern = null;
        long count = 10;
        for (int i = 2; i < args.size(); i += 2)
        {
            final String opt = new String(args.get(i), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
            if (i + 1 >= args.size() || !(opt.equals("MATCH") || opt.equals("COUNT")))
            {
                return Reply.error("ERR syntax error");
            }
            if (opt.equals("MATCH"))
            {
                pattern = args.get(i + 1);
            }
            else
            {
                count = integer(args.get(i + 1));
                if (count < 1)
                {
                    return Reply.error("ERR syntax error");
                }
            }
        }
        if (cursor >= Keyspace.BUCKETS)
        {
            return Reply.error("ERR invalid cursor");
        }
        final List<Reply> found = new ArrayList<>();
        long visited = 0;
        int b = (int)cursor;
        while (b < Keyspace.BUCKETS && visited < count)
        {
            for (final Map.Entry<Key, Entry> e : map.sortedBucket(b))
            {
                visited++;
                final byte[] key = e.getKey().bytes();
                if (e.getValue().live(now) && (pattern == null || Glob.matches(pattern, key)))
                {
                    found.add(bulk(key));
                }
            }
            b++;
        }
        final long next = b < Keyspace.BUCKETS ? b : 0;
        return new Reply.Array(List.of(Reply.Bulk.of(Long.toUnsignedString(next)), new Reply.Array(found)));
    }

    private Reply flush()
    {
        map.clear();
        return Reply.OK;
    }

    /** A Redis integer argument: signed 64-bit decimal, nothing else. */
    static long integer(final byte[] bytes)
    {
        try
        {
            final String text = new String(bytes, StandardCharsets.US_ASCII);
            if (text.isEmpty() || text.startsWith("+") ||
                (text.length() > 1 && text.charAt(text.startsWith("-") ? 1 : 0) == '0'))
            {
                throw new NumberFormatException(text);
            }
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new SyntaxError("ERR value is not an integer or out of range");
        }
    }

    /**
     * The state as of now, to write out later (a joiner's, a log's snapshot); taken while no write runs (after the
     * last delivery of a view, or on the delivery thread).
     */
    StoreCut cut()
    {
        return map.cut();
    }

    /** Empties the store, which then takes a {@link StoreCut}'s bytes as they arrive. */
    StoreLoader loader()
    {
        return new StoreLoader(map);
    }

    /** The whole state in one array ({@link #cut}'s bytes, by key): for tests that compare stores. */
    public byte[] snapshot()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try
        {
            cut().sorted().writeTo(bytes);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /** A bad argument: the message is the Redis error reply. */
    static final class SyntaxError extends RuntimeException
    {
        SyntaxError(final String message)
        {
            super(message, null, false, false);
        }
    }
}

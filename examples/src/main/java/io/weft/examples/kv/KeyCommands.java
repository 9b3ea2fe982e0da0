package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Redis's commands on a key whatever its value (its "generic" group): expiry (EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT,
 * PERSIST, TTL, PTTL, EXPIRETIME, PEXPIRETIME), TYPE, RENAME and RENAMENX, COPY, MEMORY USAGE, SCAN, over
 * {@link KvStore}'s map and at the clock reading of the command's batch. Writes on the delivery thread only, as every
 * write of the store.
 */
final class KeyCommands
{
    /** EXPIRE's conditions; each is the bit of its place here (NX, XX, GT, LT). */
    private static final List<String> OPTIONS = List.of("NX", "XX", "GT", "LT");
    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GT = 4;
    private static final int LT = 8;
    /** The first KvWire version whose EXPIRE takes several conditions; before, more than one was a wrong arity. */
    static final byte SEVERAL_CONDITIONS_SINCE = 9;

    private final Keyspace map;

    KeyCommands(final Keyspace map)
    {
        this.map = map;
    }

    /**
     * {@code t} units of {@code unitMillis} after {@code now}, or after the epoch if {@code absolute}, in epoch
     * milliseconds: every expiry of every command is computed here; Redis's error where it does not fit a long.
     */
    static long expiryTime(final long t, final long unitMillis, final boolean absolute, final long now,
        final String command)
    {
        try
        {
            return Math.addExact(absolute ? 0 : now, Math.multiplyExact(t, unitMillis));
        }
        catch (final ArithmeticException ex)
        {
            throw new KvStore.SyntaxError("ERR invalid expire time in '" + command + "' command");
        }
    }

    /**
     * EXPIRE key seconds [NX|XX|GT|LT ...] (PEXPIRE in milliseconds; EXPIREAT and PEXPIREAT at a Unix time): a time not
     * after the clock reading removes the key, as in Redis.
     */
    Reply expire(final List<byte[]> args, final long unitMillis, final boolean absolute, final long now)
    {
        if (args.size() > 4 && map.versions.wire() < SEVERAL_CONDITIONS_SINCE) // a log's batch, as its build applied it
        {
            return Reply.wrongArity(Commands.name(args));
        }
        int options = 0; // a bit each, by its place in OPTIONS
        for (final byte[] word : args.subList(3, args.size()))
        {
            final int option = OPTIONS.indexOf(Commands.word(word));
            if (option < 0)
            {
                return Reply.error("ERR Unsupported option " + new String(word, StandardCharsets.UTF_8));
            }
            options |= 1 << option;
        }
        if ((options & NX) != 0 && options != NX)
        {
            return Reply.error("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if ((options & (GT | LT)) == (GT | LT))
        {
            return Reply.error("ERR GT and LT options at the same time are not compatible");
        }
        final long t = ValueEdits.integer(args.get(2));
        final long at = expiryTime(t, unitMillis, absolute, now, Commands.name(args).toLowerCase(Locale.ROOT));
        final Object old = map.liveStored(args.get(1), now);
        if (old == null)
        {
            return new Reply.Int(0);
        }
        final long oldAt = Stored.expireAt(old);
        final boolean none = oldAt == 0; // no expiry counts as an infinite one for GT and LT
        final boolean allowed = ((options & NX) == 0 || none) && ((options & XX) == 0 || !none) &&
            ((options & GT) == 0 || !none && at > oldAt) && ((options & LT) == 0 || none || at < oldAt);
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
            map.store(new Key(args.get(1)), Stored.withExpiry(old, at));
        }
        return new Reply.Int(1);
    }

    Reply persist(final byte[] key, final long now)
    {
        final Object old = map.liveStored(key, now);
        if (old == null || Stored.expireAt(old) == 0)
        {
            return new Reply.Int(0);
        }
        map.store(new Key(key), Stored.withExpiry(old, 0));
        return new Reply.Int(1);
    }

    /** TTL and PTTL ({@code absolute}: EXPIRETIME and PEXPIRETIME): -2 for no key, -1 for no expiry. */
    Reply ttl(final byte[] key, final long now, final boolean seconds, final boolean absolute)
    {
        final Object e = map.liveStored(key, now);
        if (e == null)
        {
            return new Reply.Int(-2);
        }
        final long at = Stored.expireAt(e);
        if (at == 0)
        {
            return new Reply.Int(-1);
        }
        final long left = absolute ? at : at - now;
        return new Reply.Int(seconds ? (left + 500) / 1000 : left);
    }

    /** TYPE key: "string", "hash", "set" or "none". */
    Reply type(final byte[] key, final long now)
    {
        final Object stored = map.liveStored(key, now);
        return new Reply.Simple(stored == null ? "none" : Stored.type(stored));
    }

    /**
     * RENAME key newkey (RENAMENX: only if newkey does not exist): the value and its expiry move; an existing newkey
     * is replaced.
     */
    Reply rename(final byte[] from, final byte[] to, final boolean nx, final long now)
    {
        final Object e = map.liveStored(from, now);
        if (e == null)
        {
            return Reply.error("ERR no such key");
        }
        final Key target = new Key(to);
        if (target.equals(new Key(from)))
        {
            return nx ? new Reply.Int(0) : Reply.OK;
        }
        if (nx && map.liveStored(to, now) != null)
        {
            return new Reply.Int(0);
        }
        map.remove(new Key(from));
        map.store(target, e);
        return nx ? new Reply.Int(1) : Reply.OK;
    }

    /**
     * COPY source destination [DB 0] [REPLACE]: 1 if copied (the value and its expiry), 0 without a source or with a
     * destination and no REPLACE. This store has one database: another DB is Redis's out-of-range error.
     */
    Reply copy(final List<byte[]> args, final long now)
    {
        boolean replace = false;
        for (int i = 3; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            if (option.equals("REPLACE"))
            {
                replace = true;
            }
            else if (option.equals("DB") && i + 1 < args.size())
            {
                if (OneDatabase.index(args.get(++i), null) != 0)
                {
                    return OneDatabase.OUT_OF_RANGE;
                }
            }
            else
            {
                return Reply.error("ERR syntax error");
            }
        }
        final Key to = new Key(args.get(2));
        if (to.equals(new Key(args.get(1))))
        {
            return Reply.error("ERR source and destination objects are the same");
        }
        final Object e = map.liveStored(args.get(1), now);
        if (e == null || (!replace && map.liveStored(args.get(2), now) != null))
        {
            return new Reply.Int(0);
        }
        map.store(to, map.copyOf(e));
        return new Reply.Int(1);
    }

    /**
     * MEMORY: Redis's refusal of an unknown subcommand or a wrong count ({@link Subcommands}), PURGE (nothing to do),
     * HELP, USAGE key [SAMPLES count ...]: what the key and its value take in the store's estimate (the one its memory
     * limit compares: not the heap's bytes, which Redis's answer is of its own memory), nil without the key.
     */
    Reply memory(final List<byte[]> args, final long now)
    {
        final Reply.Error refused = Subcommands.refusal("MEMORY", args);
        if (refused != null)
        {
            return refused;
        }
        switch (Commands.word(args.get(1)))
        {
            case "USAGE" ->
            {
                for (int i = 3; i < args.size(); i += 2) // Redis takes SAMPLES more than once; the last counts
                {
                    if (i + 1 == args.size() || !Commands.is(args.get(i), "SAMPLES") ||
                        ValueEdits.integer(args.get(i + 1)) < 0)
                    {
                        return Reply.error("ERR syntax error");
                    }
                }
                final Object stored = map.liveStored(args.get(2), now); // every field counted: no samples needed
                return stored == null ? Reply.NIL : new Reply.Int(Keyspace.usage(new Key(args.get(2)), stored));
            }
            case "PURGE" ->
            {
                return Reply.OK;
            }
            case "HELP" ->
            {
                return Subcommands.help("MEMORY");
            }
            default ->
            {
                return Subcommands.unsupported("MEMORY", args);
            }
        }
    }

    /** KEYS pattern: the live keys that match, in the store's order. */
    Reply matching(final byte[] pattern, final long now)
    {
        final List<Reply> found = new ArrayList<>();
        for (final Map.Entry<Key, Object> e : map.sorted())
        {
            final byte[] key = e.getKey().bytes();
            if (Stored.live(e.getValue(), now) && Glob.matches(pattern, key))
            {
                found.add(new Reply.Bulk(key));
            }
        }
        return new Reply.Array(found);
    }

    /**
     * SCAN cursor [MATCH pattern] [COUNT n] [TYPE type]: whole buckets of the {@link Keyspace} from the cursor (a
     * bucket index) until at least COUNT keys were visited; the next cursor is the next bucket, 0 at the end. Every key
     * present for the whole scan is returned, at any member; TYPE keeps the keys of one type ({@link Keyspace#type}).
     */
    Reply scan(final List<byte[]> args, final long now)
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
        String type = null;
        for (int i = 2; i < args.size(); i += 2)
        {
            final String opt = Commands.word(args.get(i));
            if (i + 1 >= args.size() || !(opt.equals("MATCH") || opt.equals("COUNT") || opt.equals("TYPE")))
            {
                return Reply.error("ERR syntax error");
            }
            if (opt.equals("MATCH"))
            {
                pattern = args.get(i + 1);
            }
            else if (opt.equals("TYPE"))
            {
                type = new String(args.get(i + 1), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
            }
            else
            {
                count = ValueEdits.integer(args.get(i + 1));
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
            for (final Map.Entry<Key, Object> e : map.sortedBucket(b))
            {
                visited++;
                final byte[] key = e.getKey().bytes();
                if ((type == null || type.equals(Stored.type(e.getValue()))) && Stored.live(e.getValue(), now) &&
                    (pattern == null || Glob.matches(pattern, key)))
                {
                    found.add(new Reply.Bulk(key));
                }
            }
            b++;
        }
        final long next = b < Keyspace.BUCKETS ? b : 0;
        return new Reply.Array(List.of(Reply.Bulk.of(Long.toUnsignedString(next)), new Reply.Array(found)));
    }

    /**
     * RANDOMKEY: a live key drawn from {@link Draws} (alike at every member inside a script), nil if none: a random
     * bucket, then the first one on with a live key, and one of its keys.
     */
    Reply randomKey(final long now)
    {
        final java.util.random.RandomGenerator random = Draws.current();
        final int first = random.nextInt(Keyspace.BUCKETS);
        for (int b = 0; b < Keyspace.BUCKETS; b++)
        {
            final List<Map.Entry<Key, Object>> live = map.sortedBucket((first + b) % Keyspace.BUCKETS).stream()
                .filter(e -> Stored.live(e.getValue(), now)).toList();
            if (!live.isEmpty())
            {
                return new Reply.Bulk(live.get(random.nextInt(live.size())).getKey().bytes());
            }
        }
        return Reply.NIL;
    }
}

package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The store's commands by kind: writes travel through the group; reads do too unless they are local reads. Each has
 * Redis's arity, which a transaction checks as a command is queued, as Redis does: a wrong count discards the
 * transaction at EXEC where, applied, it would have failed alone while the others applied.
 */
final class Commands
{
    /**
     * How a command travels: writes through the group (GROWING ones may make the store larger), reads by mode, and
     * ORDERED reads through the group in either mode: they read what only the writing thread may (SCAN's bucket index,
     * a list's items or a sorted set's members, {@link WriterOwned}, and MEMORY USAGE the sizes that thread keeps).
     */
    private enum Kind
    {
        READ, ORDERED, WRITE, GROWING, CONNECTION
    }

    /**
     * A command's kind, arity (n, exactly n words with its name; -n, at least n) and the first {@link KvWire} version
     * that runs it in a script (0: every version with scripts).
     */
    private record Spec(Kind kind, int arity, int since)
    {
    }

    /**
     * Every command the store runs (PUBLISH is a write: every member hands it on; MOVE and SWAPDB are writes that
     * change nothing, {@link OneDatabase}), and PING, ECHO, SELECT and TIME, which a connection answers or a
     * transaction queues (TIME there, or in a script, reads the batch's clock: every member answers alike). GROWING:
     * Redis's denyoom, refused while the store holds more than its limit.
     */
    private static final Map<String, Spec> COMMANDS = Map.ofEntries(
        of("SET", Kind.GROWING, -3), of("SETNX", Kind.GROWING, 3), of("SETEX", Kind.GROWING, 4),
        of("PSETEX", Kind.GROWING, 4), of("GETSET", Kind.GROWING, 3), of("GETEX", Kind.WRITE, -2),
        of("GETDEL", Kind.WRITE, 2), of("DEL", Kind.WRITE, -2), of("UNLINK", Kind.WRITE, -2),
        of("INCR", Kind.GROWING, 2), of("INCRBY", Kind.GROWING, 3), of("DECR", Kind.GROWING, 2),
        of("DECRBY", Kind.GROWING, 3), of("INCRBYFLOAT", Kind.GROWING, 3), of("MSET", Kind.GROWING, -3),
        of("MSETNX", Kind.GROWING, -3), of("APPEND", Kind.GROWING, 3), of("SETRANGE", Kind.GROWING, 4),
        of("EXPIRE", Kind.WRITE, -3), of("PEXPIRE", Kind.WRITE, -3), of("EXPIREAT", Kind.WRITE, -3),
        of("PEXPIREAT", Kind.WRITE, -3), of("PERSIST", Kind.WRITE, 2), of("RENAME", Kind.WRITE, 3),
        of("RENAMENX", Kind.WRITE, 3), of("FLUSHDB", Kind.WRITE, -1), of("FLUSHALL", Kind.WRITE, -1),
        of("PUBLISH", Kind.WRITE, 3), of("SPUBLISH", Kind.WRITE, 3, PubSub.SHARD_SINCE),
        of("HSET", Kind.GROWING, -4), of("HMSET", Kind.GROWING, -4),
        of("HSETNX", Kind.GROWING, 4), of("HDEL", Kind.WRITE, -3), of("HINCRBY", Kind.GROWING, 4),
        of("HINCRBYFLOAT", Kind.GROWING, 4), of("SADD", Kind.GROWING, -3), of("SREM", Kind.WRITE, -3),
        of("SPOP", Kind.WRITE, -2), of("SMOVE", Kind.WRITE, 4), of("SINTERSTORE", Kind.GROWING, -3),
        of("SUNIONSTORE", Kind.GROWING, -3), of("SDIFFSTORE", Kind.GROWING, -3),
        of("GET", Kind.READ, 2), of("GETRANGE", Kind.READ, 4), of("EXISTS", Kind.READ, -2),
        of("TOUCH", Kind.READ, -2), of("MGET", Kind.READ, -2), of("STRLEN", Kind.READ, 2), of("TYPE", Kind.READ, 2),
        of("TTL", Kind.READ, 2), of("PTTL", Kind.READ, 2), of("EXPIRETIME", Kind.READ, 2),
        of("PEXPIRETIME", Kind.READ, 2), of("KEYS", Kind.READ, 2), of("SCAN", Kind.ORDERED, -2),
        of("DBSIZE", Kind.READ, 1), of("HGET", Kind.READ, 3), of("HMGET", Kind.READ, -3),
        of("HGETALL", Kind.READ, 2), of("HKEYS", Kind.READ, 2), of("HVALS", Kind.READ, 2), of("HLEN", Kind.READ, 2),
        of("HEXISTS", Kind.READ, 3), of("HSTRLEN", Kind.READ, 3), of("HSCAN", Kind.READ, -3),
        of("HRANDFIELD", Kind.READ, -2, 9),
        of("SISMEMBER", Kind.READ, 3), of("SMISMEMBER", Kind.READ, -3), of("SMEMBERS", Kind.READ, 2),
        of("SCARD", Kind.READ, 2), of("SSCAN", Kind.READ, -3), of("SRANDMEMBER", Kind.READ, -2),
        of("SINTER", Kind.READ, -2), of("SUNION", Kind.READ, -2), of("SDIFF", Kind.READ, -2),
        of("SINTERCARD", Kind.READ, -3), of("LPUSH", Kind.GROWING, -3), of("RPUSH", Kind.GROWING, -3),
        of("LPUSHX", Kind.GROWING, -3), of("RPUSHX", Kind.GROWING, -3), of("LPOP", Kind.WRITE, -2),
        of("LMPOP", Kind.WRITE, -4, 9), of("BLMPOP", Kind.WRITE, -5, 9),
        of("RPOP", Kind.WRITE, -2), of("LSET", Kind.GROWING, 4), of("LREM", Kind.WRITE, 4),
        of("LTRIM", Kind.WRITE, 4), of("LINSERT", Kind.GROWING, 5), of("LMOVE", Kind.GROWING, 5),
        of("RPOPLPUSH", Kind.GROWING, 3), of("BLPOP", Kind.WRITE, -3), of("BRPOP", Kind.WRITE, -3),
        of("BLMOVE", Kind.GROWING, 6), of("BRPOPLPUSH", Kind.GROWING, 4), of("LLEN", Kind.ORDERED, 2),
        of("LINDEX", Kind.ORDERED, 3),
        of("LRANGE", Kind.ORDERED, 4), of("LPOS", Kind.ORDERED, -3), of("COPY", Kind.GROWING, -3),
        of("MEMORY", Kind.ORDERED, -2), of("ZADD", Kind.GROWING, -4), of("ZINCRBY", Kind.GROWING, 4),
        of("ZREM", Kind.WRITE, -3), of("ZREMRANGEBYRANK", Kind.WRITE, 4), of("ZREMRANGEBYSCORE", Kind.WRITE, 4),
        of("ZREMRANGEBYLEX", Kind.WRITE, 4), of("ZPOPMIN", Kind.WRITE, -2), of("ZPOPMAX", Kind.WRITE, -2),
        of("ZCARD", Kind.ORDERED, 2), of("ZSCORE", Kind.ORDERED, 3), of("ZMSCORE", Kind.ORDERED, -3),
        of("ZRANK", Kind.ORDERED, -3), of("ZREVRANK", Kind.ORDERED, -3), of("ZCOUNT", Kind.ORDERED, 4),
        of("ZLEXCOUNT", Kind.ORDERED, 4), of("ZRANGE", Kind.ORDERED, -4), of("ZREVRANGE", Kind.ORDERED, -4),
        of("ZRANGEBYSCORE", Kind.ORDERED, -4), of("ZREVRANGEBYSCORE", Kind.ORDERED, -4),
        of("ZRANGEBYLEX", Kind.ORDERED, -4), of("ZREVRANGEBYLEX", Kind.ORDERED, -4), of("ZMPOP", Kind.WRITE, -4, 8),
        of("BZPOPMIN", Kind.WRITE, -3), of("BZPOPMAX", Kind.WRITE, -3), of("BZMPOP", Kind.WRITE, -5),
        of("ZRANGESTORE", Kind.GROWING, -5, 8), of("ZRANDMEMBER", Kind.ORDERED, -2), of("ZSCAN", Kind.ORDERED, -3),
        of("ZUNION", Kind.ORDERED, -3), of("ZINTER", Kind.ORDERED, -3), of("ZDIFF", Kind.ORDERED, -3),
        of("ZINTERCARD", Kind.ORDERED, -3), of("ZUNIONSTORE", Kind.GROWING, -4, 8),
        of("ZINTERSTORE", Kind.GROWING, -4, 8), of("ZDIFFSTORE", Kind.GROWING, -4, 8), of("EVAL", Kind.GROWING, -3),
        of("EVAL_RO", Kind.ORDERED, -3), of("PING", Kind.CONNECTION, -1),
        of("ECHO", Kind.CONNECTION, 2), of("SETBIT", Kind.GROWING, 4, 10), of("GETBIT", Kind.READ, 3, 10),
        of("BITCOUNT", Kind.READ, -2, 10), of("BITPOS", Kind.READ, -3, 10), of("BITOP", Kind.GROWING, -4, 10),
        of("BITFIELD", Kind.GROWING, -2, 11), of("BITFIELD_RO", Kind.READ, -2, 11), of("PFADD", Kind.GROWING, -2, 11),
        of("PFCOUNT", Kind.READ, -2, 11), of("PFMERGE", Kind.GROWING, -2, 11), of("LCS", Kind.READ, -3, 11),
        of("SUBSTR", Kind.READ, 4, 11), of("RANDOMKEY", Kind.ORDERED, 1, 11), of("SORT", Kind.GROWING, -2, 12),
        of("SORT_RO", Kind.ORDERED, -2, 12), of("GEOADD", Kind.GROWING, -5, 13), of("GEOPOS", Kind.ORDERED, -2, 13),
        of("GEOHASH", Kind.ORDERED, -2, 13), of("GEODIST", Kind.ORDERED, -4, 13),
        of("GEOSEARCH", Kind.ORDERED, -7, 13), of("GEOSEARCHSTORE", Kind.GROWING, -8, 13),
        of("GEORADIUS", Kind.GROWING, -6, 13), of("GEORADIUS_RO", Kind.ORDERED, -6, 13),
        of("GEORADIUSBYMEMBER", Kind.GROWING, -5, 13), of("GEORADIUSBYMEMBER_RO", Kind.ORDERED, -5, 13),
        of("DUMP", Kind.ORDERED, 2, 15), of("RESTORE", Kind.GROWING, -4, 15), of("SELECT", Kind.CONNECTION, 2, 16),
        of("MOVE", Kind.WRITE, 3, 16), of("SWAPDB", Kind.WRITE, 3, 16), of("TIME", Kind.CONNECTION, 1),
        of("XADD", Kind.GROWING, -5, 22), of("XTRIM", Kind.WRITE, -4, 22), of("XDEL", Kind.WRITE, -3, 22),
        of("XSETID", Kind.GROWING, -3, 22), of("XLEN", Kind.ORDERED, 2, 22), of("XRANGE", Kind.ORDERED, -4, 22),
        of("XREVRANGE", Kind.ORDERED, -4, 22), of("XREAD", Kind.ORDERED, -4, 22), of("XGROUP", Kind.WRITE, -2, 22),
        of("XREADGROUP", Kind.WRITE, -7, 22), of("XACK", Kind.WRITE, -4, 22), of("XPENDING", Kind.ORDERED, -3, 22),
        of("XCLAIM", Kind.WRITE, -6, 22), of("XAUTOCLAIM", Kind.WRITE, -6, 22), of("XINFO", Kind.ORDERED, -2, 22));

    /**
     * Connection commands that read the store's state on this member (a key's copy, the write position, the scripts
     * it ran): a connection runs one once its commands before it have applied here, as Redis runs commands in turn.
     */
    private static final Set<String> READ_MEMBER_STATE = Set.of("WATCH", "ROLE", "INFO", "WAIT", "SCRIPT");

    private Commands()
    {
    }

    private static Map.Entry<String, Spec> of(final String command, final Kind kind, final int arity)
    {
        return of(command, kind, arity, 0);
    }

    private static Map.Entry<String, Spec> of(final String command, final Kind kind, final int arity, final int since)
    {
        return Map.entry(command, new Spec(kind, arity, since));
    }

    private static Kind kind(final String command)
    {
        final Spec spec = COMMANDS.get(command);
        return spec == null ? null : spec.kind;
    }

    static boolean isWrite(final String command)
    {
        final Kind kind = kind(command);
        return kind == Kind.WRITE || kind == Kind.GROWING;
    }

    /** Whether a transaction may queue {@code command}: the store's commands, PING, ECHO, SELECT and TIME. */
    static boolean isQueued(final String command)
    {
        return COMMANDS.containsKey(command);
    }

    /**
     * Whether a script in a batch of KvWire version {@code wire} may call {@code command}: a log's script replays as
     * its build ran it, where a command added since was an unknown one.
     */
    static boolean inScriptsAt(final String command, final byte wire)
    {
        final Spec spec = COMMANDS.get(command);
        return spec != null && spec.since <= wire;
    }

    /** Whether {@code words} words, the name included, fit {@code command}'s arity (a known command's). */
    static boolean fitsArity(final String command, final int words)
    {
        return fitsArity(arity(command), words);
    }

    /** Whether {@code words} words, the name included, fit {@code arity} (n: exactly n; -n: at least n). */
    static boolean fitsArity(final int arity, final int words)
    {
        return arity >= 0 ? words == arity : words >= -arity;
    }

    /** A known command's arity. */
    static int arity(final String command)
    {
        return COMMANDS.get(command).arity;
    }

    /** The commands the store runs, PING, ECHO, SELECT and TIME, by name upper case. */
    static Set<String> names()
    {
        return COMMANDS.keySet();
    }

    /** Whether the write {@code args} may make the store larger; an EXEC ({@link Transaction}) if any of its may. */
    static boolean mayGrow(final List<byte[]> args)
    {
        final String command = name(args);
        return command.equals("EXEC") ? Transaction.parse(args).commands().stream().anyMatch(Commands::mayGrow) :
            command.equals("XGROUP") ? args.size() > 1 && grows(command, word(args.get(1))) : grows(command);
    }

    /** Whether {@code container}'s subcommand {@code sub} (upper case) may make the store larger: Redis's denyoom. */
    static boolean grows(final String container, final String sub)
    {
        return container.equals("XGROUP") && (sub.equals("CREATE") || sub.equals("CREATECONSUMER"));
    }

    /** Whether {@code command} may make the store larger: Redis's denyoom. */
    static boolean grows(final String command)
    {
        return kind(command) == Kind.GROWING;
    }

    static boolean isRead(final String command)
    {
        final Kind kind = kind(command);
        return kind == Kind.READ || kind == Kind.ORDERED;
    }

    /**
     * Whether a read may run on a connection's thread (local reads): all but the ORDERED ones, which go through the
     * group even with local reads.
     */
    static boolean isLocalRead(final String command)
    {
        return kind(command) == Kind.READ;
    }

    /** The command name of {@code args}, upper case. */
    static String name(final List<byte[]> args)
    {
        final byte[] b = args.getFirst();
        // the commands clients send most are named without building a string (per command, per member)
        return isSet(args) ? "SET" : is(b, "GET") ? "GET" : word(b);
    }

    /** An argument as text (names, versions, options), for messages and settings. */
    static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Whether connection command {@code cmd} reads the store's state on this member ({@link #READ_MEMBER_STATE}). */
    static boolean readsMemberState(final String cmd)
    {
        return READ_MEMBER_STATE.contains(cmd);
    }

    /** A command's, subcommand's or option's word, upper case: Redis takes them in any case. */
    static String word(final byte[] b)
    {
        return new String(b, StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
    }

    /** Whether {@code args} is a SET, in any case, without building its name. */
    static boolean isSet(final List<byte[]> args)
    {
        final byte[] b = args.getFirst();
        return isSet(b, 0, b.length);
    }

    /** Whether the command name {@code bytes[from, from + length)} is SET, in any case. */
    static boolean isSet(final byte[] bytes, final int from, final int length)
    {
        return is(bytes, from, length, "SET");
    }

    /** Whether {@code word} is the command or option {@code name} (upper case) in any case, without a string. */
    static boolean is(final byte[] word, final String name)
    {
        return is(word, 0, word.length, name);
    }

    /**
     * Whether {@code b[from, from + length)} is the upper-case letters of {@code name} in either case (0xDF clears a
     * letter's lower-case bit).
     */
    private static boolean is(final byte[] b, final int from, final int length, final String name)
    {
        if (length != name.length())
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            if ((b[from + i] & 0xDF) != name.charAt(i))
            {
                return false;
            }
        }
        return true;
    }
}

package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The store's commands by kind: writes travel through the group; reads do too unless they are local reads. */
final class Commands
{
    /** Commands that change the state, and PUBLISH, which every member hands on: they travel through the group. */
    private static final Set<String> WRITES = Set.of("SET", "SETNX", "SETEX", "PSETEX", "GETSET", "GETEX", "GETDEL",
        "DEL", "UNLINK", "INCR", "INCRBY", "DECR", "DECRBY", "INCRBYFLOAT", "MSET", "MSETNX", "APPEND", "SETRANGE",
        "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "PERSIST", "RENAME", "RENAMENX", "FLUSHDB", "FLUSHALL",
        "PUBLISH", "HSET", "HMSET", "HSETNX", "HDEL", "HINCRBY", "HINCRBYFLOAT", "SADD", "SREM", "SPOP", "SMOVE",
        "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE");
    /** Writes that may make the store larger: refused while it holds more than its limit (Redis's denyoom). */
    private static final Set<String> GROWING = Set.of("SET", "SETNX", "SETEX", "PSETEX", "GETSET", "INCR", "INCRBY",
        "DECR", "DECRBY", "INCRBYFLOAT", "MSET", "MSETNX", "APPEND", "SETRANGE", "HSET", "HMSET", "HSETNX", "HINCRBY",
        "HINCRBYFLOAT", "SADD", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE");
    private static final Set<String> READS = Set.of("GET", "GETRANGE", "EXISTS", "TOUCH", "MGET", "STRLEN", "TYPE",
        "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "KEYS", "SCAN", "DBSIZE", "HGET", "HMGET", "HGETALL", "HKEYS",
        "HVALS", "HLEN", "HEXISTS", "HSTRLEN", "HSCAN", "SISMEMBER", "SMISMEMBER", "SMEMBERS", "SCARD", "SSCAN",
        "SRANDMEMBER", "SINTER", "SUNION", "SDIFF", "SINTERCARD");

    private Commands()
    {
    }

    static boolean isWrite(final String command)
    {
        return WRITES.contains(command);
    }

    /** Whether the write {@code args} may make the store larger; an EXEC ({@link Transaction}) if any of its may. */
    static boolean mayGrow(final List<byte[]> args)
    {
        final String command = name(args);
        return command.equals("EXEC") ? Transaction.parse(args).commands().stream().anyMatch(Commands::mayGrow) :
            GROWING.contains(command);
    }

    static boolean isRead(final String command)
    {
        return READS.contains(command);
    }

    /**
     * Whether a read may run on a connection's thread (local reads): all but SCAN, whose bucket index belongs to the
     * writing thread (see {@link Keyspace}); a SCAN goes through the group even with local reads.
     */
    static boolean isLocalRead(final String command)
    {
        return READS.contains(command) && !command.equals("SCAN");
    }

    /** The command name of {@code args}, upper case. */
    static String name(final List<byte[]> args)
    {
        final byte[] b = args.getFirst();
        // the commands clients send most are named without building a string (per command, per member)
        return isSet(args) ? "SET" : is(b, 0, b.length, 'G', 'E', 'T') ? "GET" :
            new String(b, StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
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
        return is(bytes, from, length, 'S', 'E', 'T');
    }

    /**
     * Whether {@code b[from, from + length)} is these three upper-case letters in either case (0xDF clears a
     * letter's lower-case bit).
     */
    private static boolean is(final byte[] b, final int from, final int length, final char c0, final char c1,
        final char c2)
    {
        return length == 3 && (b[from] & 0xDF) == c0 && (b[from + 1] & 0xDF) == c1 && (b[from + 2] & 0xDF) == c2;
    }
}

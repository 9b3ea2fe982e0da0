package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The store's commands by kind: writes travel through the group; reads do too unless they are local reads. */
final class Commands
{
    /** Commands that change the state: they travel through the group. */
    private static final Set<String> WRITES = Set.of("SET", "SETNX", "GETSET", "DEL", "UNLINK", "INCR", "INCRBY",
        "DECR", "DECRBY", "MSET", "APPEND", "EXPIRE", "PEXPIRE", "PERSIST", "FLUSHDB", "FLUSHALL", "GETDEL");
    private static final Set<String> READS = Set.of("GET", "EXISTS", "MGET", "STRLEN", "TTL", "PTTL", "KEYS", "SCAN",
        "DBSIZE");

    private Commands()
    {
    }

    static boolean isWrite(final String command)
    {
        return WRITES.contains(command);
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
        if (b.length == 3) // the commands clients send most, named without building a string (per command, per member)
        {
            if (is(b, 'S', 'E', 'T'))
            {
                return "SET";
            }
            if (is(b, 'G', 'E', 'T'))
            {
                return "GET";
            }
        }
        return new String(b, StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
    }

    /** Whether the three bytes are these upper-case letters in either case (0xDF clears a letter's lower-case bit). */
    private static boolean is(final byte[] b, final char c0, final char c1, final char c2)
    {
        return (b[0] & 0xDF) == c0 && (b[1] & 0xDF) == c1 && (b[2] & 0xDF) == c2;
    }
}

package io.weft.examples.kv;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * INFO's keyspace_hits and keyspace_misses: the keys this member's clients' commands look up as Redis's reads do
 * (its lookupKeyRead), each a hit if it holds a live value, counted just before the command runs. Which keys, how
 * often and in what order, as redis-server 7.0.15 counts them, measured here command by command: a read's keys; of
 * a write, the keys it reads (GETDEL, GETEX, GETSET, SET with GET, COPY's source, the sources of the STORE commands
 * and of BITOP, every key of PFMERGE, its destination too, SORT's key, a BITFIELD of GETs, XACK, XCLAIM, ...);
 * XREAD's and XREADGROUP's streams twice (Redis checks them all, then serves them); none of MEMORY USAGE's. A command
 * of many keys of one type stops at a key of another, as Redis stops there with WRONGTYPE (XREADGROUP also at one
 * without its group). SORT's BY and GET patterns count as it looks them up ({@link Sort}). No syntax is checked
 * first, so a malformed command may count where Redis refuses it before its lookups.
 */
final class KeyspaceLookups
{
    /** What the keys of a command of many keys hold, or it ends at the first that does not. */
    private enum Holding
    {
        SET, SET_OR_ZSET, STRING, SKETCH, STREAM
    }

    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    /**
     * Counts the lookups of {@code args}, named {@code cmd} (upper case; a container's name alone), whose first key
     * is {@code first} (null: not made yet), about to run at {@code now} where {@code store} may be read (the
     * delivery thread, or a local read's event loop). A script's lookups count through the commands it calls
     * ({@link InnerCalls}), not its own keys. A command of one key made already allocates nothing.
     */
    void count(final KvStore store, final String cmd, final List<byte[]> args, final Key first, final long now)
    {
        switch (cmd)
        {
            case "GETDEL", "GETEX", "GETSET", "COPY", "SORT", "GEORADIUS", "GEORADIUSBYMEMBER", "XACK", "XCLAIM",
                 "XAUTOCLAIM" -> firstKey(store, cmd, args, first, now);
            case "SET" -> firstKeyIf(withGet(args), store, cmd, args, first, now);
            case "BITFIELD" -> firstKeyIf(onlyGets(args), store, cmd, args, first, now);
            case "ZRANGESTORE", "GEOSEARCHSTORE" -> of(store, CommandTable.readKeys(cmd, args), 1, null, now);
            case "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE" -> of(store, CommandTable.readKeys(cmd, args), 1,
                Holding.SET, now);
            case "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE" -> of(store, CommandTable.readKeys(cmd, args), 1,
                Holding.SET_OR_ZSET, now);
            case "BITOP" -> of(store, CommandTable.readKeys(cmd, args), 1, Holding.STRING, now);
            case "SINTER", "SUNION", "SDIFF", "SINTERCARD" -> of(store, CommandTable.readKeys(cmd, args), 0,
                Holding.SET, now);
            case "ZUNION", "ZINTER", "ZDIFF", "ZINTERCARD" -> of(store, CommandTable.readKeys(cmd, args), 0,
                Holding.SET_OR_ZSET, now);
            case "PFCOUNT", "PFMERGE" -> of(store, CommandTable.readKeys(cmd, args), 0, Holding.SKETCH, now);
            case "XREAD", "XREADGROUP" -> streams(store, cmd, args, now);
            case "MEMORY" -> { } // Redis finds the key without counting it (dbFind)
            default -> reads(store, cmd, args, first, now);
        }
    }

    long hits()
    {
        return hits.sum();
    }

    long misses()
    {
        return misses.sum();
    }

    void reset()
    {
        hits.reset();
        misses.reset();
    }

    /** Any other command: a read counts each key GETKEYS finds; a write (with no reads of its own) none. */
    private void reads(final KvStore store, final String cmd, final List<byte[]> args, final Key first,
        final long now)
    {
        if (!Commands.isRead(cmd) || cmd.startsWith("EVAL"))
        {
            return;
        }
        if (CommandTable.firstKeyOnly(cmd, args.size()))
        {
            lookFirst(store, args, first, now);
            return;
        }
        of(store, CommandTable.readKeys(cmd, args), 0, null, now);
    }

    private void firstKeyIf(final boolean reads, final KvStore store, final String cmd, final List<byte[]> args,
        final Key first, final long now)
    {
        if (reads)
        {
            firstKey(store, cmd, args, first, now);
        }
    }

    private void firstKey(final KvStore store, final String cmd, final List<byte[]> args, final Key first,
        final long now)
    {
        if (Commands.fitsArity(CommandTable.arity(cmd), args.size()))
        {
            lookFirst(store, args, first, now);
        }
    }

    /** The first key's lookup: {@code first}, or made from the command when it is not made yet. */
    private void lookFirst(final KvStore store, final List<byte[]> args, final Key first, final long now)
    {
        looked(store.stored(first != null ? first : new Key(args.get(1)), now) != null);
    }

    /**
     * Counts {@code keys} from index {@code from} (past a destination that is only written), in order; with
     * {@code holding} (null: any), up to and with the first that holds something else. Whether it stopped there.
     */
    private boolean of(final KvStore store, final List<byte[]> keys, final int from, final Holding holding,
        final long now)
    {
        for (int i = from; i < keys.size(); i++)
        {
            final Object stored = store.stored(new Key(keys.get(i)), now);
            looked(stored != null);
            if (holding != null && stored != null && !holds(stored, holding))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * XREAD and XREADGROUP: Redis looks each stream up as it checks them, up to the first of another type (or, for
     * XREADGROUP, the first that is not a stream with the group: NOGROUP), then again as it serves them.
     */
    private void streams(final KvStore store, final String cmd, final List<byte[]> args, final long now)
    {
        final List<byte[]> keys = CommandTable.readKeys(cmd, args);
        if (keys.isEmpty())
        {
            return;
        }
        final boolean checked = cmd.equals("XREAD") ? !of(store, keys, 0, Holding.STREAM, now) :
            withGroup(store, keys, args.get(2), now);
        if (checked)
        {
            of(store, keys, 0, null, now);
        }
    }

    /** XREADGROUP GROUP {@code group} ...: counts {@code keys} up to one without the group; whether each has it. */
    private boolean withGroup(final KvStore store, final List<byte[]> keys, final byte[] group, final long now)
    {
        for (final byte[] key : keys)
        {
            final Object stored = store.stored(new Key(key), now);
            looked(stored != null);
            if (!(stored instanceof StreamValue s && s.entries().groups.containsKey(group)))
            {
                return false;
            }
        }
        return true;
    }

    /** A key looked up: a hit if it holds a live value. */
    void looked(final boolean hit)
    {
        (hit ? hits : misses).increment();
    }

    /** SET key value ... GET: the old value is read. */
    private static boolean withGet(final List<byte[]> args)
    {
        for (int i = 3; i < args.size(); i++)
        {
            if (Commands.is(args.get(i), "GET"))
            {
                return true;
            }
        }
        return false;
    }

    /** A BITFIELD of GETs and OVERFLOWs alone reads as BITFIELD_RO does; one that writes looks up for writing. */
    private static boolean onlyGets(final List<byte[]> args)
    {
        int i = 2;
        while (i < args.size())
        {
            if (Commands.is(args.get(i), "GET"))
            {
                i += 3;
            }
            else if (Commands.is(args.get(i), "OVERFLOW"))
            {
                i += 2;
            }
            else
            {
                return false;
            }
        }
        return true;
    }

    private static boolean holds(final Object stored, final Holding holding)
    {
        final String type = Stored.type(stored);
        return switch (holding)
        {
            case SET -> type.equals("set");
            case SET_OR_ZSET -> type.equals("set") || type.equals("zset");
            case STRING -> type.equals("string");
            case SKETCH -> type.equals("string") && HllSketch.isSketch(Stored.value(stored));
            case STREAM -> type.equals("stream");
        };
    }
}

package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The clients of this member blocked in BLPOP, BRPOP, BLMOVE, BRPOPLPUSH or BLMPOP on lists, or in BZPOPMIN, BZPOPMAX
 * or BZMPOP on sorted sets. A blocking command travels through the group as a write and is applied at every member like
 * its non-blocking form: it pops from the first of its keys that holds an item, or changes nothing and answers nil. At
 * its origin, a nil before the deadline is not answered: the command waits here under each of its keys, and when a
 * batch stores one of them with items of the type it waits for (a push or ZADD, an LMOVE, a RENAME or COPY onto it:
 * {@link Keyspace#store}), the commands waiting on it longest are sent through the group again, as many as it holds
 * items but for those sent again already and not yet applied: one push wakes one waiter here, not each (a herd). The
 * first one applied takes the item at every member alike; one that finds the list empty (another member's took it)
 * waits again, in its place. Once a command sent again is applied here, its keys are looked at again: it may have
 * popped from another of its keys than the one that woke it, leaving that one's items to the next waiter. A wait ends
 * at its deadline (nil), by CLIENT UNBLOCK (nil or its error), when its client goes (no reply), or when the member
 * stops (the stop's error). XREAD and XREADGROUP with BLOCK wait so for a stream ({@link #reads}), XREAD travelling
 * as a read.
 * <p>
 * A command is {@link #IN_FLIGHT} (in the group), {@link #PARKED} (waiting here) or {@link #DONE} (answered or given
 * up); the delivery thread parks and wakes, a connection's event loop expires and cancels, under this object's monitor.
 * A command in the group is never answered by its deadline: the pop it may make must reach its client.
 */
final class BlockedClients
{
    static final int IN_FLIGHT = 0;
    static final int PARKED = 1;
    static final int DONE = 2;
    /** The longest timeout taken, in seconds (2^63 milliseconds, as Redis): longer ones are its out-of-range error. */
    private static final double MOST_SECONDS = Long.MAX_VALUE / 1000.0;
    /** Timeouts longer than this many seconds (about 31 years) wait as 0 does, for ever: a deadline in nanoseconds. */
    private static final double FOREVER_SECONDS = 1e9;

    private final Map<Key, List<Command>> waiting = new HashMap<>();
    /** Commands sent through the group again and not yet applied here, by the key that woke them. */
    private final Map<Key, Integer> sentAgain = new HashMap<>();
    private final Keyspace map;
    /** The stop's reply once the member stopped ({@link #failAll}): nothing waits from then on. */
    private Reply stopped;
    /** The last place given to a command waiting here ({@link Command#waitingSince}). */
    private long places;

    BlockedClients(final Keyspace map)
    {
        this.map = map;
    }

    /** Whether {@code command} (its name upper case) blocks: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BZPOPMIN, .... */
    static boolean blocks(final String command)
    {
        return awaited(command) != null && !reads(command);
    }

    /** Whether the command {@code args}, named {@code command}, blocks: those above, XREAD(GROUP) with BLOCK. */
    static boolean blocks(final String command, final List<byte[]> args)
    {
        return blocks(command) || reads(command) && StreamReads.blockArgument(args) != null;
    }

    /**
     * Whether {@code command} waits for a stream's entries (XREAD, XREADGROUP): each one waiting on a stream looks
     * again when the stream is stored (an XREAD takes nothing; of XREADGROUPs of one group, the first applied takes
     * the new entries and the others wait again), and an XREAD's {@code $} stands for the last ID of its first look
     * ({@link #park}).
     */
    private static boolean reads(final String command)
    {
        return command.startsWith("XREAD");
    }

    /** The type whose value under one of its keys ends a blocking command's wait; null: the command does not block. */
    private static Class<?> awaited(final String command)
    {
        return switch (command)
        {
            case "BLPOP", "BRPOP", "BLMOVE", "BRPOPLPUSH", "BLMPOP" -> ListValue.class;
            case "BZPOPMIN", "BZPOPMAX", "BZMPOP" -> ZSetValue.class;
            case "XREAD", "XREADGROUP" -> StreamValue.class;
            default -> null;
        };
    }

    /** A blocking command's timeout argument: the last, but BLMPOP's and BZMPOP's first. */
    static byte[] timeoutArgument(final List<byte[]> args)
    {
        return multiPop(Commands.name(args)) ? args.get(1) : args.getLast();
    }

    private static boolean multiPop(final String command)
    {
        return command.equals("BLMPOP") || command.equals("BZMPOP");
    }

    /**
     * An event loop: the deadline of the blocking command {@code args}, named {@code command}, from its timeout
     * (seconds; 0: none); 0 if it has no valid timeout, so that it goes through the group as any write
     * and its error comes back from there, as from inside a transaction.
     */
    static long deadline(final String command, final List<byte[]> args)
    {
        if (!Commands.fitsArity(command, args.size()))
        {
            return 0;
        }
        try
        {
            if (reads(command)) // BLOCK milliseconds
            {
                final long ms = StreamCommands.blockMilliseconds(StreamReads.blockArgument(args));
                return ms == 0 || ms > FOREVER_SECONDS * 1000 ? Long.MAX_VALUE : System.nanoTime() + ms * 1_000_000;
            }
            final double seconds = timeout(timeoutArgument(args));
            return seconds == 0 || seconds > FOREVER_SECONDS ? Long.MAX_VALUE :
                System.nanoTime() + (long)(seconds * 1e9);
        }
        catch (final KvStore.SyntaxError ex)
        {
            return 0;
        }
    }

    /** A blocking command's timeout in seconds; Redis's errors for one that is not a number, negative, or too long. */
    static double timeout(final byte[] word)
    {
        final double seconds;
        try
        {
            seconds = Double.parseDouble(new String(word, java.nio.charset.StandardCharsets.US_ASCII));
        }
        catch (final NumberFormatException ex)
        {
            throw new KvStore.SyntaxError("ERR timeout is not a float or out of range");
        }
        if (Double.isNaN(seconds))
        {
            throw new KvStore.SyntaxError("ERR timeout is not a float or out of range");
        }
        if (seconds < 0)
        {
            throw new KvStore.SyntaxError("ERR timeout is negative");
        }
        if (seconds > MOST_SECONDS)
        {
            throw new KvStore.SyntaxError("ERR timeout is out of range");
        }
        return seconds;
    }

    /** What a blocking command answers when nothing came: nil, an array's but for BLMOVE's and BRPOPLPUSH's. */
    static Reply nothing(final Command command)
    {
        final String name = Commands.name(command.args);
        return name.equals("BLMOVE") || name.equals("BRPOPLPUSH") ? Reply.NIL : Reply.NIL_ARRAY;
    }

    /**
     * The delivery thread, at the origin of blocking {@code command} applied with {@code reply}: null if it waits here
     * instead of being answered (it popped nothing and has time left), else its answer: {@code reply}, or the stop's
     * error once the member stopped (a stop racing this delivery: nothing would wake it).
     */
    synchronized Reply park(final Command command, final Reply reply, final long now)
    {
        if (command.wokenOn != null)
        {
            sentAgain.computeIfPresent(command.wokenOn, (key, n) -> n == 1 ? null : n - 1);
            command.wokenOn = null;
            map.readyLists().addAll(keys(command)); // what it left under its keys may end another's wait
        }
        final boolean nothing = reply == Reply.NIL || reply == Reply.NIL_ARRAY;
        if (nothing && command.unblockedWith != null && stopped == null) // CLIENT UNBLOCK while it was in the group
        {
            command.blockState = DONE;
            return command.unblockedWith;
        }
        if (!nothing || System.nanoTime() - command.blockedUntil >= 0 || command.blockState != IN_FLIGHT ||
            stopped != null)
        {
            command.blockState = DONE;
            return nothing && stopped != null ? stopped : reply;
        }
        command.blockState = PARKED;
        if (command.waitingSince == 0)
        {
            command.waitingSince = ++places;
            if (Commands.name(command.args).equals("XREAD"))
            {
                StreamCommands.resolveLastIds(map, command.args, now); // a look again reads after the same IDs
            }
        }
        for (final Key key : keys(command))
        {
            waitInPlace(waiting.computeIfAbsent(key, k -> new ArrayList<>()), command);
        }
        map.recordReadyLists(true);
        return null;
    }

    /**
     * The delivery thread, after a batch: the commands to send through the group again, in the order they came: on
     * each list or sorted set the batch stored ({@link Keyspace#store}) or a woken command applied looked at again,
     * that still holds some of the type each waits for, those waiting longest, as many as its items but for the
     * commands it woke already that are still in the group.
     */
    List<Command> woken()
    {
        final Set<Key> ready = map.readyLists();
        if (ready.isEmpty())
        {
            return List.of(); // no list a client waits on was filled: the usual batch takes no lock
        }
        final long now = System.currentTimeMillis(); // whether a list is live: this member's decision alone
        final List<Command> sent = new ArrayList<>();
        synchronized (this)
        {
            for (final Key key : ready)
            {
                final List<Command> commands = waiting.get(key);
                if (commands == null)
                {
                    continue;
                }
                // a key stored and replaced by another type later in the batch wakes no one (list() would throw
                // WRONGTYPE on this thread and stop the member), nor does a sorted set wake a list's waiter
                final Object stored = map.liveStored(key, now);
                int items = stored instanceof WriterOwned<?> value ? value.size() - sentAgain.getOrDefault(key, 0) : 0;
                final boolean stream = stored instanceof StreamValue;
                for (final Command c : items > 0 || stream ? List.copyOf(commands) : List.<Command>of())
                {
                    if (stream && waitsFor(c, stored)) // every reader looks again: a read takes no item
                    {
                        c.blockState = IN_FLIGHT;
                        sent.add(c);
                        forget(c);
                    }
                    else if (items > 0 && waitsFor(c, stored))
                    {
                        items--;
                        c.blockState = IN_FLIGHT;
                        c.wokenOn = key;
                        sentAgain.merge(key, 1, Integer::sum);
                        sent.add(c);
                        forget(c);
                    }
                }
            }
            map.recordReadyLists(!waiting.isEmpty());
        }
        ready.clear();
        return sent;
    }

    /** An event loop, at {@code command}'s deadline: true if it waited here, and is to be answered with nothing. */
    synchronized boolean expire(final Command command)
    {
        if (command.blockState != PARKED)
        {
            return false; // in the group: its reply comes from there, nil or an item
        }
        command.blockState = DONE;
        forget(command);
        return true;
    }

    /**
     * An event loop, CLIENT UNBLOCK: ends {@code command}'s wait with {@code reply}; false if it waited no more. One
     * parked here is answered now; one in the group answers {@code reply} if it comes back with nothing, else the
     * item it popped, since every member applied that pop.
     */
    boolean unblock(final Command command, final Reply reply)
    {
        final boolean parked;
        synchronized (this)
        {
            if (command.blockState == DONE)
            {
                return false;
            }
            parked = command.blockState == PARKED;
            if (parked)
            {
                command.blockState = DONE;
                forget(command);
            }
            else
            {
                command.unblockedWith = reply;
            }
        }
        if (parked)
        {
            command.complete(reply); // outside the monitor: its connection is told
        }
        return true;
    }

    /** An event loop whose client went: {@code command} waits no more, and is not sent again. */
    synchronized void cancel(final Command command)
    {
        command.blockState = DONE;
        forget(command);
    }

    /** The member stops: every waiting command is answered {@code reply}. */
    void failAll(final Reply reply)
    {
        final List<Command> failed = new ArrayList<>();
        synchronized (this)
        {
            stopped = reply;
            for (final List<Command> commands : waiting.values())
            {
                for (final Command c : commands)
                {
                    if (c.blockState == PARKED)
                    {
                        c.blockState = DONE;
                        failed.add(c);
                    }
                }
            }
            waiting.clear();
            sentAgain.clear();
        }
        failed.forEach(c -> c.complete(reply)); // outside the monitor: a reply wakes its connection
    }

    /**
     * The clients blocked here (INFO's blocked_clients): those waiting here, and those woken whose pop is in the group
     * until it is applied here (it answers them, or they wait again). Allocates: for INFO and tests.
     */
    synchronized int size()
    {
        return (int)waiting.values().stream().flatMap(List::stream).distinct().count() +
            sentAgain.values().stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * Adds {@code command} to a key's waiters in the order they first waited: one woken that waits again (a client of
     * another member took the item) keeps its place before those that came after it, as in Redis, where it would
     * have been served.
     */
    private static void waitInPlace(final List<Command> commands, final Command command)
    {
        int at = commands.size();
        while (at > 0 && commands.get(at - 1).waitingSince > command.waitingSince)
        {
            at--;
        }
        commands.add(at, command);
    }

    private void forget(final Command command)
    {
        for (final Key key : keys(command))
        {
            final List<Command> commands = waiting.get(key);
            if (commands != null && commands.remove(command) && commands.isEmpty())
            {
                waiting.remove(key);
            }
        }
    }

    /** Whether {@code stored} is what {@code command} waits for: a list for BLPOP, a sorted set for BZPOPMIN, ... */
    private static boolean waitsFor(final Command command, final Object stored)
    {
        return awaited(Commands.name(command.args)).isInstance(stored);
    }

    /** The keys a blocking command waits on: BLMOVE's and BRPOPLPUSH's source, the others' keys. */
    private static List<Key> keys(final Command command)
    {
        final List<byte[]> args = command.args;
        final String name = Commands.name(args);
        if (reads(name))
        {
            return StreamReads.keys(args);
        }
        if (multiPop(name)) // BZMPOP timeout numkeys key [key ...] MIN|MAX ...: applied, so numkeys is valid
        {
            return Key.all(args.subList(0, 3 + (int)ValueEdits.integer(args.get(2))), 3);
        }
        return name.equals("BLMOVE") || name.equals("BRPOPLPUSH") ? List.of(new Key(args.get(1))) :
            Key.all(args.subList(0, args.size() - 1), 1);
    }
}

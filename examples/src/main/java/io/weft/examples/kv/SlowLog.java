package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * SLOWLOG GET [count], LEN, RESET: the commands of this member's clients whose applying took at least
 * {@code slowlog-log-slower-than} microseconds (10,000 unless {@code weft kv --slowlog-log-slower-than} says
 * otherwise; 0 logs every one, a negative value none), newest first, at most {@code slowlog-max-len} (128) of them, as
 * Redis keeps them: an id, the Unix time, the microseconds, the arguments (at most 32, each cut at 128 bytes, saying
 * how many more), the client's address and name. A command's time is the delivery thread's, applying it (not the
 * wait for its batch's turn in the group's order, which the client's round trip holds), from the end of the one before
 * it in its batch. Commands a connection answers itself (PING, INFO, CLIENT, ...; reads with {@code --reads local})
 * are timed and logged by the event loop that ran them, their secrets redacted as Redis redacts them (AUTH, ...);
 * other members' commands are logged by those members. An EXEC is not logged but each command it ran, with its own
 * time, and a script's calls are logged before the script, each with its own time, from {@value #SCRIPT_ADDR}
 * without a name (in an EXEC's EVAL too), and an EVALSHA as its client sent it (it travels as EVAL with its script's
 * body: {@link Command#sent}), as redis-server 7.0.15 logs them. The delivery thread and event loops add entries,
 * event loops read them: all under its monitor.
 */
final class SlowLog
{
    /** The client address Redis gives the calls of a script (its Lua client has no peer). */
    static final String SCRIPT_ADDR = "?:0";
    private static final byte[] REDACTED = ascii("(redacted)");
    /** Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING. */
    private static final int MAX_ARGS = 32;
    private static final int MAX_STRING = 128;
    private static final int GET_DEFAULT = 10;

    /** A logged command. */
    private record Entry(long id, long unixSeconds, long micros, List<byte[]> args, String addr, String name)
    {
        Reply reply()
        {
            final List<Reply> words = new ArrayList<>(args.size());
            args.forEach(a -> words.add(new Reply.Bulk(a)));
            return new Reply.Array(List.of(new Reply.Int(id), new Reply.Int(unixSeconds), new Reply.Int(micros),
                new Reply.Array(words), Reply.Bulk.of(addr), Reply.Bulk.of(name)));
        }
    }

    private volatile long slowerThanMicros = KvReplica.SLOWLOG_SLOWER_THAN_MICROS;
    private volatile int maxLen = KvReplica.SLOWLOG_MAX_LEN;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long nextId;

    /**
     * Logs the commands that take at least {@code micros} microseconds (0: every one; negative: none), the newest
     * {@code max} of them.
     *
     * @throws IllegalArgumentException {@code max} is negative.
     */
    synchronized void configure(final long micros, final int max)
    {
        if (max < 0)
        {
            throw new IllegalArgumentException("slowlog-max-len must be 0 or more, was " + max);
        }
        slowerThanMicros = micros;
        maxLen = max;
        trim();
    }

    long slowerThanMicros()
    {
        return slowerThanMicros;
    }

    int maxLen()
    {
        return maxLen;
    }

    /**
     * Delivery thread: {@code command} took {@code nanos} to apply; logged if that is at least the threshold. Not an
     * EXEC: the commands it ran are logged each (Redis's EXEC skips the slow log).
     */
    void offer(final Command command, final long nanos)
    {
        if (!Commands.is(command.args.getFirst(), "EXEC"))
        {
            offer(command.sentArgs(), addr(command.client), name(command.client), nanos);
        }
    }

    /**
     * {@code args} of {@code client} took {@code nanos}: a command an EXEC ran (the delivery thread), a connection
     * command or a local read (its event loop), or (client null) a script's call, logged as Redis logs those.
     */
    void offer(final List<byte[]> args, final ClientSession client, final long nanos)
    {
        offer(args, client == null ? SCRIPT_ADDR : addr(client), name(client), nanos);
    }

    // a client's name and address are Strings set by its event loop: a racy read sees one whole, old or new
    private static String addr(final ClientSession client)
    {
        return client == null ? "" : client.addr;
    }

    private static String name(final ClientSession client)
    {
        return client == null || client.name == null ? "" : client.name;
    }

    private void offer(final List<byte[]> args, final String addr, final String name, final long nanos)
    {
        final long micros = nanos / 1000;
        final long threshold = slowerThanMicros;
        if (threshold < 0 || micros < threshold)
        {
            return;
        }
        final List<byte[]> logged = logged(args);
        synchronized (this)
        {
            entries.addFirst(new Entry(nextId++, System.currentTimeMillis() / 1000, micros, logged, addr, name));
            trim();
        }
    }

    /** SLOWLOG's GET, LEN and RESET (the subcommand and its words checked: {@link Subcommands}). */
    Reply answer(final List<byte[]> args)
    {
        return switch (Commands.word(args.get(1)))
        {
            case "GET" -> get(args);
            case "LEN" -> new Reply.Int(length());
            case "RESET" -> reset();
            default -> Subcommands.help("SLOWLOG");
        };
    }

    private Reply get(final List<byte[]> args)
    {
        if (args.size() > 3)
        {
            return Reply.error("ERR unknown subcommand or wrong number of arguments for '" +
                CommandTable.cut(args.get(1)) + "'. Try SLOWLOG HELP.");
        }
        long count = GET_DEFAULT;
        if (args.size() == 3)
        {
            final long given = ValueEdits.atLeast(args.get(2), -1, "ERR count should be greater than or equal to -1");
            count = given == -1 ? Long.MAX_VALUE : given;
        }
        final List<Reply> out = new ArrayList<>();
        synchronized (this)
        {
            final Iterator<Entry> newest = entries.iterator();
            while (newest.hasNext() && out.size() < count)
            {
                out.add(newest.next().reply());
            }
        }
        return new Reply.Array(out);
    }

    private synchronized int length()
    {
        return entries.size();
    }

    private synchronized Reply reset()
    {
        entries.clear();
        return Reply.OK;
    }

    private void trim()
    {
        while (entries.size() > maxLen)
        {
            entries.removeLast();
        }
    }

    /** {@code args} as an entry keeps them: at most 32, the last saying how many more; each at most 128 bytes. */
    private static List<byte[]> logged(final List<byte[]> args)
    {
        final int kept = args.size() > MAX_ARGS ? MAX_ARGS - 1 : args.size();
        final List<byte[]> out = new ArrayList<>(kept + 1);
        final String cmd = Commands.name(args);
        for (int i = 0; i < kept; i++)
        {
            final byte[] a = redacts(cmd, args, i) ? REDACTED : args.get(i);
            out.add(a.length <= MAX_STRING ? a.clone() : concat(Arrays.copyOf(a, MAX_STRING),
                "... (" + (a.length - MAX_STRING) + " more bytes)"));
        }
        if (kept < args.size())
        {
            out.add(ascii("... (" + (args.size() - kept) + " more arguments)"));
        }
        return out;
    }

    /**
     * Whether the word {@code i} of {@code args}, a command named {@code cmd}, is a secret Redis logs as
     * {@code (redacted)}: AUTH's words, HELLO's user name and password, CONFIG SET's value of requirepass or
     * masterauth, ACL SETUSER's words.
     */
    private static boolean redacts(final String cmd, final List<byte[]> args, final int i)
    {
        return i > 0 && switch (cmd)
        {
            case "AUTH" -> true;
            case "HELLO" -> i >= 3 && Commands.is(args.get(i - 1), "AUTH") || i >= 4 && Commands.is(args.get(i - 2),
                "AUTH");
            case "CONFIG" -> i >= 3 && i % 2 == 1 && Commands.is(args.get(1), "SET") &&
                (Commands.is(args.get(i - 1), "REQUIREPASS") || Commands.is(args.get(i - 1), "MASTERAUTH"));
            case "ACL" -> i >= 2 && Commands.is(args.get(1), "SETUSER");
            default -> false;
        };
    }

    private static byte[] concat(final byte[] head, final String tail)
    {
        final byte[] t = ascii(tail);
        final byte[] out = Arrays.copyOf(head, head.length + t.length);
        System.arraycopy(t, 0, out, head.length, t.length);
        return out;
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}

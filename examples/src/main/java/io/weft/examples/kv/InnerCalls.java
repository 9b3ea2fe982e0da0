package io.weft.examples.kv;

import java.util.List;

/**
 * What an EXEC or a script of this member's own client runs, counted as Redis counts it: each command under its own
 * name in {@link CommandStats}, with its time and its error, and in the {@link SlowLog} if slow, on the delivery
 * thread as it runs (nothing kept per call: a script may make millions), and the EXEC or EVAL as failed when any of
 * them failed (an EXEC also when a connection command it queued fails, answered at EXEC on its event loop), once
 * its reply is written. The store counts through {@link #call} only while {@link BatchApplier} applies such a command
 * of its own; another member's, a log's or a local read's count nothing.
 */
final class InnerCalls
{
    private final CommandStats stats;
    private final SlowLog slowLog;
    private final RdbSaver saver;
    /** The EXEC's client, whose commands its calls are; null for a script, whose calls Redis logs as no client's. */
    private final ClientSession client;
    /** {@link Command#sent} of the EXEC: its commands as its client sent them; null if as they run. */
    private final List<List<byte[]>> sent;
    /** The EXEC's commands run so far. */
    private int ran;
    /** How many calls run now, one inside another: a script's in an EXEC's EVAL are a second. */
    private int depth;
    private boolean failed;
    /** Whether the EXEC ran a BGSAVE, which this member begins once the EXEC is done. */
    private boolean saveAfter;
    /** Whether the script answered with a command's error, counted as that command's (not again as its own). */
    private boolean answeredCounted;

    /**
     * Counts the calls of an EXEC of {@code client} or (null) of a script in {@code stats}: the commands' calls and
     * errors, and the keys their reads look up; logs the slow ones in {@code slowLog}; an EXEC's BGSAVE asks
     * {@code saver}.
     */
    InnerCalls(final CommandStats stats, final SlowLog slowLog, final RdbSaver saver, final ClientSession client)
    {
        this(stats, slowLog, saver, client, null);
    }

    private InnerCalls(final CommandStats stats, final SlowLog slowLog, final RdbSaver saver,
        final ClientSession client, final List<List<byte[]>> sent)
    {
        this.stats = stats;
        this.slowLog = slowLog;
        this.saver = saver;
        this.client = client;
        this.sent = sent;
    }

    /** The calls of {@code command} if it runs others ({@link #runsOthers}: an EXEC or a script), else null. */
    static InnerCalls of(final Command command, final CommandStats stats, final SlowLog slowLog, final RdbSaver saver)
    {
        if (!runsOthers(command.args)) // most: nothing more looked at
        {
            return null;
        }
        final boolean exec = Commands.is(command.args.getFirst(), "EXEC");
        return new InnerCalls(stats, slowLog, saver, exec ? command.client : null, exec ? command.sent : null);
    }

    /** Whether the command {@code args} runs others: EXEC, and EVAL (EVALSHA travels as EVAL). No allocation. */
    static boolean runsOthers(final List<byte[]> args)
    {
        final byte[] name = args.getFirst();
        return Commands.is(name, "EXEC") || Commands.is(name, "EVAL") || Commands.is(name, "EVAL_RO");
    }

    /** The delivery thread: runs {@code command} for an EXEC or a script, counted if the store counts now. */
    static Reply call(final KvStore store, final List<byte[]> command, final long now)
    {
        final InnerCalls calls = store.counting;
        if (calls == null)
        {
            return store.apply(command, now);
        }
        final String cmd = Commands.name(command);
        calls.stats.read(store, cmd, command, null, now);
        // the EXEC's own command, as its client sent it; a script's call (in an EXEC's EVAL too) is no client's
        final boolean own = calls.client != null && calls.depth == 0;
        final List<byte[]> sent = own ? calls.sent(command) : command;
        final long start = System.nanoTime();
        final Reply reply;
        calls.depth++;
        try
        {
            reply = Commands.is(command.getFirst(), "BGSAVE") ? calls.bgsave() : store.apply(command, now);
        }
        finally
        {
            calls.depth--;
        }
        final String error = reply instanceof Reply.Error e ? e.text() : null;
        // an EVAL in an EXEC whose script answered a command's error: counted as that command's, not again; reset
        // here, so the next command of the EXEC starts without it
        final boolean counted = calls.answeredCounted;
        calls.answeredCounted = false;
        final long nanos = System.nanoTime() - start;
        calls.stats.ran(sent == command ? CommandTable.listed(cmd, command) :
            CommandTable.listed(Commands.name(sent), sent), nanos, error, counted);
        calls.slowLog.offer(sent, own ? calls.client : null, nanos);
        calls.failed |= error != null;
        return reply;
    }

    /** The EXEC's next command, {@code command}, as its client sent it. */
    private List<byte[]> sent(final List<byte[]> command)
    {
        final List<byte[]> words = sent != null && ran < sent.size() ? sent.get(ran) : null;
        ran++;
        return words != null ? words : command;
    }

    /** A BGSAVE in the EXEC (scripts may not call it): Redis's reply; this member saves once the EXEC is done. */
    private Reply bgsave()
    {
        final Reply reply = saver.scheduled();
        saveAfter |= reply == RdbSaver.SCHEDULED;
        return reply;
    }

    /** Whether the EXEC ran a BGSAVE that this member is to begin now that the EXEC is done. */
    boolean saveAfter()
    {
        return saveAfter;
    }

    /** Event loop: a connection command of the EXEC, answered at EXEC in its place, failed: so does the EXEC. */
    void failedAtExec()
    {
        failed = true;
    }

    /** The script ended, answering (returning or raising) a command's error that was {@code counted} as it ran. */
    void answered(final boolean counted)
    {
        answeredCounted = counted;
    }

    boolean anyFailed()
    {
        return failed;
    }

    /** Whether the EVAL's error reply is a command's error the script answered, counted with that command's. */
    boolean answeredCounted()
    {
        return answeredCounted;
    }
}

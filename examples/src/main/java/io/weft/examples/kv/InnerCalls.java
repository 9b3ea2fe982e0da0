package io.weft.examples.kv;

import java.util.Arrays;
import java.util.List;

/**
 * The commands an EXEC or a script of this member's own client ran, recorded on the delivery thread as each runs and
 * counted by {@link CommandStats} when the EXEC's or the script's reply is written: Redis counts each under its own
 * name, with its time and its error, and the EXEC or EVAL as failed when any of them failed. The store counts through
 * {@link #call} only while {@link BatchApplier} applies such a command of its own; another member's, a log's or a
 * local read's count nothing.
 */
final class InnerCalls
{
    private final CommandStats stats;
    private String[] names = new String[8];
    private long[] nanos = new long[8];
    /** The error each replied, null for none. */
    private String[] errors = new String[8];
    private int size;
    /** The error a script raised from a command's, which it then answered: counted as the command's, not again. */
    private Object raised;
    private boolean answeredRaised;

    /** Counts in {@code stats}: the commands' calls when the reply is written, the keys their reads look up now. */
    InnerCalls(final CommandStats stats)
    {
        this.stats = stats;
    }

    /** Whether the command {@code args} runs others: EXEC, and EVAL (EVALSHA travels as EVAL). No allocation. */
    static boolean runsOthers(final List<byte[]> args)
    {
        final byte[] name = args.getFirst();
        return Commands.is(name, "EXEC") || Commands.is(name, "EVAL") || Commands.is(name, "EVAL_RO");
    }

    /** The delivery thread: runs {@code command} for an EXEC or a script, recorded if the store counts now. */
    static Reply call(final KvStore store, final List<byte[]> command, final long now)
    {
        final InnerCalls calls = store.counting;
        if (calls == null)
        {
            return store.apply(command, now);
        }
        final String cmd = Commands.name(command);
        calls.stats.read(store, cmd, command, null, now);
        final long start = System.nanoTime();
        final Reply reply = store.apply(command, now);
        calls.add(CommandTable.listed(cmd, command), System.nanoTime() - start,
            reply instanceof Reply.Error e ? e.text() : null);
        return reply;
    }

    private void add(final String name, final long took, final String error)
    {
        if (size == names.length)
        {
            names = Arrays.copyOf(names, size * 2);
            nanos = Arrays.copyOf(nanos, size * 2);
            errors = Arrays.copyOf(errors, size * 2);
        }
        names[size] = name;
        nanos[size] = took;
        errors[size++] = error;
    }

    /** A script raises {@code error}, made of the error of the command it just called. */
    void raising(final Object error)
    {
        raised = error;
    }

    /** The script ended with {@code thrown}: if it is the command's error it raised, its reply is counted already. */
    void ended(final Object thrown)
    {
        answeredRaised = thrown != null && thrown == raised;
    }

    int size()
    {
        return size;
    }

    /** The {@link Command#listed} name of the {@code i}th command run; null for none (an unknown command). */
    String name(final int i)
    {
        return names[i];
    }

    long nanos(final int i)
    {
        return nanos[i];
    }

    /** The error the {@code i}th command replied, or null. */
    String error(final int i)
    {
        return errors[i];
    }

    boolean anyFailed()
    {
        for (int i = 0; i < size; i++)
        {
            if (errors[i] != null)
            {
                return true;
            }
        }
        return false;
    }

    /** Whether the EVAL's error reply is a command's error the script raised, counted with that command's. */
    boolean answeredRaised()
    {
        return answeredRaised;
    }
}

package io.weft.examples.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * A client's command on its way to a reply, and the slot the reply lands in: the connection's event loop creates it
 * and queues it in command order; the delivery thread (or a refusal) sets the reply once and tells the connection.
 * One object per command where a future, its completion node and a callback took three.
 */
final class Command
{
    private static final VarHandle REPLY;

    static
    {
        try
        {
            REPLY = MethodHandles.lookup().findVarHandle(Command.class, "reply", Reply.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    final List<byte[]> args;
    final boolean write;
    /** The protocol its reply is written in: HELLO may change a connection's protocol between two commands. */
    final boolean resp3;
    /** Bytes it adds to a batch: a write 4, plus 4 and the length of each argument; a read, a place only, none. */
    final int bytes;
    /**
     * A blocking command's deadline ({@link System#nanoTime}; {@link Long#MAX_VALUE}: none), 0 for any other: its
     * origin waits for an item instead of answering nil until then ({@link BlockedClients}).
     */
    final long blockedUntil;
    /** Where a blocking command is ({@link BlockedClients}' states); guarded by its monitor. */
    int blockState;
    /** The key whose items sent a parked blocking command through the group again; null while it is not woken. */
    Key wokenOn;
    /**
     * What a blocking command answers if it comes back from the group with nothing, after CLIENT UNBLOCK; guarded by
     * {@link BlockedClients}' monitor.
     */
    Reply unblockedWith;
    /** A blocking command's place among the waiters of its member, from its first wait; 0 before it. */
    long waitingSince;
    /** Event loop: CLIENT REPLY OFF or SKIP: the reply is not written ({@link ClientSession#answerOrNot}). */
    boolean unsent;
    /**
     * The name INFO's commandstats count it under ({@code get}, {@code client|list}: {@link CommandTable#listed});
     * null for none (a push, an unknown command). Set by its event loop, before it is queued for the group (the
     * queue's hand-over makes it visible to the delivery thread, which reads it).
     */
    String listed;
    /**
     * The words its client sent where they differ from those it travels with, which the {@link SlowLog} logs and INFO's
     * commandstats count, as Redis does: an EVALSHA's, one list (it goes as EVAL with its script's body); an EXEC's,
     * one a store command it runs, null where sent as it goes ({@link Transaction#sent}). Null when all go as sent. Set
     * by its event loop before it is queued for the group, as {@link #listed} is.
     */
    List<List<byte[]>> sent;
    /** Refused before it ran (arity, NOAUTH, ...): a rejected call, not a failed one ({@link CommandStats}). */
    boolean rejected;
    /** Run by its connection's event loop (a connection command, a local read): logged there ({@link SlowLog}). */
    boolean ranHere;
    /** The time running it took, in nanoseconds: set before its reply is (a blocking command's runs add up). */
    long runNanos;
    /** What an EXEC or a script of it ran ({@link CommandStats}); null for none. Set before its reply is. */
    InnerCalls inner;
    /** The connection's session it came from (its address and name for the {@link SlowLog}); null for none. */
    final ClientSession client;
    /** Told once the reply is set, on the thread that set it; null for a reply known at once. */
    private final Runnable onReply;
    private Reply reply;

    /** A command of {@code client} for the group; {@code onReply} is told when its reply is set. */
    Command(final List<byte[]> args, final boolean write, final ClientSession client, final Runnable onReply)
    {
        this(args, write, client.resp3, client, onReply, 0);
    }

    /** A command for the group that blocks until {@code blockedUntil} ({@link #blockedUntil}). */
    Command(final List<byte[]> args, final boolean write, final boolean resp3, final ClientSession client,
        final Runnable onReply, final long blockedUntil)
    {
        this.blockedUntil = blockedUntil;
        this.client = client;
        this.args = args;
        this.write = write;
        this.resp3 = resp3;
        this.onReply = onReply;
        int size = 4;
        for (final byte[] a : args)
        {
            size += 4 + a.length;
        }
        this.bytes = write ? size : 0;
    }

    private Command(final Reply reply, final boolean resp3)
    {
        this.args = List.of();
        this.write = false;
        this.resp3 = resp3;
        this.bytes = 0;
        this.onReply = null;
        this.reply = reply;
        this.blockedUntil = 0;
        this.client = null;
    }

    /** Sets {@link #sent}; this command. */
    Command sent(final List<List<byte[]>> words)
    {
        sent = words;
        return this;
    }

    /** The words of this command its client sent (an EVALSHA's where it goes as EVAL). */
    List<byte[]> sentArgs()
    {
        return sent == null ? args : sent.getFirst();
    }

    /** The arguments of the writes among {@code commands}, in order: what a batch carries. */
    static List<List<byte[]>> writes(final List<Command> commands)
    {
        final List<List<byte[]>> writes = new ArrayList<>(commands.size());
        for (final Command command : commands)
        {
            if (command.write)
            {
                writes.add(command.args);
            }
        }
        return writes;
    }

    /** A reply its connection sets later, on its event loop (EXEC's with connection commands, {@link Transaction}). */
    static Command later(final boolean resp3)
    {
        return new Command(List.of(), false, resp3, null, null, 0);
    }

    /** A command answered at once (a local read, a connection command). */
    static Command answered(final Reply reply, final boolean resp3)
    {
        return new Command(reply, resp3);
    }

    /** A read that ran at once ({@code args}, a local read): answered {@code reply}, rejected if it is its refusal. */
    static Command read(final Reply reply, final List<byte[]> args, final boolean resp3)
    {
        final Command command = new Command(reply, resp3);
        command.rejected = CommandTable.isRefusal(args, reply);
        command.ranHere = !command.rejected;
        return command;
    }

    /** A connection command its event loop ran: answered {@code reply}. */
    static Command ran(final Reply reply, final boolean resp3)
    {
        final Command command = new Command(reply, resp3);
        command.ranHere = true;
        return command;
    }

    /** A command refused before it ran, answered {@code refusal} at once ({@link #rejected}). */
    static Command refused(final Reply refusal, final boolean resp3)
    {
        final Command command = new Command(refusal, resp3);
        command.rejected = true;
        return command;
    }

    /**
     * Sets the reply unless one is set already (a refusal racing the delivery: the first stands) and tells the
     * connection. Release: the event loop that reads the reply with acquire sees the reply object whole.
     */
    void complete(final Reply answer)
    {
        if (REPLY.compareAndSet(this, null, answer) && onReply != null)
        {
            onReply.run();
        }
    }

    /**
     * Event loop, after dispatching it: a command answered at once ran from {@code start} ({@link System#nanoTime})
     * to now; one sent through the group is timed by the delivery thread, the only writer of {@link #runNanos} then.
     */
    void answeredSince(final long start)
    {
        if (isDone())
        {
            runNanos += System.nanoTime() - start;
        }
    }

    /** The reply, or null while the command waits. */
    Reply reply()
    {
        return (Reply)REPLY.getAcquire(this);
    }

    boolean isDone()
    {
        return reply() != null;
    }

    /** Whether {@code command} (null: none) is answered: a connection's last command in the group, say. */
    static boolean settled(final Command command)
    {
        return command == null || command.isDone();
    }

    /** {@code command} if it is still waiting for its reply, else null. */
    static Command pending(final Command command)
    {
        return settled(command) ? null : command;
    }
}

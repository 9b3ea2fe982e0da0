package io.weft.examples.kv;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client connection: takes commands decoded by {@link RespDecoder}, answers the connection-level ones itself
 * ({@link ConnectionCommands}: PING, HELLO, CLIENT, INFO, QUIT, WATCH, SUBSCRIBE, ...), hands the store's commands
 * to the {@link KvReplica}, and writes the replies in command order (pipelining), whatever order they complete in,
 * with the messages of its subscriptions among them. A client that pipelines more than {@value #MAX_PENDING} commands
 * is not read until replies drain, and one that does not read its replies is not read either ({@link ReplyQueue}). A
 * protocol error is answered and the connection closed, as Redis does.
 */
final class KvConnection extends ChannelInboundHandlerAdapter
{
    static final int MAX_PENDING = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(KvConnection.class);

    private final KvReplica replica;
    /** Replies due, in command order; made with its context. */
    private ReplyQueue replies;
    final ClientSession session;
    private final Clients clients;
    private final ConnectionCommands connectionCommands;
    /** This connection's last command sent through the group: a local read waits for it (its replies in order). */
    private Command lastInGroup;
    private final AtomicBoolean drainRequested = new AtomicBoolean();
    /** Told by the delivery thread when a command's reply is set; one object for all of them. */
    private final Runnable replied = this::requestDrain;
    private final Runnable drainTask = () ->
    {
        drainRequested.set(false);
        drain();
    };
    private ChannelHandlerContext ctx;
    private boolean quitting;
    /** Event loop: inside a read burst, replies ready at once (local reads, PING) wait for its end: one write each. */
    private boolean reading;
    /** Event loop: the read burst queued commands for the group, to be proposed at the end of the loop's pass. */
    private boolean submitted;
    /** Event loop: the open MULTI, or null. */
    private Transaction transaction;
    /** Event loop: the keys watched until EXEC, DISCARD, UNWATCH or RESET, in the order watched. */
    final Map<Key, Transaction.Watch> watching = new LinkedHashMap<>();
    /** Event loop: the timers of this connection's blocking commands not yet answered; made with its context. */
    private BlockTimers timers;
    /** Event loop: the channels and patterns subscribed, once the first SUBSCRIBE came; null before. */
    private Subscriptions subscriptions;
    /** Event loop: the command this client waits on (blocking, or {@link #heldFor}); later ones are held. */
    private Command waitingOn;
    /** Event loop: the transaction whose EXEC is {@link #waitingOn}, to answer its connection commands; or null. */
    private Transaction answeringAtExec;
    /** Event loop: the commands read while {@link #waitingOn}, run in order once it is answered, as Redis runs them. */
    private final ArrayDeque<List<byte[]>> held = new ArrayDeque<>();
    /** Event loop: bad input read while {@link #waitingOn}: answered, and the connection closed, after the held. */
    private String heldProtocolError;

    KvConnection(final KvReplica replica, final Clients clients, final long id, final DefaultUser user)
    {
        this.replica = replica;
        this.clients = clients;
        this.session = new ClientSession(id, user);
        this.connectionCommands = new ConnectionCommands(this, replica, clients);
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext context)
    {
        this.ctx = context;
        this.timers = new BlockTimers(context.executor(), replica.store.blocked);
        this.replies = new ReplyQueue(replica, context);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void channelRead(final ChannelHandlerContext context, final Object msg)
    {
        reading = true;
        if (quitting || heldProtocolError != null)
        {
            return;
        }
        run((List<byte[]>)msg); // from RespDecoder: never empty
    }

    /** Event loop: dispatches a command and queues its reply; held while this client waits ({@link #waitingOn}). */
    private void run(final List<byte[]> given)
    {
        if (waitingOn != null)
        {
            held.add(given);
            if (held.size() + replies.size() >= MAX_PENDING)
            {
                ctx.channel().config().setAutoRead(false); // read again once the wait ends and replies drain
            }
            return;
        }
        final long start = System.nanoTime();
        final Command command = dispatch(given);
        if (command != null)
        {
            if (command.listed == null) // one through the group has it already (inGroup)
            {
                command.listed = session.lastCommand; // counted as its reply is written (drain)
            }
            command.answeredSince(start);
            if (command.ranHere) // SLOWLOG's, as Redis's (LATENCY keeps the commands through the group alone)
            {
                replica.slowLog.offer(given, session, command.runNanos);
            }
            enqueue(session.answerOrNot(command));
        }
    }

    /**
     * Event loop: holds {@code given}, and what is read after it, until {@code pending}, this connection's last command
     * in the group as {@link Command#pending} read it, has applied here ({@link #resume} runs it then); false for none.
     */
    private boolean heldFor(final Command pending, final List<byte[]> given)
    {
        if (pending == null)
        {
            return false;
        }
        waitingOn = pending;
        held.addFirst(given);
        return true;
    }

    /**
     * A connection command of a transaction, answered at EXEC in its place: counted under its own name as Redis counts
     * it, as the commands the EXEC ran ({@code inner}; null if it counted none), and failing the EXEC if it fails.
     */
    private Reply answerAtExec(final InnerCalls inner, final List<byte[]> args)
    {
        final String cmd = Commands.name(args);
        final long start = System.nanoTime();
        final Reply reply = connectionCommands.run(cmd, args);
        final String error = reply instanceof Reply.Error e ? e.text() : null;
        final long nanos = System.nanoTime() - start;
        replica.stats.ran(CommandTable.listed(cmd, args), nanos, error, false);
        replica.slowLog.offer(args, session, nanos);
        if (error != null && inner != null)
        {
            inner.failedAtExec();
        }
        return reply;
    }

    /**
     * Event loop: the command this client waited on is answered; the commands read meanwhile run now, in order, until
     * one waits again (a client gone drops them: {@link #channelInactive}).
     */
    private void resume()
    {
        final Command waited = waitingOn;
        waitingOn = null;
        if (answeringAtExec != null) // before the commands read after EXEC: CLIENT SETNAME in it, GETNAME after it
        {
            answeringAtExec.answer(waited, args -> answerAtExec(waited.inner, args));
            answeringAtExec = null;
        }
        final boolean burst = reading;
        reading = true; // replies ready at once go out together, with the drain that resumed
        List<byte[]> next;
        while (waitingOn == null && !quitting && (next = held.poll()) != null)
        {
            run(next);
        }
        if (waitingOn == null && !quitting && heldProtocolError != null)
        {
            replies.add(protocolErrorReply(heldProtocolError)); // the drain that resumed writes it, then closes
        }
        reading = burst;
        if (!burst && submitted)
        {
            submitted = false;
            replica.proposeAfterReads(ctx.executor());
        }
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext context)
    {
        reading = false;
        session.lastAt = System.nanoTime(); // once a burst: CLIENT LIST's idle counts seconds
        if (submitted)
        {
            submitted = false;
            replica.proposeAfterReads(context.executor());
        }
        drain();
        context.fireChannelReadComplete();
    }

    /** Event loop: runs or sends {@code given}; its reply, or null when it waits for the commands before it. */
    private Command dispatch(final List<byte[]> given)
    {
        final String named = Commands.name(given);
        session.lastCommand = CommandTable.listed(named, given);
        final Command notNow = session.mayNotSend(named, given, subscribed());
        if (notNow != null)
        {
            return notNow;
        }
        final Command pending = Command.pending(lastInGroup); // before the lookup: one applied in between brought it
        final Scripts scripts = replica.store.scripts; // EVALSHA travels as EVAL with its body
        final List<byte[]> args = transaction != null ? transaction.withBody(scripts, given) : scripts.withBody(given);
        if (args == null && heldFor(pending, given)) // an EVAL of this connection still in the group may bring it
        {
            return null;
        }
        if (args == null) // a script this member does not know; in a transaction, NOSCRIPT is its place in EXEC's reply
        {
            if (transaction != null)
            {
                return transaction.offered(named, given, Scripts.NO_SCRIPT, session.resp3);
            }
            final Reply.Error refusal = CommandTable.refusal(named, given);
            return refusal != null ? Command.refused(refusal, session.resp3) :
                Command.answered(Scripts.NO_SCRIPT, session.resp3);
        }
        final String cmd = args == given ? named : Commands.name(args);
        if (transaction != null)
        {
            return inTransaction(cmd, args);
        }
        if (Commands.isWrite(cmd) || BlockedClients.blocks(cmd, args)) // XREAD with BLOCK too
        {
            return BlockedClients.blocks(cmd, args) ? blocking(cmd, args) : inGroup(args, given, true);
        }
        if (Commands.isRead(cmd))
        {
            // A local read while a command of this connection is still in the group goes through the group as well:
            // the connection reads its own writes and never an older state than a read before it. Replies that are
            // merely waiting for the end of the read burst do not count (that test held most pipelined reads back).
            final Reply local = replica.localReads() && Commands.isLocalRead(cmd) &&
                Command.settled(lastInGroup) ? replica.readLocal(args) : null;
            return local != null ? Command.read(local, args, session.resp3) : inGroup(args, given, false);
        }
        if (RdbSaver.saves(cmd) && (session.rdbOnly || !cmd.equals("SYNC")) &&
            CommandTable.refusal(cmd, args) == null && RdbSaver.refusal(args) == null)
        {
            return inGroup(args, given, false); // the cut is taken where the commands before it applied
        }
        if (Commands.readsMemberState(cmd) && heldFor(Command.pending(lastInGroup), given))
        {
            return null;
        }
        final Reply refused = CommandTable.refusal(cmd, args); // as Redis, before the command runs
        return refused != null ? Command.refused(refused, session.resp3) :
            Command.ran(connectionCommands.run(cmd, args), session.resp3);
    }

    /** A command while MULTI is open: EXEC sends the transaction, DISCARD drops it, others are queued. */
    private Command inTransaction(final String cmd, final List<byte[]> args)
    {
        final Transaction t = transaction;
        if (cmd.equals("EXEC"))
        {
            transaction = null;
            watching.clear();
            if (t.refused())
            {
                return Command.answered(Reply.error("EXECABORT Transaction discarded because of previous errors."),
                    session.resp3);
            }
            inGroup(new Command(t.exec(), true, session, replied).sent(t.sent())); // reads too take their place
            final Command reply = t.answeredAtExec(session.resp3);
            if (reply == null)
            {
                return lastInGroup;
            }
            waitingOn = lastInGroup; // the commands after EXEC wait for its connection commands (resume)
            answeringAtExec = t;
            return reply;
        }
        final Reply reply = switch (cmd)
        {
            case "DISCARD" ->
            {
                transaction = null;
                watching.clear();
                yield Reply.OK;
            }
            case "MULTI" -> Reply.error("ERR MULTI calls can not be nested");
            case "WATCH" -> Reply.error("ERR WATCH inside MULTI is not allowed");
            case "QUIT", "RESET" ->
            {
                transaction = null;
                yield connectionCommands.run(cmd, args);
            }
            default -> null; // queued, or refused
        };
        return reply != null ? Command.ran(reply, session.resp3) : t.offered(cmd, args, null, session.resp3);
    }

    private Command inGroup(final List<byte[]> args, final List<byte[]> given, final boolean write)
    {
        return inGroup(new Command(args, write, session, replied).sent(args == given ? null : List.of(given)));
    }

    private Command inGroup(final Command command)
    {
        // listed and sent before it is queued: the delivery thread reads them (SAVE's cut, keyspace_hits, SLOWLOG),
        // and under load the proposer may take the command before this thread goes on
        command.listed = session.lastCommand;
        lastInGroup = command;
        replica.submit(command);
        submitted = true;
        return command;
    }

    /**
     * BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP: through the group, and answered with
     * nothing at the timeout if still waiting for an item then ({@link BlockedClients}). The client's later commands
     * are held until it is answered, as Redis holds them: a pipelined write after a BLPOP applies after what the BLPOP
     * took.
     */
    private Command blocking(final String cmd, final List<byte[]> args)
    {
        final Command command = inGroup(new Command(new ArrayList<>(args), Commands.isWrite(cmd), session.resp3,
            session, replied, BlockedClients.deadline(cmd, args))); // a list of its own: XREAD's $ is resolved in it
        timers.start(command);
        if (command.blockedUntil != 0) // 0: refused (arity, timeout), answered without waiting
        {
            waitingOn = command;
        }
        return command;
    }

    /** Event loop, QUIT: the connection closes once the replies due, this one's included, are written. */
    void quit()
    {
        quitting = true;
    }

    /** Event loop, RESET: no watched keys, no subscriptions (the session resets itself). */
    void reset()
    {
        watching.clear();
        if (subscriptions != null)
        {
            subscriptions.unsubscribeAll();
        }
    }

    /** Event loop, MULTI: opens a transaction, which takes the keys watched so far. */
    void multi()
    {
        transaction = new Transaction(replica.maxCommandBytes(), watching.values());
    }

    /** Event loop: this client as CLIENT LIST shows it. */
    String clientLine(final long now)
    {
        return session.line(now, subscriptions, transaction, waitingOn != null && waitingOn.blockedUntil != 0);
    }

    /**
     * Event loop, CLIENT UNBLOCK: ends the wait of this connection's blocking command, answered {@code reply} (null:
     * as at its timeout; {@link BlockedClients#unblock}); false if none waits.
     */
    boolean unblock(final Reply reply)
    {
        final Command c = waitingOn; // its timer stops as its reply is written (drain)
        return c != null && c.blockedUntil != 0 &&
            replica.store.blocked.unblock(c, reply != null ? reply : BlockedClients.nothing(c));
    }

    /** Event loop, CLIENT KILL: closes this connection, at once or, when it asked itself, after this reply. */
    void kill(final boolean self)
    {
        if (self)
        {
            quitting = true;
            return;
        }
        ctx.close();
    }

    boolean subscribed()
    {
        return subscriptions != null && subscriptions.active();
    }

    /** This connection's pub/sub state, made at its first use: messages arrive on the event loop, in order. */
    Subscriptions subscriptions()
    {
        if (subscriptions == null)
        {
            subscriptions = new Subscriptions(replica.pubSub, ctx.executor(), push ->
            {
                if (ctx.channel().isActive())
                {
                    enqueue(session.push(push));
                }
            }, Subscriptions.closing(session.id, ctx.channel().remoteAddress(), ctx::close));
        }
        return subscriptions;
    }

    /**
     * Event loop. A command still waiting drains the replies when its own is set ({@link #replied}); one answered at
     * once goes out now if the replies before it are ready too, else with the head's, or at the end of the read burst.
     */
    private void enqueue(final Command command)
    {
        replies.add(command);
        if (replies.size() >= MAX_PENDING)
        {
            ctx.channel().config().setAutoRead(false); // read again once replies drain
        }
        if (!reading && command.isDone() && replies.headDone())
        {
            drain();
        }
    }

    /** Any thread: a reply was set; drain on the event loop, once per burst. */
    private void requestDrain()
    {
        if (!drainRequested.get() && drainRequested.compareAndSet(false, true))
        {
            ctx.executor().execute(drainTask);
        }
    }

    /** Event loop: writes the replies ready ({@link ReplyQueue}); reads again once few are due. */
    private void drain()
    {
        if (waitingOn != null && waitingOn.isDone())
        {
            resume();
        }
        replies.write(timers, subscriptions, quitting);
        if (!quitting && heldProtocolError == null && !replies.paused() && !ctx.channel().config().isAutoRead() &&
            held.size() + replies.size() < MAX_PENDING / 2)
        {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Event loop: the outbound buffer fell below its low-water mark (the client read), or the channel closed. */
    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext context)
    {
        if (replies.resumed())
        {
            drain(); // reads again once few replies are due
        }
        context.fireChannelWritabilityChanged();
    }

    /** Answers bad input after the replies still due, then closes: nothing after it is read. */
    private void protocolError(final String what)
    {
        if (quitting || heldProtocolError != null)
        {
            return;
        }
        ctx.channel().config().setAutoRead(false);
        if (waitingOn != null) // the commands held before it run first
        {
            heldProtocolError = what;
            return;
        }
        reading = false; // the answer goes out now, not at the end of a burst that stopped here
        enqueue(protocolErrorReply(what));
    }

    /** The answer to bad input; nothing after it is read or run. */
    private Command protocolErrorReply(final String what)
    {
        LOG.warn("client {} at {}: protocol error: {}; closing the connection", session.id,
            ctx.channel().remoteAddress(), what);
        quitting = true;
        return Command.answered(Reply.error("ERR Protocol error: " + what), session.resp3);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext context, final Throwable cause)
    {
        if (cause instanceof io.netty.handler.codec.DecoderException &&
            cause.getCause() instanceof RespDecoder.RespException)
        {
            protocolError(cause.getCause().getMessage());
        }
        else
        {
            LOG.debug("client {}: {}", session.id, cause.toString());
            context.close();
        }
    }

    @Override
    public void channelActive(final ChannelHandlerContext context)
    {
        replica.connectedClients.incrementAndGet();
        replica.stats.connected();
        session.connectedTo(context.channel().remoteAddress(), context.channel().localAddress());
        clients.add(session.id, this);
        context.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext context)
    {
        replies.drop(timers); // their commands still apply
        held.clear(); // read while it waited: never run, as in Redis
        waitingOn = null;
        if (subscriptions != null)
        {
            subscriptions.unsubscribeAll();
        }
        replica.connectedClients.decrementAndGet();
        clients.remove(session.id);
    }
}

package io.weft.examples.kv;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;

import java.util.ArrayDeque;

/**
 * A connection's replies due, in command order, whatever order they complete in: written as the head ones are ready,
 * in buffers of about {@value #FLUSH_BYTES}. Writing stops, and so does reading (the channel's auto-read), while the
 * client does not take them: Netty's outbound buffer past its high-water mark, until it drains below its low-water
 * mark. The replies wait here meanwhile (they refer to the store's values, not copies of them), so no client can fill
 * the member's memory with replies it does not take. Event loop only.
 */
final class ReplyQueue
{
    /** Replies go out in buffers of about this size, the writability checked between them. */
    private static final int FLUSH_BYTES = 64 * 1024;

    private final ArrayDeque<Command> pending = new ArrayDeque<>();
    private final KvReplica replica;
    private final ChannelHandlerContext ctx;
    /** The outbound buffer is past its high-water mark: neither reading nor writing until it drains. */
    private boolean paused;

    /** The replies of the connection of {@code ctx}, counted in {@code replica}'s statistics. */
    ReplyQueue(final KvReplica replica, final ChannelHandlerContext ctx)
    {
        this.replica = replica;
        this.ctx = ctx;
    }

    void add(final Command command)
    {
        pending.add(command);
    }

    int size()
    {
        return pending.size();
    }

    /** Whether the head's reply, the next to write, is set. */
    boolean headDone()
    {
        final Command head = pending.peek();
        return head != null && head.isDone();
    }

    boolean paused()
    {
        return paused;
    }

    /**
     * Writes the replies at the head that are ready, in order ({@code subscriptions}: this connection's, or null
     * before its first SUBSCRIBE; {@code timers} stop as a blocking command's reply goes); with {@code closing}, once
     * none is due, closes the connection after them.
     */
    void write(final BlockTimers timers, final Subscriptions subscriptions, final boolean closing)
    {
        ByteBuf out = null;
        Command head;
        Reply reply;
        while (!paused && (head = pending.peek()) != null && (reply = head.reply()) != null)
        {
            out = out == null ? ctx.alloc().ioBuffer() : out;
            pending.poll();
            replica.stats.replied(head, reply);
            if (head.blockedUntil != 0)
            {
                timers.stop(head);
            }
            if (!head.unsent)
            {
                RespWriter.write(out, reply, head.resp3);
            }
            if (reply instanceof Reply.Push message) // a published message; a confirmation is in Several
            {
                subscriptions.written(message);
            }
            if (out.readableBytes() >= FLUSH_BYTES)
            {
                flush(out);
                out = null;
                pauseIfUnwritable();
            }
        }
        if (closing && pending.isEmpty())
        {
            flush(out == null ? Unpooled.EMPTY_BUFFER : out).addListener(ChannelFutureListener.CLOSE);
        }
        else if (out != null)
        {
            flush(out);
            pauseIfUnwritable();
        }
    }

    /** The outbound buffer's writability changed: whether writing goes on now (it was paused, and the client read). */
    boolean resumed()
    {
        if (paused && ctx.channel().isWritable())
        {
            paused = false;
            replica.clientsPausedForOutput.decrementAndGet();
            return true;
        }
        return false;
    }

    /** The connection closed: the replies still due are dropped (their commands still apply), and their timers. */
    void drop(final BlockTimers timers)
    {
        timers.cancelWaiting(pending);
        pending.clear();
        if (paused)
        {
            paused = false;
            replica.clientsPausedForOutput.decrementAndGet();
        }
    }

    private ChannelFuture flush(final ByteBuf out)
    {
        replica.stats.sent(out.readableBytes()); // total_net_output_bytes
        return ctx.writeAndFlush(out);
    }

    private void pauseIfUnwritable()
    {
        if (!ctx.channel().isWritable() && !paused)
        {
            paused = true;
            ctx.channel().config().setAutoRead(false);
            replica.clientsPausedForOutput.incrementAndGet();
        }
    }
}

package io.weft.examples.kv;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** Counts the bytes every client connection reads, before {@link RespDecoder} takes them: total_net_input_bytes. */
@ChannelHandler.Sharable
final class InputBytes extends ChannelInboundHandlerAdapter
{
    private final CommandStats stats;

    InputBytes(final CommandStats stats)
    {
        this.stats = stats;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (msg instanceof ByteBuf bytes)
        {
            stats.received(bytes.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }
}

package io.weft.examples.kv;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Between the decoder and the aggregators: refuses a bulk string longer than the store takes, or an array of more
 * than {@value #MAX_ARGUMENTS} arguments, before a byte of it is buffered (the aggregators would otherwise collect
 * up to 512 MiB for one announced length), with Redis's protocol error, and closes the connection.
 */
final class KvLimits extends ChannelInboundHandlerAdapter
{
    static final int MAX_ARGUMENTS = 1 << 20;
    private static final Logger LOG = LoggerFactory.getLogger(KvLimits.class);

    private final long maxBulk;
    private boolean refused;

    KvLimits(final long maxBulk)
    {
        this.maxBulk = maxBulk;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        String problem = null;
        if (msg instanceof ArrayHeaderRedisMessage header && header.length() > MAX_ARGUMENTS)
        {
            problem = "invalid multibulk length " + header.length();
        }
        else if (msg instanceof BulkStringHeaderRedisMessage header && header.bulkStringLength() > maxBulk)
        {
            problem = "invalid bulk length " + header.bulkStringLength() + " (this store takes commands up to " +
                maxBulk + " bytes)";
        }
        if (problem == null && !refused)
        {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg);
        if (!refused)
        {
            refused = true;
            LOG.warn("client at {}: protocol error: {}; closing the connection", ctx.channel().remoteAddress(), problem);
            ctx.writeAndFlush(new ErrorRedisMessage("ERR Protocol error: " + problem))
                .addListener(ChannelFutureListener.CLOSE);
        }
    }
}

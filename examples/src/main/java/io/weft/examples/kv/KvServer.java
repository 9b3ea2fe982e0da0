package io.weft.examples.kv;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Redis protocol endpoint of one member on Netty: {@link RespDecoder} (RESP arrays and inline commands),
 * {@link KvConnection}, replies written by {@link RespWriter}; one event-loop thread (cores are scarce: the group's
 * threads need them).
 */
public final class KvServer implements AutoCloseable
{
    private final EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;

    /** Listens on {@code host:port} (0 for any free port); clients authenticate as {@code user} says. */
    public KvServer(final KvReplica replica, final String host, final int port, final DefaultUser user)
        throws InterruptedException
    {
        final AtomicLong ids = new AtomicLong();
        final Clients clients = new Clients();
        final InputBytes input = new InputBytes(replica.stats);
        final ServerBootstrap bootstrap = new ServerBootstrap().group(loop).channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel ch)
                {
                    final KvConnection connection = new KvConnection(replica, clients, ids.incrementAndGet(), user);
                    ch.pipeline().addLast(input, new RespDecoder(replica.maxCommandBytes(),
                        () -> !connection.session.authenticated), connection);
                }
            });
        try
        {
            this.channel = bootstrap.bind(new InetSocketAddress(host, port)).sync().channel();
            loop.scheduleAtFixedRate(() -> replica.stats.sample(System.nanoTime()), InstantaneousRates.PERIOD_MS,
                InstantaneousRates.PERIOD_MS, TimeUnit.MILLISECONDS); // INFO's instantaneous rates, as Redis's cron
        }
        catch (final RuntimeException | InterruptedException ex)
        {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw ex;
        }
    }

    public int port()
    {
        return ((InetSocketAddress)channel.localAddress()).getPort();
    }

    @Override
    public void close()
    {
        channel.close().awaitUninterruptibly();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}

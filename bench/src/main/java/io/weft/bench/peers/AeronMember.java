package io.weft.bench.peers;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.exceptions.DriverTimeoutException;
import io.aeron.logbuffer.BufferClaim;
import io.weft.bench.steady.Deliveries;
import io.weft.bench.steady.Payload;
import io.weft.bench.steady.SteadyClock;
import io.weft.testkit.ParentWatch;
import io.weft.tools.ConsoleLines;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * An Aeron 1.51 member for the side-by-side bench, on the same steady-state method and payload work as Weft's
 * ({@link SteadyClock}, {@link Payload}, {@link Deliveries}). Every member subscribes to every sender, itself
 * included, so "delivered per member" and own-delivery latency mean what they mean for Weft; Aeron gives reliable
 * FIFO per publisher, no order across publishers. {@code udp}: every process embeds its own media driver and each
 * sender's publication reaches every member by manual multi-destination-cast on loopback, with min flow control so
 * the slowest member paces it (nobody is overrun); {@code ipc}: member 0's embedded driver serves every process and
 * the senders share one IPC log. Tuned as the toolchain notes say: 2 MiB socket buffers, yielding idle strategies on
 * udp, backing-off ones on ipc. Senders claim in place where the message fits one frame and copy otherwise. A BYE
 * from every member on a control stream ends the run, so no driver goes away while another member still reads.
 *
 * <p>Arguments: udp|ipc index members senders size ratePerSender basePort aeronDirBase warmupNanos measureNanos
 */
public final class AeronMember
{
    private static final int DATA_STREAM = 1001;
    private static final int CONTROL_STREAM = 1002;

    private final boolean udp;
    private final int index;
    private final int members;
    private final int senders;
    private final int size;
    private final int basePort;
    private final Deliveries deliveries;
    private final IdleStrategy idle;
    private volatile boolean complete;
    private volatile boolean stopReceiving;

    private AeronMember(final String[] args)
    {
        udp = args[0].equals("udp");
        index = Integer.parseInt(args[1]);
        members = Integer.parseInt(args[2]);
        senders = Integer.parseInt(args[3]);
        size = Integer.parseInt(args[4]);
        basePort = Integer.parseInt(args[6]);
        deliveries = new Deliveries(index, members, senders);
        idle = idleStrategy(udp);
    }

    public static void main(final String[] args) throws Exception
    {
        ConsoleLines.install();
        ParentWatch.install(); // ends with the bench that started it, also after kill -9
        final AeronMember m = new AeronMember(args);
        final String dir = m.udp ? args[7] + "-" + m.index : args[7];
        MediaDriver driver = null;
        if (m.udp || m.index == 0)
        {
            driver = MediaDriver.launchEmbedded(new MediaDriver.Context().aeronDirectoryName(dir)
                .threadingMode(ThreadingMode.SHARED).sharedIdleStrategy(idleStrategy(m.udp))
                .socketSndbufLength(2 << 20).socketRcvbufLength(2 << 20)
                .dirDeleteOnStart(true).dirDeleteOnShutdown(true));
            // System.exit (ParentWatch, after kill -9 of the bench) skips the finally below: the driver's files go too
            Runtime.getRuntime().addShutdownHook(new Thread(() -> IoUtil.delete(new File(dir), true),
                "aeron-dir-delete"));
        }
        Aeron aeron = null;
        int code = 1;
        try
        {
            aeron = connect(dir);
            code = m.run(aeron, Long.parseLong(args[5]), Long.parseLong(args[8]), Long.parseLong(args[9]));
        }
        finally
        {
            // closing the driver deletes its directory under /dev/shm
            CloseHelper.closeAll(aeron, driver);
        }
        System.exit(code);
    }

    /**
     * Deletes what the members started with {@code dir} may have left: its driver directory, or one per member (udp).
     */
    public static void deleteDirectories(final String dir, final int members)
    {
        IoUtil.delete(new File(dir), true);
        for (int i = 0; i < members; i++)
        {
            IoUtil.delete(new File(dir + "-" + i), true);
        }
    }

    private static IdleStrategy idleStrategy(final boolean udp)
    {
        return udp ? new YieldingIdleStrategy() : new BackoffIdleStrategy(100, 10, 1_000, 100_000);
    }

    private static Aeron connect(final String dir) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true)
        {
            try
            {
                return Aeron.connect(new Aeron.Context().aeronDirectoryName(dir).driverTimeoutMs(10_000));
            }
            catch (final DriverTimeoutException | IllegalStateException ex)
            {
                if (System.nanoTime() > deadline)
                {
                    throw ex;
                }
                Thread.sleep(50); // member 0's driver is still starting
            }
        }
    }

    private Publication publication(final Aeron aeron, final int stream, final int firstPort)
    {
        if (!udp)
        {
            return aeron.addPublication("aeron:ipc", stream);
        }
        final Publication p = aeron.addPublication("aeron:udp?control-mode=manual|fc=min|so-sndbuf=2m", stream);
        for (int j = 0; j < members; j++)
        {
            p.addDestination("aeron:udp?endpoint=127.0.0.1:" + (firstPort + j));
        }
        return p;
    }

    private Subscription subscription(final Aeron aeron, final int stream, final int port)
    {
        return aeron.addSubscription(udp ? "aeron:udp?endpoint=127.0.0.1:" + port + "|so-rcvbuf=2m" : "aeron:ipc",
            stream);
    }

    private int run(final Aeron aeron, final long rate, final long warmupNanos, final long measureNanos)
        throws Exception
    {
        final boolean sender = index < senders;
        try (Subscription data = subscription(aeron, DATA_STREAM, basePort + index);
            Subscription control = subscription(aeron, CONTROL_STREAM, basePort + members + index);
            Publication controlOut = publication(aeron, CONTROL_STREAM, basePort + members);
            Publication dataOut = sender ? publication(aeron, DATA_STREAM, basePort) : null)
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (data.imageCount() < (udp ? senders : 1) || control.imageCount() < (udp ? members : 1) ||
                !controlOut.isConnected() || (sender && !dataOut.isConnected()))
            {
                if (System.nanoTime() > deadline)
                {
                    System.out.println("aeron member " + index + ": not connected to every member within 60 s");
                    return 4;
                }
                idle.idle();
            }
            idle.reset();
            final SteadyClock clock = SteadyClock.awaitGo(warmupNanos, measureNanos);
            deliveries.clock(clock, rate > 0);
            final Thread receiver = Thread.ofPlatform().name("aeron-receiver").start(() -> receive(data));
            final long sent = sender ? send(dataOut, clock, rate) : 0;
            receiver.join(TimeUnit.NANOSECONDS.toMillis(clock.stopAt() - System.nanoTime()) + 60_000);
            stopReceiving = true;
            receiver.join();
            clock.awaitWindow(TimeUnit.SECONDS.toNanos(10));
            System.out.println(clock.report(index, size, sent, deliveries, ""));
            awaitBye(controlOut, control);
            return complete && "ok".equals(deliveries.check()) ? 0 : 1;
        }
    }

    private void receive(final Subscription data)
    {
        final IdleStrategy receiveIdle = idleStrategy(udp);
        final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
        {
            if (deliveries.onMessage(buffer, offset, length))
            {
                complete = true;
            }
        });
        while (!complete && !stopReceiving)
        {
            receiveIdle.idle(data.poll(assembler, 256));
        }
    }

    private long send(final Publication out, final SteadyClock clock, final long rate)
    {
        final BufferClaim claim = new BufferClaim();
        final UnsafeBuffer copy = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        final boolean inPlace = size <= out.maxPayloadLength();
        final long interval = rate > 0 ? 1_000_000_000L / rate : 0;
        long i = 0;
        while (clock.sending())
        {
            if (interval > 0)
            {
                clock.pace(i, interval);
            }
            if (inPlace)
            {
                while (mustRetry(out.tryClaim(size, claim)))
                {
                    idle.idle();
                }
                idle.reset();
                Payload.write(claim.buffer(), claim.offset(), size, Payload.KIND_DATA, index, i, System.nanoTime());
                claim.commit();
            }
            else
            {
                Payload.write(copy, 0, size, Payload.KIND_DATA, index, i, System.nanoTime());
                offer(out, copy, size);
            }
            i++;
        }
        Payload.write(copy, 0, Payload.HEADER_LENGTH, Payload.KIND_END, index, i, System.nanoTime());
        offer(out, copy, Payload.HEADER_LENGTH);
        return i;
    }

    private void offer(final Publication out, final UnsafeBuffer buffer, final int length)
    {
        while (mustRetry(out.offer(buffer, 0, length)))
        {
            idle.idle();
        }
        idle.reset();
    }

    /**
     * True when the offer or claim must be retried (back-pressure, admin action, a destination not yet in); throws when
     * it can never succeed.
     */
    private static boolean mustRetry(final long result)
    {
        if (result > 0)
        {
            return false;
        }
        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
        {
            throw new IllegalStateException("aeron publication refused the message for good: " + result);
        }
        return true;
    }

    private void awaitBye(final Publication controlOut, final Subscription control)
    {
        final UnsafeBuffer bye = new UnsafeBuffer(ByteBuffer.allocateDirect(Payload.HEADER_LENGTH));
        Payload.write(bye, 0, Payload.HEADER_LENGTH, Payload.KIND_BYE, index, 0, System.nanoTime());
        final Set<Integer> seen = new HashSet<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (controlOut.offer(bye, 0, Payload.HEADER_LENGTH) < 0 && System.nanoTime() < deadline)
        {
            idle.idle();
        }
        while (seen.size() < members && System.nanoTime() < deadline)
        {
            idle.idle(control.poll((buffer, offset, length, header) -> seen.add(Payload.sender(buffer, offset)), 16));
        }
    }
}

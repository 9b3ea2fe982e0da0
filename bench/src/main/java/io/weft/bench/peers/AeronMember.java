package io.weft.bench.peers;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.exceptions.DriverTimeoutException;
import org.HdrHistogram.Recorder;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * An Aeron 1.51 member for the side-by-side bench: one publisher to N-1 subscribers, reliable, no total order across
 * publishers (the one-sender workload). {@code udp}: every process embeds its own media driver and the publication
 * reaches the subscribers by multi-destination-cast on loopback; {@code ipc}: the publisher's embedded driver serves
 * every process. Tuned as the toolchain notes say: 2 MiB socket buffers, yielding idle strategies on udp, backing-off
 * ones on ipc. Subscribers check that every message arrives once, in order; they announce themselves (and their end)
 * on a reverse stream, so the publisher starts only when every subscriber is connected.
 *
 * <p>Arguments: pub|sub udp|ipc index subscribers messages size ratePerSecond basePort aeronDirBase
 */
public final class AeronMember
{
    private static final int DATA_STREAM = 1001;
    private static final int HELLO_STREAM = 1002;
    private static final int HEADER = 16; // counter:long timestamp:long

    public static void main(final String[] args) throws Exception
    {
        final boolean publisher = args[0].equals("pub");
        final boolean udp = args[1].equals("udp");
        final int index = Integer.parseInt(args[2]);
        final int subscribers = Integer.parseInt(args[3]);
        final long messages = Long.parseLong(args[4]);
        final int size = Math.max(HEADER, Integer.parseInt(args[5]));
        final long rate = Long.parseLong(args[6]);
        final int basePort = Integer.parseInt(args[7]);
        final String dirBase = args[8];
        final IdleStrategy idle = udp ? new YieldingIdleStrategy() : new BackoffIdleStrategy(100, 10, 1_000, 100_000);

        final boolean ownsDriver = udp || publisher;
        final String dir = udp ? dirBase + "-" + index : dirBase;
        MediaDriver driver = null;
        if (ownsDriver)
        {
            driver = MediaDriver.launchEmbedded(new MediaDriver.Context().aeronDirectoryName(dir)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(udp ? new YieldingIdleStrategy() : new BackoffIdleStrategy(100, 10, 1_000, 100_000))
                .socketSndbufLength(2 << 20).socketRcvbufLength(2 << 20)
                .dirDeleteOnStart(true).dirDeleteOnShutdown(true));
        }
        Aeron aeron = null;
        int code = 1;
        try
        {
            aeron = connect(dir);
            code = publisher
                ? publish(aeron, udp, subscribers, messages, size, rate, basePort, idle)
                : subscribe(aeron, udp, index, messages, size, basePort, idle);
        }
        finally
        {
            // closing the driver deletes its directory under /dev/shm
            CloseHelper.closeAll(aeron, driver);
        }
        System.exit(code);
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
                Thread.sleep(50); // the publisher's driver is still starting
            }
        }
    }

    private static int publish(final Aeron aeron, final boolean udp, final int subscribers, final long messages,
        final int size, final long rate, final int basePort, final IdleStrategy idle)
    {
        final String data = udp ? "aeron:udp?control=127.0.0.1:" + basePort + "|control-mode=dynamic|so-sndbuf=2m" : "aeron:ipc";
        final String hello = udp ? "aeron:udp?endpoint=127.0.0.1:" + (basePort + 1) + "|so-rcvbuf=2m" : "aeron:ipc";
        try (Publication publication = aeron.addPublication(data, DATA_STREAM);
            Subscription hellos = aeron.addSubscription(hello, HELLO_STREAM))
        {
            final Set<Long> ready = new HashSet<>();
            final Set<Long> done = new HashSet<>();
            awaitHellos(hellos, ready, done, subscribers, false, idle);
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            final long start = System.nanoTime();
            final long interval = rate > 0 ? 1_000_000_000L / rate : 0;
            for (long i = 0; i < messages; i++)
            {
                if (interval > 0)
                {
                    PeerResult.pace(start + i * interval);
                }
                buffer.putLong(0, i);
                buffer.putLong(8, System.nanoTime());
                while (publication.offer(buffer, 0, size) < 0)
                {
                    idle.idle();
                }
                idle.reset();
            }
            final double seconds = (System.nanoTime() - start) / 1e9;
            awaitHellos(hellos, ready, done, subscribers, true, idle);
            System.out.printf(java.util.Locale.ROOT, "aeron publisher: offered %d messages in %.3fs%n", messages, seconds);
            return done.size() == subscribers ? 0 : 1;
        }
    }

    /** Polls the reverse stream: a positive id is a subscriber that is ready, a negative one a subscriber done. */
    private static void awaitHellos(final Subscription hellos, final Set<Long> ready, final Set<Long> done,
        final int subscribers, final boolean forDone, final IdleStrategy idle)
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while ((forDone ? done.size() : ready.size()) < subscribers && System.nanoTime() < deadline)
        {
            idle.idle(hellos.poll((buffer, offset, length, header) ->
            {
                final long id = buffer.getLong(offset);
                (id >= 0 ? ready : done).add(id >= 0 ? id : -id - 1);
            }, 16));
        }
        idle.reset();
    }

    private static int subscribe(final Aeron aeron, final boolean udp, final int index, final long messages,
        final int size, final int basePort, final IdleStrategy idle)
    {
        final String data = udp ? "aeron:udp?endpoint=127.0.0.1:" + (basePort + 1 + index) + "|control=127.0.0.1:" +
            basePort + "|control-mode=dynamic|so-rcvbuf=2m" : "aeron:ipc";
        final String hello = udp ? "aeron:udp?endpoint=127.0.0.1:" + (basePort + 1) : "aeron:ipc";
        try (Subscription subscription = aeron.addSubscription(data, DATA_STREAM);
            Publication hellos = aeron.addPublication(hello, HELLO_STREAM))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!subscription.isConnected() || !hellos.isConnected())
            {
                if (System.nanoTime() > deadline)
                {
                    System.out.println("aeron subscriber " + index + ": never connected");
                    return 4;
                }
                idle.idle();
            }
            final UnsafeBuffer id = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
            id.putLong(0, index);
            while (hellos.offer(id, 0, 8) < 0)
            {
                idle.idle();
            }
            final Recorder latency = new Recorder(3);
            final long[] state = {0, 0, 0}; // next expected counter, delivered, last delivery time
            final String[] check = {"ok"};
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                final long now = System.nanoTime();
                final long counter = buffer.getLong(offset);
                if (counter != state[0] && "ok".equals(check[0]))
                {
                    check[0] = "message " + counter + " arrived when " + state[0] + " was due";
                }
                state[0] = counter + 1;
                state[1]++;
                state[2] = now;
                // System.nanoTime is CLOCK_MONOTONIC on Linux: comparable between processes of one host;
                // the first half of the run warms the JIT up and is left out, as for every system
                if (counter >= messages / 2)
                {
                    latency.recordValue(Math.max(0, (now - buffer.getLong(offset + 8)) / 1000));
                }
            });
            final long start = System.nanoTime();
            final long end = start + TimeUnit.MINUTES.toNanos(5);
            while (state[1] < messages && System.nanoTime() < end)
            {
                idle.idle(subscription.poll(assembler, 256));
            }
            final boolean complete = state[1] == messages;
            System.out.println(PeerResult.json(index, complete && "ok".equals(check[0]), state[1],
                ((complete ? state[2] : System.nanoTime()) - start) / 1e9, size, latency.getIntervalHistogram(), "-",
                complete ? check[0] : "delivered " + state[1] + " of " + messages));
            id.putLong(0, -index - 1);
            final long doneDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (hellos.offer(id, 0, 8) < 0 && System.nanoTime() < doneDeadline)
            {
                idle.idle();
            }
            return complete && "ok".equals(check[0]) ? 0 : 1;
        }
    }
}

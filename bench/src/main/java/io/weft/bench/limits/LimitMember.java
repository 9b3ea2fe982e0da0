package io.weft.bench.limits;

import io.weft.bench.steady.Deliveries;
import io.weft.bench.steady.Payload;
import io.weft.bench.steady.SteadyClock;
import io.weft.dds.DropBehind;
import io.weft.testkit.ParentWatch;
import io.weft.tools.ConsoleLines;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One process of a machine-limit probe, on the same steady-state method as the members ({@link SteadyClock}): what
 * this host can do at all, printed beside every system's figures. Modes:
 * <ul>
 *   <li>{@code memcpy}: bulk copies between two 64 MiB native regions (memory bandwidth);</li>
 *   <li>{@code spsc-producer|spsc-consumer FILE SIZE}: a one-way single-producer ring (Agrona's
 *   {@link OneToOneRingBuffer}) in a file under /dev/shm between two processes, with the bench's payload work
 *   ({@link Payload}: every byte written by the producer, read and checked by the consumer);</li>
 *   <li>{@code ring FILE RANK}: a token passed 0 -> 1 -> 2 -> 0 through a mapped file by three processes; rank 0
 *   records the round trip (the floor of a send-to-stable latency among three processes);</li>
 *   <li>{@code tcp-sink|tcp-source PORT}: a loopback tcp stream in 64 KiB writes (bandwidth);</li>
 *   <li>{@code tcp-echo PORT [CPU]} and {@code tcp-ping PORT [RATE CPU]}: 64-byte ping-pong over loopback tcp with
 *   TCP_NODELAY (round trip), back to back or {@code RATE} pings a second (parked between them, as the bench's
 *   fixed-rate senders are), each end pinned to its {@code CPU} if given;</li>
 *   <li>{@code hiccups}: one thread per core, each reading the clock in a loop that never waits; a gap between two
 *   reads is time the host took that core from a running thread (interrupts, kernel threads, other processes, the
 *   hypervisor). Reports the gaps over 100 us and over 1 ms per second per core, and the longest (the floor under the
 *   p99 and p99.9 of anything that keeps every core busy);</li>
 *   <li>{@code log-append DIR SIZE}: one thread appending records of {@code SIZE} bytes to a new file in {@code DIR}
 *   through memory-mapped 64 MiB chunks, as a log does (every page it writes is a page the file did not have: the
 *   floor under every member's log of every sample), its pages dropped behind it once on disk as a log's are
 *   ({@link DropBehind}). The file is deleted at the end.</li>
 * </ul>
 * Waiting spins briefly and then yields or parks (Agrona's back-off): three spinning processes on two cores would
 * measure the scheduler, not the machine.
 *
 * <p>Arguments: mode warmupNanos measureNanos [mode arguments]
 */
public final class LimitMember
{
    static final int RING_CAPACITY = 4 << 20;
    static final int RING_FILE_LENGTH = RING_CAPACITY +
        org.agrona.concurrent.ringbuffer.RingBufferDescriptor.TRAILER_LENGTH;
    static final int TOKEN_FILE_LENGTH = 3 * 64;
    private static final int COPY_REGION = 64 << 20;
    private static final long LOG_CHUNK = 64 << 20;
    private static final int TCP_CHUNK = 64 << 10;
    private static final int PING = 64;

    private LimitMember()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        ConsoleLines.install();
        ParentWatch.install(); // ends with the bench that started it, also after kill -9
        final String mode = args[0];
        final long warmup = Long.parseLong(args[1]);
        final long measure = Long.parseLong(args[2]);
        final String report = switch (mode)
        {
            case "memcpy" -> memcpy(warmup, measure);
            case "spsc-producer" -> spscProducer(Path.of(args[3]), Integer.parseInt(args[4]), warmup, measure);
            case "spsc-consumer" -> spscConsumer(Path.of(args[3]), Integer.parseInt(args[4]), warmup, measure);
            case "ring" -> ring(Path.of(args[3]), Integer.parseInt(args[4]), warmup, measure);
            case "tcp-sink" -> tcpSink(Integer.parseInt(args[3]), warmup, measure);
            case "tcp-source" -> tcpSource(Integer.parseInt(args[3]), warmup, measure);
            case "tcp-echo" -> tcpEcho(Integer.parseInt(args[3]), args.length > 4 ? Integer.parseInt(args[4]) : -1,
                warmup, measure);
            case "tcp-ping" -> tcpPing(Integer.parseInt(args[3]), args.length > 4 ? Long.parseLong(args[4]) : 0,
                args.length > 5 ? Integer.parseInt(args[5]) : -1, warmup, measure);
            case "hiccups" -> hiccups(warmup, measure);
            case "log-append" -> logAppend(Path.of(args[3]), Integer.parseInt(args[4]), warmup, measure);
            default -> throw new IllegalArgumentException("unknown limit mode " + mode);
        };
        System.out.println(report);
        System.exit(0);
    }

    private static String report(final SteadyClock clock, final int unit) throws InterruptedException
    {
        return report(clock, unit, "");
    }

    /** The probe's {@code BENCH} line once its window is sampled, with {@code extra} JSON fields. */
    private static String report(final SteadyClock clock, final int unit, final String extra)
        throws InterruptedException
    {
        clock.awaitWindow(TimeUnit.SECONDS.toNanos(30));
        return clock.report(0, unit, 0, new Deliveries(0, 1, 0), extra);
    }

    private static String memcpy(final long warmup, final long measure) throws Exception
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment a = arena.allocate(COPY_REGION, 64);
            final MemorySegment b = arena.allocate(COPY_REGION, 64);
            a.fill((byte)1);
            b.fill((byte)2);
            final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
            final int chunk = 1 << 20;
            long offset = 0;
            while (clock.sending())
            {
                MemorySegment.copy(a, offset, b, offset, chunk);
                offset = (offset + chunk) % COPY_REGION;
                clock.add(1);
            }
            return report(clock, chunk); // "messages" of 1 MiB: mb_per_sec is the bandwidth
        }
    }

    private static String hiccups(final long warmup, final long measure) throws Exception
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final long[][] found = new long[cores][3]; // per core: gaps over 100 us, over 1 ms, the longest
        final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
        final Thread[] threads = new Thread[cores];
        for (int t = 0; t < cores; t++)
        {
            final long[] mine = found[t];
            threads[t] = Thread.ofPlatform().name("hiccups-" + t).start(() ->
            {
                long last = System.nanoTime();
                while (clock.sending())
                {
                    final long now = System.nanoTime();
                    final long gap = now - last;
                    last = now;
                    if (gap > 100_000 && clock.inWindow(now))
                    {
                        mine[0]++;
                        mine[1] += gap > 1_000_000 ? 1 : 0;
                        mine[2] = Math.max(mine[2], gap);
                    }
                }
            });
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        long over100us = 0;
        long over1ms = 0;
        long longest = 0;
        for (final long[] f : found)
        {
            over100us += f[0];
            over1ms += f[1];
            longest = Math.max(longest, f[2]);
        }
        final double perCoreSecond = (double)cores * measure / 1e9;
        return report(clock, 8, String.format(Locale.ROOT,
            "\"cores\":%d,\"gaps_over_100us_per_core_s\":%.2f,\"gaps_over_1ms_per_core_s\":%.2f," +
            "\"longest_gap_us\":%.1f,",
            cores, over100us / perCoreSecond, over1ms / perCoreSecond, longest / 1e3));
    }

    private static String logAppend(final Path dir, final int size, final long warmup, final long measure)
        throws Exception
    {
        final Path file = Files.createTempFile(dir, "weft-limit-log-", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            DropBehind dropBehind = new DropBehind())
        {
            final byte[] record = new byte[size];
            java.util.Arrays.fill(record, (byte)7);
            final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
            long base = 0;
            while (clock.sending())
            {
                try (Arena arena = Arena.ofConfined())
                {
                    final MemorySegment chunk = ch.map(FileChannel.MapMode.READ_WRITE, base, LOG_CHUNK, arena);
                    for (long at = 0; at + size <= LOG_CHUNK && clock.sending(); at += size)
                    {
                        MemorySegment.copy(record, 0, chunk, ValueLayout.JAVA_BYTE, at, size);
                        clock.add(1);
                    }
                }
                base += LOG_CHUNK;
                dropBehind.advance(file.toFile(), base); // the pages recycled as a log's are
            }
            return report(clock, size);
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    private static RingBuffer mapRing(final Path file) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, RING_FILE_LENGTH);
            return new OneToOneRingBuffer(new UnsafeBuffer(mapped));
        }
    }

    private static String spscProducer(final Path file, final int size, final long warmup, final long measure)
        throws Exception
    {
        final RingBuffer ring = mapRing(file);
        final IdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 100_000);
        final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
        long i = 0;
        while (clock.sending())
        {
            write(ring, idle, size, Payload.KIND_DATA, i++);
        }
        write(ring, idle, Payload.HEADER_LENGTH, Payload.KIND_END, i);
        return report(clock, size);
    }

    private static void write(final RingBuffer ring, final IdleStrategy idle, final int size, final int kind,
        final long counter)
    {
        int index;
        while ((index = ring.tryClaim(1, size)) < 0)
        {
            idle.idle();
        }
        idle.reset();
        Payload.write(ring.buffer(), index, size, kind, 0, counter, System.nanoTime());
        ring.commit(index);
    }

    private static String spscConsumer(final Path file, final int size, final long warmup, final long measure)
        throws Exception
    {
        final RingBuffer ring = mapRing(file);
        final IdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 100_000);
        final Deliveries deliveries = new Deliveries(1, 1, 1);
        final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
        deliveries.clock(clock, false); // flat out
        final long deadline = clock.stopAt() + TimeUnit.SECONDS.toNanos(30);
        while (!deliveries.complete() && System.nanoTime() < deadline)
        {
            idle.idle(ring.read((type, buffer, index, length) -> deliveries.onMessage(buffer, index, length), 256));
        }
        clock.awaitWindow(TimeUnit.SECONDS.toNanos(30));
        return clock.report(1, size, 0, deliveries, "");
    }

    private static String ring(final Path file, final int rank, final long warmup, final long measure)
        throws Exception
    {
        final UnsafeBuffer slots;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            slots = new UnsafeBuffer(ch.map(FileChannel.MapMode.READ_WRITE, 0, TOKEN_FILE_LENGTH));
        }
        final int mine = rank * 64;
        final int next = ((rank + 1) % 3) * 64;
        final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
        if (rank == 0)
        {
            long round = 0;
            while (clock.sending())
            {
                round++;
                final long start = System.nanoTime();
                slots.putLongRelease(next, round);
                await(slots, mine, round);
                clock.latency(System.nanoTime() - start);
                clock.delivered();
            }
            slots.putLongRelease(next, Long.MAX_VALUE);
            return report(clock, 8);
        }
        long expected = 1;
        while (true)
        {
            final long token = await(slots, mine, expected);
            slots.putLongRelease(next, token);
            if (token == Long.MAX_VALUE)
            {
                return report(clock, 8);
            }
            expected = token + 1;
        }
    }

    /** Waits until the slot holds at least {@code value} (a token or the stop value); spins, then yields. */
    private static long await(final UnsafeBuffer slots, final int slot, final long value)
    {
        int spins = 0;
        long v;
        while ((v = slots.getLongAcquire(slot)) < value)
        {
            if (++spins < 200)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
        }
        return v;
    }

    private static String tcpSink(final int port, final long warmup, final long measure) throws Exception
    {
        try (ServerSocketChannel server = ServerSocketChannel.open())
        {
            server.bind(new InetSocketAddress("127.0.0.1", port));
            final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
            try (SocketChannel ch = server.accept())
            {
                final ByteBuffer buf = ByteBuffer.allocateDirect(TCP_CHUNK);
                int n;
                while ((n = ch.read(buf.clear())) >= 0)
                {
                    clock.add(n);
                }
            }
            return report(clock, 1); // units of one byte: mb_per_sec is the bandwidth
        }
    }

    private static SocketChannel dial(final int port) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true)
        {
            try
            {
                final SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                return ch;
            }
            catch (final IOException ex)
            {
                if (System.nanoTime() > deadline)
                {
                    throw ex;
                }
                Thread.sleep(20); // the other side is still starting
            }
        }
    }

    private static String tcpSource(final int port, final long warmup, final long measure) throws Exception
    {
        try (SocketChannel ch = dial(port))
        {
            final ByteBuffer buf = ByteBuffer.allocateDirect(TCP_CHUNK);
            final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
            while (clock.sending())
            {
                buf.clear();
                while (buf.hasRemaining())
                {
                    ch.write(buf);
                }
            }
            return report(clock, 1);
        }
    }

    private static String tcpEcho(final int port, final int cpu, final long warmup, final long measure) throws Exception
    {
        if (cpu >= 0)
        {
            Affinity.pin(cpu);
        }
        try (ServerSocketChannel server = ServerSocketChannel.open())
        {
            server.bind(new InetSocketAddress("127.0.0.1", port));
            final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
            try (SocketChannel ch = server.accept())
            {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                final ByteBuffer buf = ByteBuffer.allocateDirect(PING);
                while (readFully(ch, buf.clear()))
                {
                    buf.flip();
                    while (buf.hasRemaining())
                    {
                        ch.write(buf);
                    }
                }
            }
            return report(clock, PING);
        }
    }

    private static String tcpPing(final int port, final long rate, final int cpu, final long warmup, final long measure)
        throws Exception
    {
        if (cpu >= 0)
        {
            Affinity.pin(cpu);
        }
        try (SocketChannel ch = dial(port))
        {
            final ByteBuffer buf = ByteBuffer.allocateDirect(PING);
            final SteadyClock clock = SteadyClock.awaitGo(warmup, measure);
            final long interval = rate > 0 ? TimeUnit.SECONDS.toNanos(1) / rate : 0;
            for (long i = 0; clock.sending(); i++)
            {
                if (interval > 0)
                {
                    clock.pace(i, interval);
                }
                final long start = System.nanoTime();
                buf.clear();
                while (buf.hasRemaining())
                {
                    ch.write(buf);
                }
                if (!readFully(ch, buf.clear()))
                {
                    throw new IOException("the echo side closed the connection");
                }
                clock.latency(System.nanoTime() - start);
                clock.delivered();
            }
            return report(clock, PING);
        }
    }

    private static boolean readFully(final SocketChannel ch, final ByteBuffer buf) throws IOException
    {
        while (buf.hasRemaining())
        {
            if (ch.read(buf) < 0)
            {
                return false;
            }
        }
        return true;
    }
}

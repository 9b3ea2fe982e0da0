package io.weft.bench;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The job queue load of {@code weft bench kv --tests jobs}: workers wait in {@code BLPOP key 0} at each port given (a
 * store's every member, or one redis-server's port as often), one producer pushes a job at a fixed rate with
 * {@code LPUSH} at the first, and each worker that takes a job waits again at once. It measures, after a warm-up, the
 * jobs taken a second and how long each took from its push's sending to its arrival at a worker. One thread and one
 * selector drive every connection, so that a thousand idle workers cost no threads. The selector waits in whole
 * milliseconds: above 1,000 jobs a second the pushes due go in bursts, at least once a millisecond (the same for
 * every system; the latency counts from each push's own sending). From a store that counts them in INFO
 * ({@code weft_writes_applied}) it also reads the writes applied per job taken in the window: the pushes, the workers'
 * BLPOPs and every command a wake sent through the group again.
 */
final class JobQueue implements AutoCloseable
{
    private static final byte[] CRLF = {'\r', '\n'};
    private static final Pattern WRITES_APPLIED = Pattern.compile("weft_writes_applied:(\\d+)");

    private final Selector selector;
    private final List<SocketChannel> channels = new ArrayList<>();
    private final SocketChannel producer;
    private final byte[] waitCommand;
    private final String key;
    private final ByteBuffer out = ByteBuffer.allocate(256);
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    private final int infoPort;
    private double writesPerJob = Double.NaN;

    /** Connects {@code workers} waiting workers to each of {@code ports}, and the producer to the first. */
    JobQueue(final List<Integer> ports, final int workers, final String key) throws IOException
    {
        this.key = key;
        this.infoPort = ports.getFirst();
        this.waitCommand = command("BLPOP", key, "0");
        selector = Selector.open();
        producer = connect(ports.getFirst());
        for (final int port : ports)
        {
            for (int w = 0; w < workers; w++)
            {
                final SocketChannel worker = connect(port);
                worker.register(selector, SelectionKey.OP_READ, new Worker());
                write(worker, waitCommand);
            }
        }
        producer.register(selector, SelectionKey.OP_READ, null);
    }

    /**
     * Pushes {@code rate} jobs a second for {@code warmup} and then {@code measure}, and returns the measured window:
     * jobs taken a second and the push-to-take latency's percentiles in milliseconds. A job taken twice, an error
     * reply, or a job not taken within {@code measure} after the last push fails the run.
     */
    KvBenchCommand.Pass run(final double rate, final Duration warmup, final Duration measure) throws IOException
    {
        final int jobs = (int)Math.ceil(rate * (warmup.toNanos() + measure.toNanos()) / 1e9);
        final long[] pushedAt = new long[jobs];
        final boolean[] taken = new boolean[jobs];
        final Histogram latency = new Histogram(3);
        final long start = System.nanoTime();
        final long windowFrom = start + warmup.toNanos();
        final long windowTo = windowFrom + measure.toNanos();
        final long giveUp = windowTo + measure.toNanos();
        int pushed = 0;
        int done = 0;
        long inWindow = 0;
        long writesAtOpen = -1;
        long writesAtClose = -1;
        long takenAtOpen = 0;
        long takenAtClose = 0;
        while (done < jobs)
        {
            final long now = System.nanoTime();
            if (writesAtOpen == -1 && now - windowFrom >= 0)
            {
                writesAtOpen = writesApplied();
                takenAtOpen = done;
            }
            if (writesAtClose == -1 && now - windowTo >= 0)
            {
                writesAtClose = writesApplied();
                takenAtClose = done;
            }
            if (now - giveUp > 0)
            {
                throw new IllegalStateException((jobs - done) + " of " + jobs + " jobs not taken " + measure +
                    " after the last push");
            }
            while (pushed < jobs && now - (start + (long)(pushed * 1e9 / rate)) >= 0)
            {
                pushedAt[pushed] = System.nanoTime();
                write(producer, command("LPUSH", key, Integer.toString(pushed)));
                pushed++;
            }
            final long next = pushed < jobs ? start + (long)(pushed * 1e9 / rate) - System.nanoTime() : 100_000_000L;
            if (next > 0)
            {
                selector.select(Math.max(1, next / 1_000_000));
            }
            else
            {
                selector.selectNow();
            }
            for (final SelectionKey k : selector.selectedKeys())
            {
                final SocketChannel channel = (SocketChannel)k.channel();
                if (k.attachment() instanceof Worker worker)
                {
                    for (int job = worker.read(channel, in); job >= 0; job = worker.next())
                    {
                        if (taken[job])
                        {
                            throw new IllegalStateException("job " + job + " taken twice");
                        }
                        taken[job] = true;
                        done++;
                        final long at = System.nanoTime();
                        if (at - windowFrom >= 0 && at - windowTo < 0)
                        {
                            latency.recordValue(Math.max(1, (at - pushedAt[job]) / 1_000));
                            inWindow++;
                        }
                        write(channel, waitCommand);
                    }
                }
                else
                {
                    drainProducer();
                }
            }
            selector.selectedKeys().clear();
        }
        if (writesAtClose == -1) // every job taken before the window's end: the last push is due just before it
        {
            writesAtClose = writesApplied();
            takenAtClose = done;
        }
        if (writesAtOpen >= 0 && writesAtClose >= 0 && takenAtClose > takenAtOpen)
        {
            writesPerJob = (writesAtClose - writesAtOpen) / (double)(takenAtClose - takenAtOpen);
        }
        return new KvBenchCommand.Pass(inWindow / (measure.toNanos() / 1e9), latency.getValueAtPercentile(50) / 1e3,
            latency.getValueAtPercentile(95) / 1e3, latency.getValueAtPercentile(99) / 1e3);
    }

    /** The writes the store applied per job taken in the last run's window; NaN where INFO does not count them. */
    double writesPerJob()
    {
        return writesPerJob;
    }

    @Override
    public void close() throws IOException
    {
        for (final SocketChannel c : channels)
        {
            c.close();
        }
        selector.close();
    }

    /** The store's {@code weft_writes_applied} from INFO at the first port, or -2 where it has none (redis-server). */
    private long writesApplied() throws IOException
    {
        try (Socket s = new Socket("127.0.0.1", infoPort))
        {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(command("INFO", "replication"));
            final InputStream reply = s.getInputStream();
            final StringBuilder header = new StringBuilder(); // $length CR LF: INFO answers one bulk string
            for (int b = reply.read(); b != '\n'; b = reply.read())
            {
                if (b < 0)
                {
                    throw new IOException("INFO: the connection closed");
                }
                header.append((char)b);
            }
            if (header.charAt(0) != '$')
            {
                throw new IllegalStateException("INFO answered " + header.toString().strip());
            }
            final int length = Integer.parseInt(header.substring(1, header.length() - 1));
            final Matcher writes = WRITES_APPLIED.matcher(new String(reply.readNBytes(length),
                StandardCharsets.US_ASCII));
            return writes.find() ? Long.parseLong(writes.group(1)) : -2;
        }
    }

    private void drainProducer() throws IOException
    {
        in.clear();
        if (producer.read(in) < 0)
        {
            throw new IOException("the producer's connection closed");
        }
        for (int i = 0; i < in.position(); i++)
        {
            if (in.get(i) == '-')
            {
                throw new IllegalStateException("LPUSH answered an error: " +
                    new String(in.array(), i, in.position() - i, StandardCharsets.US_ASCII).strip());
            }
        }
    }

    private SocketChannel connect(final int port) throws IOException
    {
        final SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        channels.add(c);
        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
        c.configureBlocking(false);
        return c;
    }

    /** Writes {@code bytes} whole: a command is small, and a loopback socket's buffer takes it at once. */
    private static void write(final SocketChannel c, final byte[] bytes) throws IOException
    {
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining())
        {
            c.write(b);
        }
    }

    private byte[] command(final String... words)
    {
        out.clear();
        out.put((byte)'*').put(ascii(Integer.toString(words.length))).put(CRLF);
        for (final String w : words)
        {
            final byte[] bytes = ascii(w);
            out.put((byte)'$').put(ascii(Integer.toString(bytes.length))).put(CRLF).put(bytes).put(CRLF);
        }
        final byte[] command = new byte[out.position()];
        out.flip().get(command);
        return command;
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A worker's connection: what it read of its replies so far. A reply to {@code BLPOP key 0} is
     * {@code *2 $len key $len job}; the job is a decimal number.
     */
    private static final class Worker
    {
        private final StringBuilder pending = new StringBuilder();

        /** Reads what arrived; the first job complete in it, or -1. */
        int read(final SocketChannel channel, final ByteBuffer buffer) throws IOException
        {
            buffer.clear();
            if (channel.read(buffer) < 0)
            {
                throw new IOException("a worker's connection closed");
            }
            pending.append(new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII));
            return next();
        }

        /** The next job complete in what was read, or -1. */
        int next()
        {
            if (pending.length() > 0 && pending.charAt(0) == '-')
            {
                throw new IllegalStateException("BLPOP answered an error: " + pending.toString().strip());
            }
            // *2 CRLF $n CRLF key CRLF $m CRLF job CRLF: five lines
            int at = 0;
            for (int line = 0; line < 5; line++)
            {
                at = pending.indexOf("\r\n", at);
                if (at < 0)
                {
                    return -1;
                }
                at += 2;
            }
            final int jobStart = pending.lastIndexOf("\r\n", at - 3) + 2;
            final int job = Integer.parseInt(pending, jobStart, at - 2, 10);
            pending.delete(0, at);
            return job;
        }
    }
}

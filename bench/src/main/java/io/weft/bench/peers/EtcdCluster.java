package io.weft.bench.peers;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The etcd peer of {@code weft bench kv}: a cluster of {@code etcd} processes (Debian package etcd-server) on
 * loopback with their default durability (a write is committed by a majority's raft log, fsynced), driven through
 * etcd's own client protocol, gRPC ({@code KV.Put} and {@code KV.Range}, both linearizable by default; the jetcd
 * project's generated stubs over grpc-java, one HTTP/2 channel per member), since the package ships no load
 * generator. The load is the same as redis-benchmark's: the same number of requests in flight ({@code -c} x
 * {@code -P}), random keys of the same key space, values of the same size; a warm-up, then a timed window. The
 * HTTP/JSON gateway serves only the health checks.
 */
public final class EtcdCluster implements AutoCloseable
{
    private final List<Process> nodes = new ArrayList<>();
    private final List<URI> clients = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
        .connectTimeout(Duration.ofSeconds(5)).build();

    /** One timed window: requests per second and latency percentiles in milliseconds. */
    public record Window(double rps, double p50, double p95, double p99, long errors)
    {
    }

    /** Starts {@code n} members on the given loopback ports (client ports first, then peer ports) in {@code dir}. */
    public EtcdCluster(final Path dir, final List<Integer> ports) throws IOException, InterruptedException
    {
        final int n = ports.size() / 2;
        final StringBuilder cluster = new StringBuilder();
        for (int i = 0; i < n; i++)
        {
            cluster.append(i == 0 ? "" : ",").append("e").append(i).append("=http://127.0.0.1:")
                .append(ports.get(n + i));
        }
        try
        {
            for (int i = 0; i < n; i++)
            {
                final String client = "http://127.0.0.1:" + ports.get(i);
                final String peer = "http://127.0.0.1:" + ports.get(n + i);
                final Path data = Files.createDirectories(dir.resolve("e" + i));
                nodes.add(new ProcessBuilder("etcd", "--name", "e" + i, "--data-dir", data.toString(),
                    "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
                    "--initial-advertise-peer-urls", peer, "--initial-cluster", cluster.toString(),
                    "--initial-cluster-state", "new", "--initial-cluster-token", "weft-bench",
                    "--logger", "zap", "--log-outputs", "stderr", "--log-level", "error")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
                clients.add(URI.create(client));
            }
            awaitHealthy();
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    private void awaitHealthy() throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (final URI c : clients)
        {
            while (true)
            {
                try
                {
                    final HttpResponse<String> r = http.send(HttpRequest.newBuilder(c.resolve("/health")).GET()
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200 && r.body().contains("\"true\""))
                    {
                        break;
                    }
                }
                catch (final IOException ex)
                {
                    // not up yet
                }
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("etcd at " + c + " not healthy after 60 s");
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * Runs {@code inFlight} request loops spread over the members, puts ({@code write}) or ranges of one random key
     * of {@code keys}; measures a window of {@code measure} after {@code warmup}.
     */
    public Window run(final boolean write, final int inFlight, final int keys, final int size, final Duration warmup,
        final Duration measure) throws InterruptedException
    {
        final ByteString value = ByteString.copyFrom("x".repeat(size), StandardCharsets.US_ASCII);
        final List<KVGrpc.KVStub> stubs = new ArrayList<>();
        for (final URI c : clients)
        {
            final ManagedChannel channel = ManagedChannelBuilder.forAddress(c.getHost(), c.getPort()).usePlaintext()
                .build();
            channels.add(channel);
            stubs.add(KVGrpc.newStub(channel));
        }
        final AtomicBoolean measuring = new AtomicBoolean();
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong done = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicReference<Throwable> first = new AtomicReference<>();
        final List<CompletableFuture<Void>> loops = new ArrayList<>();
        for (int i = 0; i < inFlight; i++)
        {
            final CompletableFuture<Void> finished = new CompletableFuture<>();
            loops.add(finished);
            next(stubs.get(i % stubs.size()), write, keys, value, measuring, running, done, errors, latency, first,
                finished);
        }
        Thread.sleep(warmup.toMillis());
        synchronized (latency)
        {
            latency.reset();
        }
        done.set(0);
        errors.set(0);
        measuring.set(true);
        final long start = System.nanoTime();
        Thread.sleep(measure.toMillis());
        final long count = done.get();
        final double seconds = (System.nanoTime() - start) / 1e9;
        measuring.set(false);
        running.set(false);
        CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).orTimeout(60, TimeUnit.SECONDS).join();
        channels.forEach(ManagedChannel::shutdownNow);
        channels.clear();
        if (count == 0 && first.get() != null)
        {
            throw new IllegalStateException("etcd answered no request: " + first.get(), first.get());
        }
        synchronized (latency)
        {
            return new Window(count / seconds, latency.getValueAtPercentile(50) / 1e6,
                latency.getValueAtPercentile(95) / 1e6, latency.getValueAtPercentile(99) / 1e6, errors.get());
        }
    }

    private void next(final KVGrpc.KVStub member, final boolean write, final int keys, final ByteString value,
        final AtomicBoolean measuring, final AtomicBoolean running, final AtomicLong done, final AtomicLong errors,
        final Histogram latency, final AtomicReference<Throwable> first, final CompletableFuture<Void> finished)
    {
        if (!running.get())
        {
            finished.complete(null);
            return;
        }
        final ByteString key = ByteString.copyFrom(
            String.format("key:%012d", ThreadLocalRandom.current().nextInt(keys)), StandardCharsets.US_ASCII);
        final long sent = System.nanoTime();
        final StreamObserver<Object> answer = new StreamObserver<>()
        {
            @Override
            public void onNext(final Object response)
            {
                final long took = System.nanoTime() - sent;
                if (measuring.get())
                {
                    done.incrementAndGet();
                    synchronized (latency)
                    {
                        latency.recordValue(Math.min(took, latency.getHighestTrackableValue()));
                    }
                }
            }

            @Override
            public void onError(final Throwable ex)
            {
                first.compareAndSet(null, ex);
                errors.incrementAndGet();
                next(member, write, keys, value, measuring, running, done, errors, latency, first, finished);
            }

            @Override
            public void onCompleted()
            {
                next(member, write, keys, value, measuring, running, done, errors, latency, first, finished);
            }
        };
        final KVGrpc.KVStub stub = member.withDeadlineAfter(30, TimeUnit.SECONDS);
        if (write)
        {
            stub.put(PutRequest.newBuilder().setKey(key).setValue(value).build(), observer(answer));
        }
        else
        {
            stub.range(RangeRequest.newBuilder().setKey(key).build(), observer(answer));
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> StreamObserver<T> observer(final StreamObserver<Object> answer)
    {
        return (StreamObserver<T>)(StreamObserver<?>)answer;
    }

    @Override
    public void close()
    {
        for (final Process p : nodes)
        {
            p.destroy();
        }
        for (final Process p : nodes)
        {
            try
            {
                if (!p.waitFor(10, TimeUnit.SECONDS))
                {
                    p.destroyForcibly();
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        channels.forEach(ManagedChannel::shutdownNow);
        http.close();
        executor.shutdownNow();
    }
}

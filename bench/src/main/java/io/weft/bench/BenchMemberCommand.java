package io.weft.bench;

import io.weft.config.ConfigLoader;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.membership.Subgroup;
import io.weft.smc.BatchStats;
import io.weft.smc.Claim;
import io.weft.smc.Message;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * One bench member process: sends {@code --messages} messages built in place (zero copy: only an 8-byte counter is
 * written, as Spindle measured in-place construction), counts deliveries, records send-to-delivery latency of its own
 * messages, and prints one {@code BENCH} line of JSON.
 */
@Command(name = "bench-member", hidden = true, description = "One member of a bench run (started by weft bench).")
final class BenchMemberCommand implements Callable<Integer>
{
    @Option(names = "--config", required = true)
    Path config;

    @Option(names = "--member", required = true)
    int member;

    @Option(names = "--messages", required = true)
    long messages;

    @Option(names = "--size", required = true)
    int size;

    @Option(names = "--delay-us", defaultValue = "0")
    long delayMicros;

    @Option(names = "--callback-us", defaultValue = "0")
    long callbackMicros;

    @Option(names = "--active-senders", required = true)
    int activeSenders;

    @Option(names = "--rate", defaultValue = "0", description = "Messages per second per sender; 0: as fast as possible.")
    long rate;

    private final Recorder latency = new Recorder(3);
    private volatile long delivered;
    private long ownDelivered;
    private volatile long deliveredAt;

    @Override
    public Integer call() throws Exception
    {
        final WeftConfig c = ConfigLoader.load(config, Map.of("weft.member.id", member));
        final long expected = messages * activeSenders;
        final long callbackNanos = callbackMicros * 1000;
        final Group group = Group.builder(c).onDelivery("bench", m -> onMessage(m, expected, callbackNanos)).open();
        final Subgroup s = group.subgroup("bench");
        final long start = System.nanoTime();
        if (s.isSender() && delayMicros >= 0)
        {
            send(s);
        }
        final long deadline = start + Duration.ofMinutes(5).toNanos();
        while (delivered < expected && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        final double seconds = ((delivered < expected ? System.nanoTime() : deliveredAt) - start) / 1e9;
        final Histogram h = latency.getIntervalHistogram();
        final StringBuilder json = new StringBuilder("{");
        field(json, "member", member);
        field(json, "complete", delivered >= expected);
        field(json, "delivered", delivered);
        field(json, "seconds", seconds);
        field(json, "delivered_msgs_per_sec", delivered / seconds);
        field(json, "mb_per_sec", delivered * (double)size / seconds / 1e6);
        field(json, "latency_p50_us", h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50));
        field(json, "latency_p99_us", h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99));
        field(json, "latency_p999_us", h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99.9));
        field(json, "writes", group.writesPosted());
        field(json, "bytes_pushed", group.bytesPushed());
        field(json, "nulls_sent", s.nullsSent());
        field(json, "predicate_busy_s", group.predicateBusyNanos() / 1e9);
        batch(json, "send", s.sendBatches());
        batch(json, "receive", s.receiveBatches());
        batch(json, "delivery", s.deliveryBatches());
        json.setLength(json.length() - 1);
        System.out.println("BENCH " + json.append('}'));
        group.finish(Duration.ofSeconds(30));
        return delivered >= expected ? 0 : 4;
    }

    private void onMessage(final Message m, final long expected, final long callbackNanos)
    {
        // latency over the second half of the own messages: the first half warms the JIT up (same for every peer)
        if (m.senderId() == member && ++ownDelivered > messages / 2)
        {
            latency.recordValue(Math.max(0, (System.nanoTime() - m.timestampNanos()) / 1000));
        }
        if (callbackNanos > 0)
        {
            final long until = System.nanoTime() + callbackNanos;
            while (System.nanoTime() < until)
            {
                Thread.onSpinWait();
            }
        }
        final long d = delivered + 1;
        delivered = d;
        if (d == expected)
        {
            deliveredAt = System.nanoTime();
        }
    }

    private void send(final Subgroup s)
    {
        final Claim claim = new Claim();
        final long delayNanos = delayMicros * 1000;
        final long interval = rate > 0 ? 1_000_000_000L / rate : 0;
        final long start = System.nanoTime();
        for (long i = 0; i < messages; i++)
        {
            if (interval > 0)
            {
                io.weft.bench.peers.PeerResult.pace(start + i * interval); // fixed-rate pacing for latency runs
            }
            if (s.claim(size, claim, Duration.ofMinutes(1)) < 0)
            {
                throw new IllegalStateException("back-pressured for a minute: the group is stuck");
            }
            if (size >= 8)
            {
                claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset(), i);
            }
            claim.commit(size);
            if (delayNanos > 0)
            {
                final long until = System.nanoTime() + delayNanos;
                while (System.nanoTime() < until)
                {
                    Thread.onSpinWait();
                }
            }
        }
    }

    private static void field(final StringBuilder json, final String name, final Object value)
    {
        json.append('"').append(name).append("\":");
        if (value instanceof Double d)
        {
            json.append(String.format(java.util.Locale.ROOT, "%.3f", d));
        }
        else
        {
            json.append(value);
        }
        json.append(',');
    }

    private static void batch(final StringBuilder json, final String kind, final BatchStats b)
    {
        field(json, kind + "_batch_mean", b.mean());
        field(json, kind + "_batch_max", b.max());
        json.append('"').append(kind).append("_batch_histogram\":\"").append(b.describe()).append("\",");
    }
}

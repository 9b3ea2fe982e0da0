package io.weft.examples.avionics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.weft.config.TopicConfig;
import io.weft.config.WeftConfig;
import io.weft.membership.View;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the dashboard shows, sampled once a second from this member's meters: per topic the delivery rate, latency
 * percentiles (the recorder's), the mean delivery batch, nulls and durability lag, the last 300 samples kept so
 * that a page opened late draws the history too; and the view timeline.
 */
final class DashboardModel
{
    static final int KEPT = 300;

    private final WeftConfig config;
    private final MeterRegistry registry;
    private final Timeline timeline;
    private final long startNanos;
    private final Map<String, double[]> previous = new HashMap<>();
    private final Deque<Map<String, Object>> samples = new ArrayDeque<>();
    private double previousSeconds;

    DashboardModel(final WeftConfig config, final MeterRegistry registry, final Timeline timeline,
        final long startNanos)
    {
        this.config = config;
        this.registry = registry;
        this.timeline = timeline;
        this.startNanos = startNanos;
    }

    /** Takes one sample of every topic's meters (the sampler thread, once a second). */
    synchronized void sample()
    {
        final double seconds = (System.nanoTime() - startNanos) / 1e9;
        final double elapsed = Math.max(1e-3, seconds - previousSeconds);
        final Map<String, Object> sample = new LinkedHashMap<>();
        sample.put("seconds", seconds);
        final Map<String, Object> topics = new LinkedHashMap<>();
        for (final TopicConfig t : config.dds().topics())
        {
            final String subgroup = t.subgroupName();
            final double delivered = counter("weft.dds.samples.delivered", "topic", t.name());
            final String batchKind = t.qos() == io.weft.config.QosLevel.UNORDERED ? "receive" : "delivery";
            final double batches = counter("weft.smc.batch." + batchKind + ".batches", "subgroup", subgroup);
            final double batched = counter("weft.smc.batch." + batchKind + ".messages", "subgroup", subgroup);
            final double[] before = previous.getOrDefault(t.name(), new double[]{delivered, batches, batched});
            previous.put(t.name(), new double[]{delivered, batches, batched});
            final Map<String, Object> topic = new LinkedHashMap<>();
            topic.put("qos", t.qos().configName());
            topic.put("delivered", (long)delivered);
            topic.put("rate", (delivered - before[0]) / elapsed);
            topic.put("batch", batches > before[1] ? (batched - before[2]) / (batches - before[1]) : 0.0);
            topic.put("nulls", (long)counter("weft.smc.nulls", "subgroup", subgroup));
            final Timer latency = registry.find("avionics.latency").tag("topic", t.name()).timer();
            if (latency != null)
            {
                for (final ValueAtPercentile v : latency.takeSnapshot().percentileValues())
                {
                    if (v.value() > 0) // 0: no sample in the window (the chart's axis is logarithmic)
                    {
                        topic.put("p" + Math.round(v.percentile() * 100) + "Micros", v.value(TimeUnit.MICROSECONDS));
                    }
                }
            }
            final Gauge lag = registry.find("weft.dds.durability.lag").tag("topic", t.name()).gauge();
            final double behind = lag == null ? Double.NaN : lag.value();
            if (Double.isFinite(behind)) // NaN: not logged, or the participant is closing
            {
                topic.put("durabilityLag", behind);
            }
            topics.put(t.name(), topic);
        }
        sample.put("topics", topics);
        samples.addLast(sample);
        if (samples.size() > KEPT)
        {
            samples.removeFirst();
        }
        previousSeconds = seconds;
    }

    private double counter(final String name, final String tag, final String value)
    {
        final FunctionCounter c = registry.find(name).tag(tag, value).functionCounter();
        return c == null ? 0 : c.count();
    }

    /** The state the page polls: this member, the current view, the timeline and the kept samples. */
    synchronized Map<String, Object> state()
    {
        final Map<String, Object> state = new LinkedHashMap<>();
        state.put("member", config.memberId());
        state.put("role", Avionics.role(config.memberId()));
        state.put("group", config.group().name());
        final View view = timeline.current();
        if (view != null)
        {
            final List<Map<String, Object>> members = new ArrayList<>();
            for (final int m : view.members())
            {
                members.add(Map.of("id", m, "role", Avionics.role(m)));
            }
            state.put("view", Map.of("id", view.id(), "leader", view.leader(), "members", members));
        }
        state.put("timeline", timeline.events());
        state.put("samples", List.copyOf(samples));
        return state;
    }
}

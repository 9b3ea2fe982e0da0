package io.weft.smc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * The multicast's meters of one member over all its views: each subgroup's meters are registered once, and read the
 * sum of the closed views' counts and the current view's (every view has fresh {@link SmcMeters}, and the next view's
 * subgroups start before the last view's close, so per-view meters would collide in the registry).
 */
public final class SmcTotals
{
    private final MeterRegistry registry;
    private final Tags member;
    private final Map<String, Subgroup> subgroups = new HashMap<>(); // guarded by this
    private boolean closed;

    /** Totals whose meters are registered in {@code registry}, tagged with {@code member} and their subgroup. */
    public SmcTotals(final MeterRegistry registry, final Tags member)
    {
        this.registry = registry;
        this.member = member;
    }

    /**
     * The meters of {@code subgroup} for a new view; the previous view's counts become part of the totals. After
     * {@link #close} (a view opening late, while the group closes) the meters count but are not registered.
     */
    synchronized SmcMeters next(final String subgroup)
    {
        if (closed)
        {
            return new SmcMeters();
        }
        return subgroups.computeIfAbsent(subgroup, name -> new Subgroup(registry, member.and("subgroup", name))).next();
    }

    /**
     * {@code subgroup} was removed at run time, after its last delivery: its meters leave the registry, and a subgroup
     * added again with its name counts from zero.
     */
    public synchronized void remove(final String subgroup)
    {
        final Subgroup gone = subgroups.remove(subgroup);
        if (gone != null)
        {
            gone.meters.forEach(registry::remove);
        }
    }

    /**
     * The group closed: its meters leave the registry. A group opened again with the same registry then registers
     * meters of its own; it would otherwise be handed these, which read this group's counts.
     */
    public synchronized void close()
    {
        closed = true;
        subgroups.values().forEach(s -> s.meters.forEach(registry::remove));
    }

    /** One subgroup's totals: closed views' sums plus the current view's meters. */
    private static final class Subgroup
    {
        private final long[] closed = new long[Field.values().length];
        private final long[] closedMax = new long[3]; // send, receive, delivery
        private SmcMeters current = new SmcMeters();
        private final List<Meter> meters = new ArrayList<>(); // registered once, in the constructor

        Subgroup(final MeterRegistry registry, final Tags tags)
        {
            batchMeters(registry, tags, "send", Field.SEND_BATCHES, "messages published per send push");
            batchMeters(registry, tags, "receive", Field.RECEIVE_BATCHES,
                "messages consumed per sender per receive pass");
            batchMeters(registry, tags, "delivery", Field.DELIVERY_BATCHES, "messages delivered per delivery pass");
            counter(registry, tags, "weft.smc.nulls", Field.NULLS, "null messages sent");
            counter(registry, tags, "weft.smc.delivered", Field.DELIVERED, "messages delivered");
            counter(registry, tags, "weft.smc.committer.publishes", Field.COMMITTER_PUBLISHES,
                "pushes made by a committing thread, with no wake-up of the predicate thread");
            counter(registry, tags, "weft.smc.callback.failures", Field.CALLBACK_FAILURES,
                "delivery, batch and fence callbacks that threw (logged at most once per 10 s)");
            meters.add(FunctionTimer.builder("weft.smc.latency", this, s -> s.total(Field.LATENCY_COUNT),
                    s -> s.total(Field.LATENCY_NANOS), TimeUnit.NANOSECONDS).tags(tags)
                .description("commit to delivery of this member's own messages").register(registry));
        }

        /** weft.smc.batch.KIND.batches and .messages (their ratio is the mean batch) and .max. */
        private void batchMeters(final MeterRegistry registry, final Tags tags, final String kind, final Field batches,
            final String description)
        {
            final String name = "weft.smc.batch." + kind;
            counter(registry, tags, name + ".batches", batches, description);
            counter(registry, tags, name + ".messages", Field.values()[batches.ordinal() + 1], description);
            meters.add(Gauge.builder(name + ".max", this, s -> s.max(batches)).tags(tags).description(description)
                .register(registry));
        }

        private void counter(final MeterRegistry registry, final Tags tags, final String name, final Field field,
            final String description)
        {
            meters.add(FunctionCounter.builder(name, this, s -> s.total(field)).tags(tags).description(description)
                .register(registry));
        }

        synchronized SmcMeters next()
        {
            for (final Field f : Field.values())
            {
                closed[f.ordinal()] += f.read.applyAsLong(current);
            }
            closedMax[0] = Math.max(closedMax[0], current.sendBatches.max());
            closedMax[1] = Math.max(closedMax[1], current.receiveBatches.max());
            closedMax[2] = Math.max(closedMax[2], current.deliveryBatches.max());
            current = new SmcMeters();
            return current;
        }

        synchronized long total(final Field field)
        {
            return closed[field.ordinal()] + field.read.applyAsLong(current);
        }

        synchronized long max(final Field batches)
        {
            final BatchStats now = switch (batches)
            {
                case SEND_BATCHES -> current.sendBatches;
                case RECEIVE_BATCHES -> current.receiveBatches;
                default -> current.deliveryBatches;
            };
            return Math.max(closedMax[batches.ordinal() / 2], now.max());
        }
    }

    /** What is summed over views; each batch count is followed by its message count. */
    private enum Field
    {
        SEND_BATCHES(m -> m.sendBatches.count()),
        SEND_MESSAGES(m -> m.sendBatches.total()),
        RECEIVE_BATCHES(m -> m.receiveBatches.count()),
        RECEIVE_MESSAGES(m -> m.receiveBatches.total()),
        DELIVERY_BATCHES(m -> m.deliveryBatches.count()),
        DELIVERY_MESSAGES(m -> m.deliveryBatches.total()),
        NULLS(SmcMeters::nullsSent),
        DELIVERED(SmcMeters::deliveredMessages),
        LATENCY_COUNT(SmcMeters::latencyCount),
        LATENCY_NANOS(SmcMeters::latencyNanos),
        COMMITTER_PUBLISHES(SmcMeters::committerPublishes),
        CALLBACK_FAILURES(m -> m.callbackFailures.count());

        final ToLongFunction<SmcMeters> read;

        Field(final ToLongFunction<SmcMeters> read)
        {
            this.read = read;
        }
    }
}

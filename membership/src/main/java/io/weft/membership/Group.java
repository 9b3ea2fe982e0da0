package io.weft.membership;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.MemberAddress;
import io.weft.config.WeftConfig;
import io.weft.predicates.PredicateThread;
import io.weft.smc.BatchHandler;
import io.weft.smc.DeliveryHandler;
import io.weft.smc.Smc;
import io.weft.sst.FailureListener;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A member's handle on its group: the shared state table, the predicate thread and one {@link Subgroup} per
 * configured subgroup. View 0 comes from the configuration (static membership for now).
 *
 * <pre>{@code
 * WeftConfig config = ConfigLoader.load(Path.of("group.conf"), Map.of("weft.member.id", 1));
 * try (Group group = Group.builder(config)
 *         .onDelivery("orders", m -> System.out.println(m.senderId() + "#" + m.index() + ": " + m.length() + " bytes"))
 *         .open()) {                                   // returns once every member is connected
 *     Subgroup orders = group.subgroup("orders");
 *     while (orders.send("hello".getBytes()) < 0) {    // back-pressured: every slot awaits delivery somewhere
 *         Thread.onSpinWait();
 *     }
 * }
 * }</pre>
 */
public final class Group implements AutoCloseable
{
    private final WeftConfig config;
    private final Sst sst;
    private final PredicateThread predicates;
    private final Smc smc;
    private final Map<String, Subgroup> subgroups = new LinkedHashMap<>();
    private final MeterRegistry registry;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Group.class);

    private final io.weft.sst.Column leaving;
    private final FailureDetector detector;
    private volatile String minorityReason;
    private volatile boolean closed;

    private Group(final Builder b)
    {
        this.config = b.config;
        this.registry = b.registry;
        final Smc.Layout layout = Smc.layout(config, SstLayout.builder().counter("heartbeat").bool("leaving")
            .bools("suspected", config.group().size()));
        this.leaving = layout.sst().column("leaving");
        this.sst = Sst.open(config, layout.sst());
        try
        {
            final Tags tags = Tags.of("member", String.valueOf(config.memberId()));
            sst.bindTo(registry, tags);
            // a member that announced it is leaving and then closes has left, it has not failed
            b.failureListeners.forEach(l -> sst.addFailureListener((rank, reason) ->
            {
                if (!sst.bool(rank, leaving))
                {
                    l.onMemberFailure(rank, reason);
                }
            }));
            this.predicates = new PredicateThread("member-" + config.memberId(), config.idle(), sst.doorbell(), registry);
            this.smc = Smc.start(config, layout, sst, predicates, registry);
            final java.util.function.Consumer<String> userMinority = b.minorityListener;
            this.detector = new FailureDetector(sst, layout.sst().column("heartbeat"), layout.sst().column("suspected"),
                leaving, config.group().members().stream().map(MemberAddress::id).toList(), config.failure(), message ->
                {
                    if (closed || sst.bool(sst.myRank(), leaving))
                    {
                        return; // members leaving one after the other at the end of a run
                    }
                    minorityReason = message;
                    LOG.error(message);
                    smc.close(); // sends now fail fast with the reason
                    userMinority.accept(message);
                });
            smc.subgroups().forEach((name, engine) ->
            {
                final DeliveryHandler h = b.handlers.get(name);
                if (h != null)
                {
                    engine.onDelivery(h);
                }
                final BatchHandler bh = b.batchHandlers.get(name);
                if (bh != null)
                {
                    engine.onBatch(bh);
                }
                subgroups.put(name, new Subgroup(this, engine));
            });
            predicates.start();
            detector.start();
        }
        catch (final RuntimeException ex)
        {
            sst.close();
            throw ex;
        }
    }

    /** Starts configuring a group member; {@link Builder#open()} connects it. */
    public static Builder builder(final WeftConfig config)
    {
        return new Builder(config);
    }

    /** The subgroup named {@code name}. */
    public Subgroup subgroup(final String name)
    {
        final Subgroup s = subgroups.get(name);
        if (s == null)
        {
            throw new IllegalArgumentException("no subgroup named " + name + "; configured: " + subgroups.keySet());
        }
        return s;
    }

    public Map<String, Subgroup> subgroups()
    {
        return subgroups;
    }

    /** The members of the current view, in rank order. */
    public List<MemberAddress> members()
    {
        return config.group().members();
    }

    public int memberId()
    {
        return config.memberId();
    }

    public int rank()
    {
        return config.rank();
    }

    public WeftConfig config()
    {
        return config;
    }

    public MeterRegistry meterRegistry()
    {
        return registry;
    }

    /** One-sided writes posted by this member so far (one per target of each push). */
    public long writesPosted()
    {
        return sst.writesPosted();
    }

    public long bytesPushed()
    {
        return sst.bytesPushed();
    }

    /** Nanoseconds the predicate thread spent in passes that did work. */
    public long predicateBusyNanos()
    {
        return predicates.busyNanos();
    }

    public boolean isClosed()
    {
        return closed;
    }

    /** Why this member stopped, if it found itself in a minority partition (majority rule); null otherwise. */
    public String minorityReason()
    {
        return minorityReason;
    }

    /**
     * Announces that this member is done and waits, up to {@code timeout}, until every other live member announced
     * the same, still acknowledging and delivering meanwhile; then closes. Members that finish at different times
     * use it so that nobody tears down a table others still need. Returns false if the wait timed out.
     * (The full graceful leave of a running group arrives with the membership protocol.)
     */
    public boolean leave(final java.time.Duration timeout) throws InterruptedException
    {
        sst.setBool(leaving, true);
        sst.push(leaving, sst.others());
        final long deadline = System.nanoTime() + timeout.toNanos();
        boolean all = false;
        while (!(all = allLeaving()) && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        close();
        return all;
    }

    private boolean allLeaving()
    {
        for (final int r : sst.others())
        {
            if (!sst.bool(r, leaving) && !sst.isFailedOrFrozen(r))
            {
                return false;
            }
        }
        return true;
    }

    /** Leaves abruptly: peers see this member as failed (graceful leave arrives with the membership protocol). */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        detector.close();
        smc.close();
        predicates.close();
        sst.close();
    }

    /** Handlers are set before the group opens, so that no message is delivered before its handler exists. */
    public static final class Builder
    {
        private final WeftConfig config;
        private final Map<String, DeliveryHandler> handlers = new HashMap<>();
        private final Map<String, BatchHandler> batchHandlers = new HashMap<>();
        private final List<FailureListener> failureListeners = new ArrayList<>();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private java.util.function.Consumer<String> minorityListener = message -> { };

        private Builder(final WeftConfig config)
        {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** Per-message delivery callback of a subgroup, on the predicate thread. */
        public Builder onDelivery(final String subgroup, final DeliveryHandler handler)
        {
            config.subgroup(subgroup);
            handlers.put(subgroup, Objects.requireNonNull(handler, "handler"));
            return this;
        }

        /** Batch delivery callback of a subgroup: once per delivery pass with every message of the pass. */
        public Builder onBatch(final String subgroup, final BatchHandler handler)
        {
            config.subgroup(subgroup);
            batchHandlers.put(subgroup, Objects.requireNonNull(handler, "handler"));
            return this;
        }

        /** Told when a member fails (transport report or suspicion); not when a member that announced a leave closes. */
        public Builder onMemberFailure(final FailureListener listener)
        {
            failureListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Told, once, when this member suspects at least half of the view: it is in a minority partition, its
         * subgroups are closed (sends fail with the reason), and it must not go on alone.
         */
        public Builder onMinority(final java.util.function.Consumer<String> listener)
        {
            minorityListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public Builder meterRegistry(final MeterRegistry registry)
        {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Opens the table and waits, up to the connect timeout, until every member is connected. */
        public Group open()
        {
            return new Group(this);
        }
    }
}

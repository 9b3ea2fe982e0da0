package io.weft.membership;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.weft.config.GroupConfig;
import io.weft.config.MemberAddress;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportConfig;
import io.weft.config.WeftConfig;
import io.weft.config.WeftConfigException;
import io.weft.predicates.PredicateThread;
import io.weft.smc.Smc;
import io.weft.smc.SmcSubgroup;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Everything that lives for exactly one view: its table (fresh per view, named after the view so that tables of two
 * views never meet), predicate thread, multicast state and failure detector, plus the membership columns of the
 * view-change protocol:
 * <pre>
 *   heartbeat          counter  failure detection
 *   leaving, finished  bool     graceful leave requested; run finished (shutdown barrier)
 *   suspected[n]       bool     suspicions, ORed over every trusted row
 *   wedged, done       bool     stopped multicasting; delivered the trim of every subgroup
 *   changes[]          counter  proposed changes, (kind &lt;&lt; 32) | member id
 *   numChanges, numAcked, numCommitted   counters (a count, -1 meaning none)
 *   &lt;subgroup&gt;.trim[senders], &lt;subgroup&gt;.trimReady   ragged-edge cleanup
 * </pre>
 */
final class Epoch implements AutoCloseable
{
    static final int MAX_CHANGES = 2 * GroupConfig.MAX_MEMBERS;
    static final long FAILED = 1;
    static final long LEFT = 2;
    static final long JOINED = 3;

    final View view;
    final WeftConfig config;
    final Sst sst;
    final PredicateThread predicates;
    final Smc smc;
    final FailureDetector detector;
    final Column heartbeat;
    final Column leaving;
    final Column finished;
    final Column suspected;
    final Column wedged;
    final Column done;
    final Column changes;
    final Column numChanges;
    final Column numAcked;
    final Column numCommitted;
    final Map<String, Column> trim = new HashMap<>();
    final Map<String, Column> trimReady = new HashMap<>();
    private Runnable onClose = () -> { };
    private boolean closed;

    private Epoch(final View view, final WeftConfig config, final Smc.Layout layout, final Sst sst,
        final PredicateThread predicates, final Smc smc, final Consumer<String> onMinority, final Runnable onSuspect)
    {
        this.view = view;
        this.config = config;
        this.sst = sst;
        this.predicates = predicates;
        this.smc = smc;
        final SstLayout l = layout.sst();
        heartbeat = l.column("heartbeat");
        leaving = l.column("leaving");
        finished = l.column("finished");
        suspected = l.column("suspected");
        wedged = l.column("wedged");
        done = l.column("done");
        changes = l.column("changes");
        numChanges = l.column("numChanges");
        numAcked = l.column("numAcked");
        numCommitted = l.column("numCommitted");
        for (final String name : smc.subgroups().keySet())
        {
            trim.put(name, l.column(name + ".trim"));
            trimReady.put(name, l.column(name + ".trimReady"));
        }
        this.detector = new FailureDetector(sst, heartbeat, suspected, this::departing, view.members(),
            config.failure(), config.transport().connectTimeout(), onMinority, onSuspect);
    }

    /**
     * Opens the table of {@code view} and builds its multicast state; the predicate thread and the failure detector
     * are started by {@link #start()}, once the caller has set handlers and queued re-sends.
     */
    static Epoch open(final WeftConfig base, final View view, final MeterRegistry registry,
        final Consumer<String> onMinority, final Runnable onSuspect)
    {
        final WeftConfig config = configFor(base, view);
        final SstLayout.Builder extra = SstLayout.builder()
            .counter("heartbeat").bool("leaving").bool("finished").bools("suspected", view.members().size())
            .bool("wedged").bool("done")
            .counters("changes", MAX_CHANGES).counter("numChanges").counter("numAcked").counter("numCommitted");
        for (final SubgroupConfig sg : config.subgroups())
        {
            extra.counters(sg.name() + ".trim", sg.senderIds(config.group()).size()).counter(sg.name() + ".trimReady");
        }
        final Smc.Layout layout = Smc.layout(config, extra);
        // a later view may find a member gone between agreement and installation: open without it, remove it next
        final Sst sst = Sst.open(config, layout.sst(), view.id() > 0);
        try
        {
            // the table's meters count this view; they are removed with it and the next view registers its own
            final List<io.micrometer.core.instrument.Meter> meters =
                sst.bindTo(registry, Tags.of("member", String.valueOf(config.memberId())));
            final PredicateThread predicates = new PredicateThread("member-" + config.memberId() + "-v" + view.id(),
                config.idle(), sst.doorbell(), registry);
            final Smc smc = Smc.start(config, layout, sst, predicates, registry);
            final Epoch epoch = new Epoch(view, config, layout, sst, predicates, smc, onMinority, onSuspect);
            epoch.onClose = () -> meters.forEach(registry::remove);
            return epoch;
        }
        catch (final RuntimeException ex)
        {
            sst.close();
            throw ex;
        }
    }

    void start()
    {
        predicates.start();
        detector.start();
    }

    /** The configuration of one view: its members, its table name, and each subgroup's policy applied to it. */
    static WeftConfig configFor(final WeftConfig base, final View view)
    {
        final String name = base.group().name() + "-v" + view.id();
        if (name.length() > 63)
        {
            throw new WeftConfigException("weft.group.name", base.group().name(), "must leave room for the view " +
                "suffix -v" + view.id() + ": at most " + (63 - ("-v" + view.id()).length()) + " characters");
        }
        final List<MemberAddress> members = new ArrayList<>();
        for (final int id : view.members())
        {
            members.add(base.group().members().get(base.group().rankOf(id)));
        }
        final GroupConfig group = new GroupConfig(name, members);
        final List<SubgroupConfig> subgroups = new ArrayList<>();
        for (final SubgroupConfig sg : base.subgroups())
        {
            final SubgroupConfig resolved = policy(sg, view);
            if (resolved != null)
            {
                subgroups.add(resolved);
            }
        }
        // the first view waits as configured for everyone to start; later views only for members that just agreed
        final Duration connect = view.id() == 0 ? base.transport().connectTimeout() :
            min(base.transport().connectTimeout(), max(base.failure().failureTimeout().multipliedBy(2), Duration.ofSeconds(5)));
        final TransportConfig transport = new TransportConfig(base.transport().kind(), connect, base.transport().shm(),
            base.transport().tcp(), base.transport().rdma());
        final MembershipConfig m = base.membership();
        return new WeftConfig(base.memberId(), group, transport, base.idle(), base.failure(), subgroups, base.smc(),
            new MembershipConfig(List.of(), m.secret(), m.sendDuringViewChange(), m.joinTimeout()));
    }

    /**
     * A subgroup's policy applied to a view: "all" stays all (every member of the view); a named list keeps the
     * named members that are in the view, in the list's order. Null when no member or no sender is left.
     */
    static SubgroupConfig policy(final SubgroupConfig sg, final View view)
    {
        final List<Integer> members = sg.members().stream().filter(view::contains).toList();
        final List<Integer> senders = sg.senders().stream().filter(view::contains).toList();
        if ((!sg.members().isEmpty() && members.isEmpty()) || (!sg.senders().isEmpty() && senders.isEmpty()))
        {
            return null;
        }
        return new SubgroupConfig(sg.name(), members, senders, sg.window(), sg.maxPayload(), sg.mode());
    }

    SmcSubgroup engine(final String name)
    {
        return smc.subgroups().get(name);
    }

    int myRank()
    {
        return sst.myRank();
    }

    int rows()
    {
        return sst.rows();
    }

    int idAt(final int rank)
    {
        return view.members().get(rank);
    }

    /** A count column: -1 (never written) reads as 0. */
    long count(final int rank, final Column column)
    {
        return Math.max(0, sst.counter(rank, column));
    }

    /** Announced a leave, finished its run or completed the view change: its going is not a failure. */
    boolean departing(final int rank)
    {
        return sst.bool(rank, leaving) || sst.bool(rank, finished) || sst.bool(rank, done);
    }

    boolean suspects(final int rank)
    {
        return rank != myRank() && (sst.bool(myRank(), suspected, rank) || sst.isFailedOrFrozen(rank));
    }

    static long change(final long kind, final int memberId)
    {
        return kind << 32 | memberId;
    }

    static long kindOf(final long change)
    {
        return change >>> 32;
    }

    static int idOf(final long change)
    {
        return (int)change;
    }

    private static Duration min(final Duration a, final Duration b)
    {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(final Duration a, final Duration b)
    {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Stops this view's threads and closes its table; peers that are still in it see this member go. */
    @Override
    public synchronized void close()
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
        onClose.run();
    }
}

package io.weft.membership;

import io.weft.config.GroupConfig;
import io.weft.config.MemberAddress;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TcpOptions;
import io.weft.config.TransportThreading;
import io.weft.config.TransportConfig;
import io.weft.config.WeftConfig;
import io.weft.config.WeftConfigException;
import io.weft.predicates.PassInvoker;
import io.weft.predicates.PredicateThread;
import io.weft.smc.Smc;
import io.weft.smc.SmcSubgroup;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Predicate;

/**
 * Everything that lives for exactly one view: its table (fresh per view, named after the view so that tables of two
 * views never meet) with the {@link MembershipColumns}, predicate thread, multicast state and failure detector. It
 * is the {@link MembershipTable} the view-change rules read: suspicions are those this member has published.
 */
final class Epoch implements AutoCloseable, MembershipTable
{
    final View view;
    final WeftConfig config;
    final Sst sst;
    final PredicateThread predicates;
    final Smc smc;
    final FailureDetector detector;
    final MembershipColumns columns;
    private Runnable onClose = () -> { };
    private volatile boolean closed; // written under the monitor; read without it by closing()

    private Epoch(final View view, final WeftConfig config, final Smc.Layout layout, final Sst sst,
        final PredicateThread predicates, final Smc smc, final Consumer<String> onMinority,
        final LongConsumer onSuspect)
    {
        this.view = view;
        this.config = config;
        this.sst = sst;
        this.predicates = predicates;
        this.smc = smc;
        this.columns = new MembershipColumns(layout.sst(), smc.subgroups().keySet());
        columns.oneWriterEach(sst);
        sst.departing(this::departing); // each closes its table once done with the change: a departure, not a failure
        this.detector = new FailureDetector(sst, columns.heartbeat, columns.suspected, this::departing, this::abstains,
            view.members(),
            config.failure(), config.transport().connectTimeout(), onMinority, onSuspect);
    }

    /**
     * Opens the table of {@code view} and builds its multicast state; the predicate thread and the failure detector
     * are started by {@link #start()}, once the caller has set handlers and queued re-sends. With an
     * {@code invoker} (or null), the passes run in its {@link PassInvoker#invoke()}. In a later view, a member
     * found gone while the table opens is reported failed at once (see {@link GoneProbe}).
     */
    static Epoch open(final WeftConfig base, final View view, final EpochTotals totals, final PassInvoker invoker,
        final Consumer<String> onMinority, final Runnable onSuspect)
    {
        final WeftConfig config = invoker == null ? configFor(base, view) : invokerRunsPasses(configFor(base, view));
        final Map<String, Integer> senders = new LinkedHashMap<>();
        for (final SubgroupConfig sg : config.subgroups())
        {
            senders.put(sg.name(), sg.senderIds(config.group()).size());
        }
        final SstLayout.Builder extra = MembershipColumns.declare(view.members().size(), senders);
        final Smc.Layout layout = Smc.layout(config, extra);
        // a later view may find a member gone between agreement and installation: open without it, remove it next
        final Sst sst = view.id() == 0 ? Sst.open(config, layout.sst()) :
            Sst.openTolerating(config, layout.sst(), new GoneProbe(config.group(), view));
        try
        {
            final PredicateThread predicates = new PredicateThread("member-" + config.memberId() + "-v" + view.id(),
                config.idle(), sst.doorbell(), invoker != null ? invoker.hostFor(sst.doorbell()) : sst.passHost());
            final Smc smc = Smc.start(config, layout, sst, predicates, totals.smc());
            final Epoch epoch = new Epoch(view, config, layout, sst, predicates, smc, onMinority, silence ->
            {
                totals.membership().suspected(silence);
                onSuspect.run();
            });
            totals.open(sst, predicates);
            epoch.onClose = () -> totals.closed(sst);
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

    /**
     * Starts only the heartbeats and failure detection: a joiner's table is connected while it still installs its
     * state, and the members that admitted it must not take it for failed meanwhile.
     */
    void startDetector()
    {
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
            min(base.transport().connectTimeout(), max(base.failure().failureTimeout().multipliedBy(2),
                Duration.ofSeconds(5)));
        final TransportConfig transport = new TransportConfig(base.transport().kind(), connect, base.transport().shm(),
            base.transport().tcp(), base.transport().rdma());
        final MembershipConfig m = base.membership();
        return new WeftConfig(base.memberId(), group, transport, base.idle(), base.failure(), subgroups, base.smc(),
            new MembershipConfig(List.of(), m.secret(), m.sendDuringViewChange(), m.joinTimeout()), base.dds());
    }

    /**
     * With an invoker, a tcp selector thread only reads and an rdma progress thread only polls: the passes run on the
     * application's thread.
     */
    private static WeftConfig invokerRunsPasses(final WeftConfig c)
    {
        final TransportConfig t = c.transport();
        final TcpOptions tcp = new TcpOptions(t.tcp().sendBufferBytes(), t.tcp().socketBufferBytes(), t.tcp().noDelay(),
            TransportThreading.SEPARATE);
        return new WeftConfig(c.memberId(), c.group(), new TransportConfig(t.kind(), t.connectTimeout(), t.shm(), tcp,
            t.rdma().withThreading(TransportThreading.SEPARATE)), c.idle(), c.failure(), c.subgroups(), c.smc(),
            c.membership(), c.dds());
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

    /** A count column: -1 (never written) reads as 0. */
    private int count(final int rank, final Column column)
    {
        return (int)Math.max(0, sst.counter(rank, column));
    }

    /**
     * Publishes every suspicion the failure detector or the transport has recorded and this row does not show yet
     * (membership thread only: a suspicion is published after anything this member echoed or acknowledged before,
     * which a new leader relies on). True if any was new.
     */
    boolean publishSuspicions()
    {
        boolean changed = false;
        for (final int r : sst.others())
        {
            if (!sst.bool(myRank(), columns.suspected, r) && (detector.suspects(r) || sst.isFailedOrFrozen(r)))
            {
                sst.setBool(columns.suspected, r, true);
                changed = true;
            }
        }
        if (changed)
        {
            sst.push(columns.suspected, sst.others());
        }
        return changed;
    }

    @Override
    public int rows()
    {
        return sst.rows();
    }

    @Override
    public int me()
    {
        return sst.myRank();
    }

    @Override
    public int idAt(final int rank)
    {
        return view.members().get(rank);
    }

    @Override
    public boolean suspects(final int rank)
    {
        return rank != myRank() && sst.bool(myRank(), columns.suspected, rank);
    }

    @Override
    public boolean suspectedIn(final int row, final int rank)
    {
        return sst.bool(row, columns.suspected, rank);
    }

    @Override
    public boolean leaving(final int rank)
    {
        return sst.bool(rank, columns.leaving);
    }

    @Override
    public boolean abstains(final int rank)
    {
        return sst.bool(rank, columns.leaving) || sst.bool(rank, columns.finished);
    }

    @Override
    public boolean departing(final int rank)
    {
        return sst.bool(rank, columns.leaving) || sst.bool(rank, columns.finished) || sst.bool(rank, columns.done);
    }

    @Override
    public boolean wedged(final int rank)
    {
        return sst.bool(rank, columns.wedged);
    }

    @Override
    public boolean done(final int rank)
    {
        return sst.bool(rank, columns.done);
    }

    @Override
    public int numChanges(final int rank)
    {
        return count(rank, columns.numChanges);
    }

    @Override
    public int numAcked(final int rank)
    {
        return count(rank, columns.numAcked);
    }

    @Override
    public int numCommitted(final int rank)
    {
        return count(rank, columns.numCommitted);
    }

    @Override
    public long change(final int rank, final int i)
    {
        return sst.counter(rank, columns.changes, i);
    }

    @Override
    public boolean trimReady(final int rank, final String subgroup)
    {
        return count(rank, columns.trimReady(subgroup)) > 0;
    }

    @Override
    public long trim(final int rank, final String subgroup, final int sender)
    {
        return sst.counter(rank, columns.trim(subgroup), sender);
    }

    @Override
    public long received(final int rank, final String subgroup, final int sender)
    {
        return engine(subgroup).received(rank, sender);
    }

    private static Duration min(final Duration a, final Duration b)
    {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(final Duration a, final Duration b)
    {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * Sets and pushes one of this member's flags ({@code leaving}, {@code finished}), unless this epoch is closed
     * already (a view change or the group's end closed it under the departing thread). Under the monitor
     * {@link #close} takes: the table cannot close between the check and the write.
     */
    synchronized boolean announce(final io.weft.sst.Column flag)
    {
        if (closed)
        {
            return false;
        }
        sst.setBool(flag, true);
        sst.push(flag, sst.others());
        return true;
    }

    /**
     * {@code test} of this epoch, or false once it is closed: a departing member's waits read views that a view change
     * closes under them, and the table is freed on close. Under the monitor {@link #close} takes, as above.
     */
    synchronized boolean ifOpen(final Predicate<Epoch> test)
    {
        return !closed && test.test(this);
    }

    /** {@code read} of this view while it is open (a close waits for it), else {@code closedValue}. */
    synchronized <T> T readIfOpen(final Function<Epoch, T> read, final T closedValue)
    {
        return closed ? closedValue : read.apply(this);
    }

    /**
     * Whether {@link #close} has begun, without waiting for it (the predicate thread asks while a close under the
     * monitor may be joining it).
     */
    boolean closing()
    {
        return closed;
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

package io.weft.membership;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.MemberAddress;
import io.weft.config.SubgroupConfig;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.smc.BatchHandler;
import io.weft.smc.Claim;
import io.weft.smc.DeliveryHandler;
import io.weft.smc.SmcSubgroup;
import io.weft.sst.FailureListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A member's handle on its group. The group moves through views: view 0 is {@code weft.membership.initial-view};
 * each failure, graceful leave or join makes the next one through the view-change protocol ({@link ViewChange}),
 * after which every survivor has delivered the same messages in the same order. Each view has a fresh table, a
 * fresh predicate thread and fresh multicast state ({@link Epoch}); the {@link Subgroup} handles stay valid.
 *
 * <pre>{@code
 * WeftConfig config = ConfigLoader.load(Path.of("group.conf"), Map.of("weft.member.id", 1));
 * try (Group group = Group.builder(config)
 *         .onDelivery("orders", m -> System.out.println(m.senderId() + "#" + m.index() + ": " + m.length() + " bytes"))
 *         .onView(v -> System.out.println("now in " + v))
 *         .open()) {                                   // or .join() for a member outside view 0
 *     Subgroup orders = group.subgroup("orders");
 *     orders.send("hello".getBytes(), Duration.ofSeconds(1));   // waits while back-pressured or changing views
 * }
 * }</pre>
 *
 * Callbacks (deliveries, views) are never called concurrently with each other.
 */
public final class Group implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(Group.class);
    private static final long RESEND_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final WeftConfig config;
    private final MeterRegistry registry;
    private final Map<String, DeliveryHandler> handlers;
    private final Map<String, BatchHandler> batchHandlers;
    private final List<FailureListener> failureListeners;
    private final Consumer<String> minorityListener;
    private final List<ViewListener> viewListeners;
    private final StateTransfer stateTransfer;
    private final Map<String, Subgroup> subgroups = new LinkedHashMap<>();
    private final Map<Integer, PendingJoin> pendingJoins = new ConcurrentHashMap<>();
    private final Object viewMonitor = new Object();
    private final Thread membership;
    private final ControlServer control;

    private volatile Epoch epoch;
    private volatile ViewChange viewChange;
    private volatile String stopReason;
    private volatile boolean closed;
    private volatile boolean left;
    private volatile boolean finishing;

    private Group(final Builder b, final Joiner.Admission admission)
    {
        this.config = b.config;
        this.registry = b.registry;
        this.handlers = Map.copyOf(b.handlers);
        this.batchHandlers = Map.copyOf(b.batchHandlers);
        this.failureListeners = List.copyOf(b.failureListeners);
        this.minorityListener = b.minorityListener;
        this.viewListeners = new CopyOnWriteArrayList<>(b.viewListeners);
        this.stateTransfer = b.stateTransfer;
        for (final SubgroupConfig sg : config.subgroups())
        {
            subgroups.put(sg.name(), new Subgroup(this, sg.name()));
        }
        final View first;
        if (admission == null)
        {
            first = View.initial(config.membership().initialView(config.group()));
            if (!first.contains(config.memberId()))
            {
                throw new IllegalStateException("member " + config.memberId() + " is not in weft.membership.initial-view " +
                    first.members() + ": open() starts view 0; a member outside it joins with join()");
            }
        }
        else
        {
            stateTransfer.install(admission.state());
            first = admission.view();
        }
        this.membership = Thread.ofPlatform().name("weft-membership-" + config.memberId()).daemon(true)
            .unstarted(this::runMembership);
        final Epoch e = openEpoch(first);
        this.control = startControl(e);
        install(e, Map.of());
        membership.start();
    }

    private ControlServer startControl(final Epoch e)
    {
        try
        {
            return new ControlServer(config.group().members().get(config.rank()), new Desk());
        }
        catch (final RuntimeException ex)
        {
            e.close();
            throw ex;
        }
    }

    /** Starts configuring a group member; {@link Builder#open()} or {@link Builder#join()} connects it. */
    public static Builder builder(final WeftConfig config)
    {
        return new Builder(config);
    }

    /** The subgroup named {@code name} (valid across views). */
    public Subgroup subgroup(final String name)
    {
        final Subgroup s = subgroups.get(name);
        if (s == null)
        {
            throw new IllegalArgumentException("no subgroup named " + name + "; configured: " + subgroups.keySet());
        }
        return s;
    }

    /** Every configured subgroup by name. */
    public Map<String, Subgroup> subgroups()
    {
        return subgroups;
    }

    /** The current view. */
    public View view()
    {
        return epoch.view;
    }

    /** The members of the current view, in rank order. */
    public List<MemberAddress> members()
    {
        return epoch.config.group().members();
    }

    /** This member's configured id. */
    public int memberId()
    {
        return config.memberId();
    }

    /** This member's rank in the current view. */
    public int rank()
    {
        return epoch.myRank();
    }

    /** The configuration this member was started with (the address book, subgroup policies). */
    public WeftConfig config()
    {
        return config;
    }

    /** The registry holding this member's meters (the builder's, or a simple registry of its own). */
    public MeterRegistry meterRegistry()
    {
        return registry;
    }

    /** One-sided writes posted by this member in the current view (one per target of each push). */
    public long writesPosted()
    {
        return epoch.sst.writesPosted();
    }

    /** Bytes this member has written to other members' tables. */
    public long bytesPushed()
    {
        return epoch.sst.bytesPushed();
    }

    /** Nanoseconds the current view's predicate thread spent in passes that did work. */
    public long predicateBusyNanos()
    {
        return epoch.predicates.busyNanos();
    }

    /** True once the group was closed, left or stopped. */
    public boolean isClosed()
    {
        return closed;
    }

    /** True once this member has left the group gracefully. */
    public boolean hasLeft()
    {
        return left;
    }

    /** Why this member stopped (minority partition, removed from the view); null while it runs. */
    public String minorityReason()
    {
        return stopReason;
    }

    /**
     * Leaves the group gracefully: waits until this member's own messages are delivered (so none is lost), announces
     * the leave, and returns once the view without this member is agreed and its last messages are delivered. Other
     * members neither count it as failed nor against the majority. Sends must have stopped; the same id may join
     * again later. Returns false if that did not happen within {@code timeout} (the member is then closed abruptly).
     */
    public boolean leave(final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final Epoch e = epoch;
        while (!ownSendsDelivered(e) && System.nanoTime() < deadline && epoch == e && !closed)
        {
            Thread.sleep(1);
        }
        final Epoch now = epoch;
        now.sst.setBool(now.leaving, true);
        now.sst.push(now.leaving, now.sst.others());
        LockSupport.unpark(membership);
        synchronized (viewMonitor)
        {
            while (!left && !closed)
            {
                final long wait = deadline - System.nanoTime();
                if (wait <= 0)
                {
                    break;
                }
                // a leave announced in an earlier view is announced again in the next one
                if (epoch != now && !epoch.sst.bool(epoch.myRank(), epoch.leaving))
                {
                    epoch.sst.setBool(epoch.leaving, true);
                    epoch.sst.push(epoch.leaving, epoch.sst.others());
                }
                viewMonitor.wait(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(wait))));
            }
        }
        if (!left)
        {
            close();
            return false;
        }
        return true;
    }

    private static boolean ownSendsDelivered(final Epoch e)
    {
        for (final SmcSubgroup g : e.smc.subgroups().values())
        {
            if (g.isSender() && g.isOrdered() && !g.isWedged() && !g.ownSendsDelivered())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Shutdown barrier for the end of a run: once this member's own messages are delivered, announces that it is
     * finished and waits, up to
     * {@code timeout}, until every other live member of the view announced the same, still acknowledging and
     * delivering meanwhile; then closes. No view change starts after it is called, and finished members are not
     * reported as failed. Returns false if the wait timed out.
     */
    public boolean finish(final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        Epoch e = epoch;
        while (!ownSendsDelivered(e) && System.nanoTime() < deadline && !closed)
        {
            Thread.sleep(1);
            e = epoch;
        }
        finishing = true;
        e = epoch;
        e.sst.setBool(e.finished, true);
        e.sst.push(e.finished, e.sst.others());
        boolean all = false;
        while (!(all = allFinished(e)) && System.nanoTime() < deadline && !closed)
        {
            Thread.sleep(1);
        }
        // everyone announced after its own last delivery, so what they delivered is stable here: deliver it too
        while (all && !e.smc.subgroups().values().stream().allMatch(SmcSubgroup::caughtUp) &&
            System.nanoTime() < deadline && !closed)
        {
            Thread.sleep(1);
        }
        close();
        return all;
    }

    private static boolean allFinished(final Epoch e)
    {
        for (final int r : e.sst.others())
        {
            if (!e.sst.bool(r, e.finished) && !e.sst.isFailedOrFrozen(r))
            {
                return false;
            }
        }
        return true;
    }

    /** Leaves abruptly: the others see this member as failed and remove it. */
    @Override
    public void close()
    {
        synchronized (viewMonitor)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            viewMonitor.notifyAll();
        }
        LockSupport.unpark(membership);
        if (Thread.currentThread() != membership)
        {
            try
            {
                membership.join(TimeUnit.SECONDS.toMillis(10));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        if (control != null)
        {
            control.close();
        }
        pendingJoins.values().forEach(PendingJoin::close);
        final Epoch e = epoch;
        if (e != null)
        {
            e.close();
        }
    }

    // ---- sends (used by Subgroup) ---------------------------------------------------------------------------------

    /** The current view's engine of a subgroup, checking that this member may use it. */
    SmcSubgroup engine(final String name)
    {
        checkOpen(name);
        final Epoch e = epoch;
        final SmcSubgroup g = e.engine(name);
        if (g == null)
        {
            throw new IllegalStateException("subgroup " + name + " has no members or no senders in " + e.view +
                " (its member list: " + config.subgroup(name).members() + ")");
        }
        return g;
    }

    /** Sends through the current view, waiting (or failing fast, as configured) while the view changes. */
    long send(final String name, final byte[] bytes, final int offset, final int length, final Claim claim,
        final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        while (true)
        {
            final Epoch e = epoch;
            final long left = deadline - System.nanoTime();
            final long index = engine(name).send(bytes, offset, length, claim, Math.max(0, left));
            if (index != SmcSubgroup.WEDGED)
            {
                return index;
            }
            if (!awaitNextView(e, name, deadline))
            {
                return SmcSubgroup.BACK_PRESSURED;
            }
        }
    }

    long claim(final String name, final int length, final Claim claim, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        while (true)
        {
            final Epoch e = epoch;
            final long index = engine(name).claim(length, claim, Math.max(0, deadline - System.nanoTime()));
            if (index != SmcSubgroup.WEDGED)
            {
                return index;
            }
            if (!awaitNextView(e, name, deadline))
            {
                return SmcSubgroup.BACK_PRESSURED;
            }
        }
    }

    /** Waits until a view after {@code e} is installed; false on timeout. Fails fast if so configured. */
    private boolean awaitNextView(final Epoch e, final String name, final long deadline)
    {
        if (config.membership().sendDuringViewChange() == ViewChangeSends.FAIL)
        {
            throw new ViewChangeException("subgroup " + name + ": a view change of " + e.view + " is in progress; " +
                "nothing was sent, send again");
        }
        synchronized (viewMonitor)
        {
            while (epoch == e && !closed)
            {
                final long wait = deadline - System.nanoTime();
                if (wait <= 0)
                {
                    return false;
                }
                try
                {
                    viewMonitor.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        checkOpen(name);
        return true;
    }

    void checkOpen(final String name)
    {
        if (stopReason != null)
        {
            throw new IllegalStateException(stopReason);
        }
        if (left)
        {
            throw new IllegalStateException("member " + config.memberId() + " has left the group; subgroup " + name +
                " cannot send");
        }
        if (closed)
        {
            throw new IllegalStateException("group of member " + config.memberId() + " is closed; subgroup " + name +
                " cannot send");
        }
    }

    // ---- views ----------------------------------------------------------------------------------------------------

    private Epoch openEpoch(final View view)
    {
        final Epoch[] holder = new Epoch[1];
        final Epoch e = Epoch.open(config, view, registry, message -> onMinority(holder[0], message),
            () -> LockSupport.unpark(membership));
        holder[0] = e;
        e.smc.subgroups().forEach((name, engine) ->
        {
            final DeliveryHandler h = handlers.get(name);
            if (h != null)
            {
                engine.onDelivery(h);
            }
            final BatchHandler bh = batchHandlers.get(name);
            if (bh != null)
            {
                engine.onBatch(bh);
            }
        });
        // told with member ids; not for members that finished, are leaving, or completed the view change
        failureListeners.forEach(l -> e.sst.addFailureListener((rank, reason) ->
        {
            if (!closed && !finishing && !e.departing(rank))
            {
                l.onMemberFailure(e.idAt(rank), reason);
            }
        }));
        return e;
    }

    private void onMinority(final Epoch e, final String message)
    {
        if (closed || finishing || left || e == null || e != epoch || e.sst.bool(e.myRank(), e.done))
        {
            return; // members leaving one after the other, or a view being retired
        }
        stop(message);
        minorityListener.accept(message);
    }

    /** Stops this member for good with a reason every later send reports. */
    private void stop(final String reason)
    {
        stopReason = reason;
        LOG.error(reason);
        final Epoch e = epoch;
        e.smc.subgroups().values().forEach(SmcSubgroup::wedge);
        e.smc.close();
        synchronized (viewMonitor)
        {
            viewMonitor.notifyAll();
        }
    }

    /** Makes {@code e} current: re-sends what fell outside the last trim, tells the listeners, starts it. */
    private void install(final Epoch e, final Map<String, List<byte[]>> resend)
    {
        final Claim claim = new Claim();
        resend.forEach((name, messages) ->
        {
            final SmcSubgroup g = e.engine(name);
            if (g == null || !g.isSender())
            {
                if (!messages.isEmpty())
                {
                    LOG.error("subgroup {}: {} undelivered messages of this member cannot be sent again: it is no " +
                        "sender of the subgroup in {}", name, messages.size(), e.view);
                }
                return;
            }
            for (final byte[] m : messages)
            {
                if (g.send(m, 0, m.length, claim, 0) < 0)
                {
                    LOG.error("subgroup {}: no slot to send an undelivered message again in {}", name, e.view);
                }
            }
            if (!messages.isEmpty())
            {
                LOG.info("subgroup {}: sent {} messages again that fell outside the trim", name, messages.size());
            }
        });
        viewChange = new ViewChange(e, () -> new ArrayList<>(pendingJoins.keySet()));
        for (final ViewListener l : viewListeners)
        {
            try
            {
                l.onView(e.view);
            }
            catch (final RuntimeException ex)
            {
                LOG.error("view callback failed on {}", e.view, ex);
            }
        }
        synchronized (viewMonitor)
        {
            epoch = e;
            viewMonitor.notifyAll();
        }
        e.start();
        LOG.info("member {} installed {}", config.memberId(), e.view);
    }

    private void runMembership()
    {
        while (!closed && stopReason == null && !left)
        {
            final ViewChange vc = viewChange;
            try
            {
                if (!finishing)
                {
                    final long[] changes = vc.step();
                    if (changes != null && stopReason == null) // stopped meanwhile (minority): install nothing
                    {
                        next(changes);
                        continue;
                    }
                }
            }
            catch (final ViewChange.ExcludedException ex)
            {
                stop(ex.getMessage());
                break;
            }
            catch (final RuntimeException ex)
            {
                LOG.error("view change failed", ex);
                stop("member " + config.memberId() + " stopped: the view change failed: " + ex);
                break;
            }
            LockSupport.parkNanos(this, vc.inProgress() ? 200_000L : 5_000_000L);
        }
    }

    /** Installs the view that follows the committed {@code changes} (membership thread). */
    private void next(final long[] changes)
    {
        final Epoch old = epoch;
        final int me = config.memberId();
        final List<Integer> failed = ViewChange.ids(changes, Epoch.FAILED);
        final List<Integer> gone = ViewChange.ids(changes, Epoch.LEFT);
        final List<Integer> joined = ViewChange.ids(changes, Epoch.JOINED);
        if (failed.contains(me))
        {
            stop("member " + me + " was removed from " + old.view + " as failed (it was suspected); it stops " +
                "and may join again");
            return;
        }
        final Map<String, List<byte[]>> resend = new HashMap<>();
        old.smc.subgroups().forEach((name, g) ->
        {
            final long[] trim = viewChange.trim(name);
            final int sender = indexOf(g.senderIds(), me);
            if (trim != null && sender >= 0 && trim.length > sender)
            {
                resend.put(name, g.undelivered(trim[sender], RESEND_WAIT_NANOS));
            }
        });
        if (gone.contains(me))
        {
            old.close();
            synchronized (viewMonitor)
            {
                left = true;
                viewMonitor.notifyAll();
            }
            LOG.info("member {} left the group at the end of {}", me, old.view);
            return;
        }
        final List<Integer> members = new ArrayList<>();
        for (final int id : old.view.members())
        {
            if (!failed.contains(id) && !gone.contains(id))
            {
                members.add(id);
            }
        }
        members.addAll(joined);
        final View view = new View(old.view.id() + 1, members, joined, gone, failed);
        byte[] state = null;
        for (final int id : joined)
        {
            final PendingJoin j = pendingJoins.remove(id);
            if (j != null)
            {
                if (state == null)
                {
                    state = stateTransfer.snapshot();
                }
                if (!j.admit(view, state))
                {
                    LOG.warn("joiner {} went away before it got {}", id, view);
                }
            }
        }
        old.close();
        final Epoch e = openEpoch(view);
        install(e, resend);
    }

    private static int indexOf(final int[] ids, final int id)
    {
        for (int i = 0; i < ids.length; i++)
        {
            if (ids[i] == id)
            {
                return i;
            }
        }
        return -1;
    }

    /** What the control port asks of this member. */
    private final class Desk implements ControlServer.Desk
    {
        @Override
        public String groupName()
        {
            return config.group().name();
        }

        @Override
        public String secret()
        {
            return config.membership().secret();
        }

        @Override
        public boolean inAddressBook(final int memberId)
        {
            return config.group().rankOf(memberId) >= 0;
        }

        @Override
        public View view()
        {
            return epoch.view;
        }

        @Override
        public boolean isLeader()
        {
            final ViewChange vc = viewChange;
            return vc != null && vc.isLeader() && !closed && stopReason == null;
        }

        @Override
        public int leaderId()
        {
            return viewChange.leaderId();
        }

        @Override
        public void suspectRejoining(final int memberId)
        {
            final Epoch e = epoch;
            final int rank = e.view.rankOf(memberId);
            if (rank >= 0 && rank != e.myRank())
            {
                e.detector.suspect(rank, "it asked to join again: its previous incarnation is gone");
            }
        }

        @Override
        public void enqueue(final PendingJoin join)
        {
            final PendingJoin before = pendingJoins.put(join.memberId(), join);
            if (before != null)
            {
                before.close();
            }
            LockSupport.unpark(membership);
        }
    }

    /** Handlers are set before the group opens, so that no message is delivered before its handler exists. */
    public static final class Builder
    {
        private final WeftConfig config;
        private final Map<String, DeliveryHandler> handlers = new HashMap<>();
        private final Map<String, BatchHandler> batchHandlers = new HashMap<>();
        private final List<FailureListener> failureListeners = new ArrayList<>();
        private final List<ViewListener> viewListeners = new ArrayList<>();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private Consumer<String> minorityListener = message -> { };
        private StateTransfer stateTransfer = StateTransfer.NONE;

        private Builder(final WeftConfig config)
        {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** Per-message delivery callback of a subgroup (predicate thread, or membership thread for a trim). */
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

        /**
         * Told when a member of the current view fails (transport report or suspicion), with its member id (not its
         * rank); not when a member that finished or is leaving closes.
         */
        public Builder onMemberFailure(final FailureListener listener)
        {
            failureListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Told of every view installed here (the first included), before any delivery in it. */
        public Builder onView(final ViewListener listener)
        {
            viewListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** How joiners get the application state (default: none). */
        public Builder stateTransfer(final StateTransfer stateTransfer)
        {
            this.stateTransfer = Objects.requireNonNull(stateTransfer, "stateTransfer");
            return this;
        }

        /**
         * Told, once, when this member suspects at least half of the view: it is in a minority partition, its
         * subgroups are closed (sends fail with the reason), and it must not go on alone.
         */
        public Builder onMinority(final Consumer<String> listener)
        {
            minorityListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Registers this member's meters in {@code registry} (for example a Prometheus registry). */
        public Builder meterRegistry(final MeterRegistry registry)
        {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Opens view 0 (this member must be in weft.membership.initial-view) and waits until every member is connected. */
        public Group open()
        {
            return new Group(this, null);
        }

        /**
         * Joins a running group: contacts the members of the address book (redirected to the leader), authenticates
         * with the group secret, waits for the view that adds this member, installs the state, and opens that view.
         *
         * @throws IllegalStateException refused (wrong secret, joins disabled, unknown id) or not admitted within
         *                               weft.membership.join-timeout.
         */
        public Group join()
        {
            return new Group(this, Joiner.join(config));
        }
    }
}

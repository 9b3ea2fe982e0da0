package io.weft.membership;

import io.weft.config.WeftConfig;
import io.weft.predicates.PassInvoker;
import io.weft.predicates.PredicateKind;
import io.weft.predicates.ProtocolThread;
import io.weft.smc.BatchHandler;
import io.weft.smc.Claim;
import io.weft.smc.DeliveryHandler;
import io.weft.smc.FenceHandler;
import io.weft.smc.SmcSubgroup;
import io.weft.sst.FailureListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The membership thread: steps the current view's {@link ViewChange}, and once a change is committed and its trims
 * delivered, closes the view, admits the joiners with the application state, opens the next view and installs it
 * (re-sending this member's messages that fell outside the trim).
 */
final class MembershipLoop implements Runnable
{
    private static final Logger LOG = LoggerFactory.getLogger(MembershipLoop.class);
    private static final long RESEND_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long PARK_CHANGING_NANOS = 200_000L;
    /**
     * The longest park between changes: a safety net, as its events wake the thread (its own suspicions, a join, a
     * leave, a run-time subgroup request, the end of the group, and, through {@link PeerChangeWatch}, any change in
     * another member's row). In invoker mode that watch runs in the application's passes: a view change needs them
     * anyway (the trim is delivered on the invoker's owner), and the application invokes every few milliseconds.
     */
    private static final long PARK_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final WeftConfig config;
    private final PassInvoker invoker; // null: a predicate thread per view
    private final EpochTotals totals;
    private final Map<String, DeliveryHandler> handlers;
    private final Map<String, BatchHandler> batchHandlers;
    private final Map<String, FenceHandler> fenceHandlers;
    private final List<FailureListener> failureListeners;
    private final List<ViewListener> viewListeners;
    private final Consumer<String> minorityListener;
    private final List<Consumer<String>> endListeners;
    private final AtomicBoolean endTold = new AtomicBoolean();
    private final StateTransfer stateTransfer;
    private final CurrentView current;
    private final JoinDesk desk;
    private final RuntimeSubgroups runtime;
    private final Thread thread;
    private volatile ViewChange viewChange;

    MembershipLoop(final GroupBuilder b, final CurrentView current, final EpochTotals totals)
    {
        this.config = b.config();
        this.invoker = b.invoker();
        this.totals = totals;
        this.handlers = Map.copyOf(b.handlers());
        this.batchHandlers = Map.copyOf(b.batchHandlers());
        this.fenceHandlers = Map.copyOf(b.fenceHandlers());
        this.failureListeners = List.copyOf(b.failureListeners());
        this.viewListeners = List.copyOf(b.viewListeners());
        this.minorityListener = b.minorityListener();
        this.endListeners = b.endListeners();
        this.stateTransfer = b.stateTransfer();
        this.current = current;
        this.runtime = new RuntimeSubgroups(config, b.subgroupAdded(), b.subgroupRemoved());
        this.thread = Thread.ofPlatform().name("weft-membership-" + config.memberId()).daemon(true).unstarted(this);
        this.desk = new JoinDesk(config, current, () -> viewChange, this::wake, stateTransfer);
    }

    JoinDesk desk()
    {
        return desk;
    }

    RuntimeSubgroups runtime()
    {
        return runtime;
    }

    StateTransfer stateTransfer()
    {
        return stateTransfer;
    }

    void start()
    {
        thread.start();
    }

    void wake()
    {
        LockSupport.unpark(thread);
    }

    boolean isMembershipThread()
    {
        return Thread.currentThread() == thread;
    }

    /** Waits for the thread to end after the member reached a terminal state. */
    void join(final long millis) throws InterruptedException
    {
        thread.join(millis);
    }

    @Override
    public void run()
    {
        ProtocolThread.mark("membership thread of member " + config.memberId() +
            " (it runs view callbacks, and trim deliveries unless in invoker mode)");
        while (!current.state().terminal())
        {
            final ViewChange vc = viewChange;
            try
            {
                if (current.state() != Lifecycle.FINISHING)
                {
                    final ChangeList changes = vc.step();
                    if (changes != null && !current.state().terminal()) // stopped meanwhile (minority): install nothing
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
            catch (final RuntimeException | Error ex) // an error from a callback of the trim's deliveries included
            {
                LOG.error("view change failed", ex);
                stop("member " + config.memberId() + " stopped: the view change failed: " + ex);
                break;
            }
            LockSupport.parkNanos(this, vc.inProgress() ? PARK_CHANGING_NANOS : PARK_IDLE_NANOS);
        }
        if (current.state() == Lifecycle.STOPPED)
        {
            current.epoch().close(); // the others see this member go at once instead of waiting for its wedge
        }
        if (current.state() != Lifecycle.CLOSED)
        {
            tellEnd(); // stopped or left: the view is closed, nothing more is delivered; Group.close tells the rest
        }
    }

    /** Tells the end listeners, once, why this member's group ended; call after its last delivery. */
    void tellEnd()
    {
        if (!endTold.compareAndSet(false, true))
        {
            return;
        }
        final int me = config.memberId();
        final String why = switch (current.state())
        {
            case STOPPED -> current.stopReason();
            case LEFT -> "member " + me + " left the group";
            default -> "member " + me + " closed its group";
        };
        for (final Consumer<String> listener : endListeners)
        {
            try
            {
                listener.accept(why);
            }
            catch (final RuntimeException ex)
            {
                LOG.error("member {}: an end listener failed", me, ex);
            }
        }
    }

    /** Opens the table and engines of {@code view} with this member's handlers; nothing runs until installed. */
    Epoch openEpoch(final View view)
    {
        final Epoch[] holder = new Epoch[1];
        final Epoch e = Epoch.open(runtime.base(config), view, totals, invoker,
            message -> onMinority(holder[0], message), this::wake);
        holder[0] = e;
        e.predicates.errorHandler(ex -> onThreadFailure(e, "a trigger of its predicate thread", ex));
        e.detector.errorHandler(ex -> onThreadFailure(e, "its failure detector", ex));
        e.sst.errorHandler(ex -> onThreadFailure(e, "its transport's thread", ex));
        e.predicates.register("membership-watch", PredicateKind.RECURRENT,
            new PeerChangeWatch(e.sst, e.columns, e.predicates::triggers), this::wake);
        e.smc.subgroups().forEach((name, engine) ->
        {
            final DeliveryHandler h = name.equals(io.weft.config.MembershipConfig.RUNTIME_CHANNEL) ? m ->
            {
                runtime.onDelivery(m, config);
                wake(); // the leader proposes the request
            } : handlers.get(name);
            if (h != null)
            {
                engine.onDelivery(h);
            }
            final BatchHandler bh = batchHandlers.containsKey(name) ? batchHandlers.get(name) : runtime.handler(name);
            if (bh != null)
            {
                engine.onBatch(bh);
            }
            final FenceHandler fh = fenceHandlers.get(name);
            if (fh != null)
            {
                engine.onFence(fh);
            }
        });
        // told with member ids; not for members that finished, are leaving, or completed the view change
        failureListeners.forEach(l -> e.sst.addFailureListener((rank, reason) ->
        {
            if (current.state() == Lifecycle.RUNNING && !e.departing(rank))
            {
                try
                {
                    l.onMemberFailure(e.idAt(rank), reason); // a transport's or the detector's thread
                }
                catch (final Error ex) // would end that thread; the table logs a RuntimeException
                {
                    onThreadFailure(e, "its failure listener", ex);
                }
            }
        }));
        return e;
    }

    /** Makes {@code e} current: re-sends what fell outside the last trim, tells the listeners, starts it. */
    void install(final Epoch e, final Map<String, Carried> carried)
    {
        final Claim claim = new Claim();
        carried.forEach((name, c) -> carry(e, name, c, claim));
        final ViewChange last = viewChange;
        viewChange = new ViewChange(e, invoker, desk::waiting, runtime::pending);
        current.install(e); // first: a listener may use the group's subgroups in the new view; nothing is delivered yet
        totals.membership().installed(e.view, last == null ? 0 : last.wedgedNanos());
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
        e.start();
        LOG.info("member {} installed {}", config.memberId(), e.view);
        runtime.installed();
    }

    /** Sends this member's messages outside the trim again, and asks its fences again, each in its place. */
    private static void carry(final Epoch e, final String name, final Carried c, final Claim claim)
    {
        final SmcSubgroup g = e.engine(name);
        if (g == null)
        {
            if (!c.isEmpty())
            {
                LOG.error("subgroup {}: {} undelivered messages and {} read fences of this member are dropped: the " +
                    "subgroup does not run in {}", name, c.messages().size(), c.tickets().length, e.view);
            }
            return;
        }
        g.continueFencesAfter(c.lastTicket());
        if (!c.messages().isEmpty() && !g.isSender())
        {
            LOG.error("subgroup {}: {} undelivered messages of this member cannot be sent again: it is no sender of " +
                "the subgroup in {}", name, c.messages().size(), e.view);
        }
        final List<byte[]> messages = g.isSender() ? c.messages() : List.of();
        int sent = 0;
        for (int k = 0; k < c.tickets().length; k++)
        {
            for (; sent < messages.size() && c.firstIndex() + sent < c.nextOwnIndices()[k]; sent++)
            {
                resend(e, name, g, messages.get(sent), claim);
            }
            if (!g.hasMember(e.myRank()) || g.requestFence(c.tickets()[k]) < 0)
            {
                LOG.error("subgroup {}: read fence {} could not be asked again in {}", name, c.tickets()[k], e.view);
            }
        }
        for (; sent < messages.size(); sent++)
        {
            resend(e, name, g, messages.get(sent), claim);
        }
        if (!messages.isEmpty() || c.tickets().length > 0)
        {
            LOG.info("subgroup {}: sent {} messages again that fell outside the trim, asked {} read fences again", name,
                messages.size(), c.tickets().length);
        }
    }

    private static void resend(final Epoch e, final String name, final SmcSubgroup g, final byte[] m,
        final Claim claim)
    {
        if (g.send(m, 0, m.length, claim, 0) < 0)
        {
            LOG.error("subgroup {}: no slot to send an undelivered message again in {}", name, e.view);
        }
    }

    private void onMinority(final Epoch e, final String message)
    {
        // Reported also once this member is done with the view change: the members done with it too are departing,
        // never counted, so the minority is real, and the change's step, refusing to act in one, would wait forever
        if (current.state() != Lifecycle.RUNNING || e == null || e != current.epoch())
        {
            return; // members leaving one after the other, or a view being retired
        }
        if (stop(message))
        {
            try
            {
                minorityListener.accept(message);
            }
            catch (final RuntimeException ex)
            {
                LOG.error("minority callback failed", ex);
            }
        }
    }

    /**
     * A condition or trigger threw on the predicate thread, a tick of the failure detector on its thread, an
     * application's failure listener threw an {@link Error}, or a thread of the table's transport ended (tcp's
     * selector, rdma's progress or control thread). A delivery callback's exception never gets here (it is counted
     * and the delivery goes on), nor a failure listener's {@link RuntimeException} (logged), so what does is an
     * {@code Error} (out of memory; a full disk faulting a write to a mapped log) or a bug of ours: either way the
     * state being updated may be half done (a delivery's ring cursors moved, its counter not; a suspicion recorded,
     * not yet published), and the thread would go on from there or end: a detector that ended stops this member's
     * heartbeats and detects nobody's failure, a transport's thread that ended cuts this member off. This member stops
     * instead, as if it had crashed: its subgroups are wedged and closed at once, and the others remove it. A failure
     * in a view that is closing (memory being released under it) or no longer current (a joiner's table before its
     * install, a view replaced), or of a member already stopped, is only logged: its state is discarded.
     */
    private void onThreadFailure(final Epoch e, final String what, final Throwable ex)
    {
        if (e.closing() || current.epoch() != e || current.state().terminal())
        {
            LOG.warn("member {}: {} failed in {} after the view began to close, before it was installed or after the " +
                "member stopped; its state is discarded", config.memberId(), what, e.view, ex);
            return;
        }
        LOG.error("member {}: {} threw in {}", config.memberId(), what, e.view, ex);
        stop("member " + config.memberId() + " stopped: " + what + " threw " + ex +
            " (what it was updating may be half done); the others remove it");
    }

    /** Stops this member for good with a reason every later send reports; false if it had already ended. */
    private boolean stop(final String reason)
    {
        if (!current.stop(reason))
        {
            return false;
        }
        LOG.error(reason);
        runtime.stopped(reason);
        final Epoch e = current.epoch();
        e.smc.subgroups().values().forEach(SmcSubgroup::wedge);
        e.smc.close();
        // last: woken, the membership thread closes the view (its table) and tells the end listeners
        wake();
        return true;
    }

    /** Moves to the view that follows the committed {@code changes}. */
    private void next(final ChangeList changes)
    {
        final Epoch old = current.epoch();
        final int me = config.memberId();
        if (changes.lists(ChangeList.FAILED, me))
        {
            stop("member " + me + " was removed from " + old.view + " as failed (it was suspected); it stops " +
                "and may join again");
            return;
        }
        final Map<String, Carried> carried = carriedOver(old);
        final View view = changes.nextView(old.view);
        // the view's last deliveries (its trim) are done: the same requests at every survivor
        for (final String gone : runtime.agree())
        {
            final Carried lost = carried.remove(gone);
            if (lost != null && !lost.isEmpty())
            {
                LOG.warn("subgroup {} was removed: {} messages of this member outside the view's trim are not sent " +
                    "again (they were never delivered), and {} read fences never pass", gone, lost.messages().size(),
                    lost.tickets().length);
            }
        }
        final List<Thread> admissions = admitJoiners(view); // also when this member leaves: joiners wait at its desk
        if (changes.lists(ChangeList.LEFT, me))
        {
            awaitAdmissions(admissions); // its process may end once it has left: the joiners must have their view
            old.close();
            current.moveTo(Lifecycle.LEFT);
            runtime.stopped("member " + me + " left the group");
            LOG.info("member {} left the group at the end of {}", me, old.view);
            return;
        }
        final Map<String, Long> persisted = persistedCounts(old);
        old.close(); // first: the next view's table listens on the same port
        final Epoch next = openEpoch(view);
        persisted.forEach((name, count) ->
        {
            final SmcSubgroup g = next.engine(name);
            if (g != null)
            {
                g.publishPersisted(count);
            }
        });
        install(next, carried);
    }

    /** This member's persisted count per subgroup: it goes on in the next view, before anything is delivered there. */
    private static Map<String, Long> persistedCounts(final Epoch old)
    {
        final Map<String, Long> counts = new HashMap<>();
        old.smc.subgroups().forEach((name, g) ->
        {
            if (g.persisted() >= 0)
            {
                counts.put(name, g.persisted());
            }
        });
        return counts;
    }

    /**
     * Per subgroup this member is in: its messages to send again (ordered: outside the trim; unordered: never
     * published) and its fences that did not pass.
     */
    private Map<String, Carried> carriedOver(final Epoch old)
    {
        final Map<String, Carried> carried = new HashMap<>();
        old.smc.subgroups().forEach((name, g) ->
        {
            final boolean ordered = g.isOrdered();
            final long[] trim = viewChange.trim(name); // unordered: empty, delivered on receipt with nothing to agree
            final int sender = indexOf(g.senderIds(), config.memberId());
            final boolean sends = trim != null && sender >= 0 && (!ordered || trim.length > sender);
            final long trimmedTo = sends && ordered ? trim[sender] : -1;
            final List<byte[]> messages = sends ? g.undelivered(trimmedTo, RESEND_WAIT_NANOS) : List.of();
            final long[][] fences = g.hasMember(old.myRank()) && ordered ? g.fencesLeft() : new long[2][0];
            carried.put(name, new Carried(trimmedTo + 1, messages, fences[0], fences[1], g.lastFenceTicket()));
        });
        return carried;
    }

    /**
     * Sends each joiner of {@code view} waiting here the view and a snapshot of the application state for its request
     * (one per distinct request; joiners that ask the same share it). The writes run on a thread of their own, given
     * up when a join timeout passes without progress: a joiner that does not read cannot hold up the membership
     * thread, and a large state takes as long as it needs.
     */
    private List<Thread> admitJoiners(final View view)
    {
        final Map<java.nio.ByteBuffer, StateTransfer.Snapshot> states = new HashMap<>(); // by request
        final List<RuntimeSubgroups.Spec> added = runtime.agreed();
        final List<Thread> admissions = new ArrayList<>();
        for (final int id : view.joined())
        {
            final PendingJoin j = desk.take(id);
            if (j != null)
            {
                final StateTransfer.Snapshot snapshot = states.computeIfAbsent(java.nio.ByteBuffer.wrap(j.request()),
                    r -> capture(j.request()));
                admissions.add(Thread.ofVirtual().name("weft-admit-" + id).start(() ->
                {
                    final String problem = j.admit(view, added, snapshot, config.membership().joinTimeout());
                    if (problem != null)
                    {
                        LOG.warn("joiner {} did not get {} and its state: {}", id, view, problem);
                    }
                }));
            }
        }
        return admissions;
    }

    /**
     * Waits, up to the join timeout, until {@code admissions} have sent their joiners the view and the state. A leader
     * that left in the change that added them returned from its leave first, and a process that then ended took the
     * admission with it: the joiner waited its whole join timeout for a view that never came, then joined again.
     */
    private void awaitAdmissions(final List<Thread> admissions)
    {
        final long deadline = System.nanoTime() + config.membership().joinTimeout().toNanos();
        try
        {
            for (final Thread t : admissions)
            {
                t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The application's cut of its state for a join request. One that throws (a request it cannot read, a store
     * that fails) fails the joins that asked for it, never this member: it used to stop the member admitting them,
     * and each retry of the joiner then stopped the next leader.
     */
    private StateTransfer.Snapshot capture(final byte[] request)
    {
        try
        {
            return stateTransfer.capture(request);
        }
        catch (final RuntimeException ex)
        {
            LOG.error("the state transfer's capture failed for a join request of {} bytes: the joiners that sent it " +
                "get no state and their joins fail", request.length, ex);
            return out ->
            {
                throw new IllegalStateException("its capture failed at the admitting member: " + ex, ex);
            };
        }
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
}

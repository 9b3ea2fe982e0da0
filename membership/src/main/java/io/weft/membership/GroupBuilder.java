package io.weft.membership;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.WeftConfig;
import io.weft.predicates.PassInvoker;
import io.weft.smc.BatchHandler;
import io.weft.smc.DeliveryHandler;
import io.weft.smc.FenceHandler;
import io.weft.sst.FailureListener;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Configures a group member before it connects ({@link Group#builder}). Handlers are set here, before the group
 * opens, so that no message is delivered before its handler exists.
 */
public final class GroupBuilder
{
    private final WeftConfig config;
    private final Map<String, DeliveryHandler> handlers = new HashMap<>();
    private final Map<String, BatchHandler> batchHandlers = new HashMap<>();
    private final Map<String, FenceHandler> fenceHandlers = new HashMap<>();
    private final List<FailureListener> failureListeners = new ArrayList<>();
    private final List<ViewListener> viewListeners = new ArrayList<>();
    private MeterRegistry registry = new SimpleMeterRegistry();
    private PassInvoker invoker;
    private java.time.Duration exitLeave; // null: the JVM's exit leaves nothing
    private Consumer<String> minorityListener = message -> { };
    private final List<Consumer<String>> endListeners = new ArrayList<>();
    private StateTransfer stateTransfer = StateTransfer.NONE;
    private final List<SubgroupAddedListener> subgroupAdded = new ArrayList<>();
    private final List<SubgroupRemovedListener> subgroupRemoved = new ArrayList<>();

    GroupBuilder(final WeftConfig config)
    {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Per-message delivery callback of a subgroup (predicate thread, or membership thread for a trim; in invoker mode
     * always the invoker's owner).
     *
     * @param subgroup the subgroup's name, one of {@code weft.subgroups}.
     * @param handler  told of each message delivered, in the delivery order.
     * @return this builder.
     * @throws IllegalArgumentException no configured subgroup of that name.
     */
    public GroupBuilder onDelivery(final String subgroup, final DeliveryHandler handler)
    {
        config.subgroup(subgroup);
        handlers.put(subgroup, Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * Batch delivery callback of a subgroup: once per delivery pass with every message of the pass.
     *
     * @param subgroup the subgroup's name, one of {@code weft.subgroups}.
     * @param handler  told of each pass's messages, in the delivery order.
     * @return this builder.
     * @throws IllegalArgumentException no configured subgroup of that name.
     */
    public GroupBuilder onBatch(final String subgroup, final BatchHandler handler)
    {
        config.subgroup(subgroup);
        batchHandlers.put(subgroup, Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * Read fence callback of a subgroup ({@link Subgroup#fence}): once per fence of this member, in order, on the
     * thread that delivers, when the fence passes.
     *
     * @param subgroup the subgroup's name, one of {@code weft.subgroups}.
     * @param handler  told of each of this member's fences as it passes.
     * @return this builder.
     * @throws IllegalArgumentException no configured subgroup of that name.
     */
    public GroupBuilder onFence(final String subgroup, final FenceHandler handler)
    {
        config.subgroup(subgroup);
        fenceHandlers.put(subgroup, Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * Told when a member of the current view fails (transport report or suspicion), with its member id (not its
     * rank); not when a member that finished or is leaving closes. It runs on a transport's thread or the failure
     * detector's: keep it short. A {@link RuntimeException} it throws is logged and changes nothing else; an
     * {@link Error} stops this member, as an {@code Error} in a delivery callback does (docs/metrics.md).
     *
     * @param listener told of each failed member's id.
     * @return this builder.
     */
    public GroupBuilder onMemberFailure(final FailureListener listener)
    {
        failureListeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Told of every view installed here (the first included), before any delivery in it.
     *
     * @param listener told of each view.
     * @return this builder.
     */
    public GroupBuilder onView(final ViewListener listener)
    {
        viewListeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * How joiners get the application state (default: none).
     *
     * @param stateTransfer captures this member's state for a joiner, and installs the state this member receives.
     * @return this builder.
     */
    public GroupBuilder stateTransfer(final StateTransfer stateTransfer)
    {
        this.stateTransfer = Objects.requireNonNull(stateTransfer, "stateTransfer");
        return this;
    }

    /**
     * Told, once, when this member suspects at least half of the view: it is in a minority partition, its
     * subgroups are closed (sends fail with the reason), and it must not go on alone.
     *
     * @param listener told why, in words.
     * @return this builder.
     */
    public GroupBuilder onMinority(final Consumer<String> listener)
    {
        minorityListener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Told once when this member's group ends, whatever ended it: {@link Group#close}, {@link Group#finish}, a
     * graceful {@link Group#leave}, or a stop (minority partition, removed as failed, an error on a protocol thread;
     * {@link Group#minorityReason()} is then set), with why. It runs after the last delivery here, on the thread that
     * ended the group (the membership thread, or the one that closed it). Several may be set: each is told, in the
     * order set; what one throws is logged.
     *
     * @param listener told why the group ended, in words.
     * @return this builder.
     */
    public GroupBuilder onEnd(final Consumer<String> listener)
    {
        endListeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Told of every subgroup added at run time ({@link Group#addSubgroup}, needs
     * {@code weft.membership.runtime-subgroups = true}), at every member, before its first delivery; it returns the
     * subgroup's delivery callback. Several may be set (a library and the application): each is told, in the order
     * set, and the first callback returned is the subgroup's. Without one, nothing is delivered from added subgroups.
     *
     * @param listener told of each added subgroup's configuration and properties; returns its callback, or null.
     * @return this builder.
     */
    public GroupBuilder onSubgroupAdded(final SubgroupAddedListener listener)
    {
        subgroupAdded.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Told of every subgroup removed at run time ({@link Group#removeSubgroup}), at every member, after its last
     * delivery. Several may be set: each is told, in the order set.
     *
     * @param listener told of each removed subgroup's name.
     * @return this builder.
     */
    public GroupBuilder onSubgroupRemoved(final SubgroupRemovedListener listener)
    {
        subgroupRemoved.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Registers this member's meters in {@code registry} (for example a Prometheus registry).
     *
     * @param registry where the meters go (default: a simple registry of the member's own).
     * @return this builder.
     */
    public GroupBuilder meterRegistry(final MeterRegistry registry)
    {
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /**
     * Invoker mode: no predicate thread; an application thread runs this member's passes through
     * {@link Group#invoker()}, and must call it regularly (see {@link PassInvoker}). For hosts with fewer cores
     * than hot threads: the sending thread also pushes and delivers.
     *
     * @return this builder.
     */
    public GroupBuilder useInvoker()
    {
        invoker = new PassInvoker("member " + config.memberId(), config.idle());
        return this;
    }

    /**
     * Leaves the group gracefully ({@link Group#leave}, within {@code timeout}) if the JVM shuts down (SIGTERM,
     * Ctrl-C, {@code System.exit}) while this member is in it: the others see it leave, where they would otherwise
     * wait a failure timeout and remove it as failed. The application's sends are refused from then on. Not with
     * {@link #useInvoker()}: the leave waits for passes that the application's thread runs there.
     *
     * @param timeout how long the leave may take before the member closes abruptly.
     * @return this builder.
     * @throws IllegalArgumentException {@code timeout} is not positive.
     */
    public GroupBuilder leaveOnExit(final java.time.Duration timeout)
    {
        if (timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("leaveOnExit: the timeout must be positive, was " + timeout);
        }
        exitLeave = timeout;
        return this;
    }

    /**
     * Opens view 0 (this member must be in weft.membership.initial-view) and waits until every member is connected.
     *
     * @return the member's group, in view 0.
     * @throws GroupRefusedException another member's control port answers: the group runs already (this member was
     *                               in it and is started again), and only {@link #join()} can bring this one back.
     */
    public Group open()
    {
        return Group.start(this, false);
    }

    /**
     * Joins a running group: contacts the members of the address book (redirected to the leader), authenticates
     * with the group secret, waits for the view that adds this member, and installs the state on this thread while
     * that view's table connects; the view starts once the state is in.
     *
     * @return the member's group, in the view that admitted it.
     * @throws GroupRefusedException refused (no or a wrong secret, joins disabled, unknown id).
     * @throws GroupJoinException    not admitted within weft.membership.join-timeout, or the state not received (its
     *                               sender failed, or its installer asked for no bytes for a join timeout: the
     *                               group's deliveries wait for it, so it was cut off).
     */
    public Group join()
    {
        return Group.start(this, true);
    }

    WeftConfig config()
    {
        return config;
    }

    MeterRegistry registry()
    {
        return registry;
    }

    PassInvoker invoker()
    {
        return invoker;
    }

    /** The timeout of the leave when the JVM shuts down, null for none; refuses it in invoker mode. */
    java.time.Duration exitLeave()
    {
        if (exitLeave != null && invoker != null)
        {
            throw new IllegalStateException("member " + config.memberId() + ": leaveOnExit and useInvoker cannot " +
                "be combined: in invoker mode the application's thread runs the passes a leave waits for, and a " +
                "shutdown does not direct it; call group.leave(timeout) on that thread from the application's own " +
                "shutdown path");
        }
        return exitLeave;
    }

    List<SubgroupAddedListener> subgroupAdded()
    {
        return List.copyOf(subgroupAdded);
    }

    List<SubgroupRemovedListener> subgroupRemoved()
    {
        return List.copyOf(subgroupRemoved);
    }

    Map<String, DeliveryHandler> handlers()
    {
        return handlers;
    }

    Map<String, BatchHandler> batchHandlers()
    {
        return batchHandlers;
    }

    Map<String, FenceHandler> fenceHandlers()
    {
        return fenceHandlers;
    }

    List<FailureListener> failureListeners()
    {
        return failureListeners;
    }

    List<ViewListener> viewListeners()
    {
        return viewListeners;
    }

    Consumer<String> minorityListener()
    {
        return minorityListener;
    }

    List<Consumer<String>> endListeners()
    {
        return List.copyOf(endListeners);
    }

    StateTransfer stateTransfer()
    {
        return stateTransfer;
    }
}

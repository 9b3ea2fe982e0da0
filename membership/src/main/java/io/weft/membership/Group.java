package io.weft.membership;

import io.micrometer.core.instrument.MeterRegistry;
import io.weft.config.MemberAddress;
import io.weft.config.SubgroupConfig;
import io.weft.config.WeftConfig;
import io.weft.predicates.PassInvoker;
import io.weft.smc.Claim;
import io.weft.smc.SmcSubgroup;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

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
    private final WeftConfig config;
    private final MeterRegistry registry;
    private final Map<String, Subgroup> subgroups = new LinkedHashMap<>(); // configured; fixed after construction
    private final Map<String, Subgroup> added = new java.util.concurrent.ConcurrentHashMap<>(); // at run time
    private final CurrentView current = new CurrentView();
    private final EpochTotals totals; // the member's meters, over all its views
    private final MembershipLoop membership;
    private final AtomicBoolean released = new AtomicBoolean();
    private final PassInvoker invoker; // null: a predicate thread runs the passes
    private final Departure departure;
    private final ViewSends sends;
    private final SubgroupRequests requests;
    private final LeaveOnExit exitLeave; // null: none asked
    private ControlServer control;

    /** Builds the member's parts; nothing connects and no thread starts until {@link #start}. */
    private Group(final GroupBuilder b)
    {
        this.config = b.config();
        final java.time.Duration exit = b.exitLeave(); // first: a refused combination builds nothing
        this.exitLeave = exit == null ? null : new LeaveOnExit(this, exit);
        this.registry = b.registry();
        for (final SubgroupConfig sg : config.subgroups())
        {
            subgroups.put(sg.name(), new Subgroup(this, sg.name()));
        }
        this.totals = new EpochTotals(registry, config.memberId());
        this.membership = new MembershipLoop(b, current, totals);
        this.invoker = b.invoker();
        this.departure = new Departure(this, current, membership);
        this.sends = new ViewSends(this, current);
        this.requests = new SubgroupRequests(this, membership.runtime(), subgroups.keySet());
        membership.runtime().afterRemoval(added::remove); // a handle taken later names the removal
        membership.runtime().afterRemoval(totals.smc()::remove);
    }

    /**
     * Builds a member and brings it into its first view: view 0, or the view the leader admits it to. A joiner builds
     * its parts before it asks: the leader's view change waits for it from admission to connection.
     */
    static Group start(final GroupBuilder b, final boolean join)
    {
        final Group group = new Group(b);
        try
        {
            group.enter(join ? Joiner.join(b.config(), b.stateTransfer().joinRequest()) : null);
            if (group.exitLeave != null)
            {
                group.exitLeave.register();
            }
            return group;
        }
        catch (final RuntimeException ex)
        {
            group.close(); // its meters leave the registry
            throw ex;
        }
    }

    private void enter(final Joiner.Admission admission)
    {
        if (admission == null)
        {
            refuseIfRunning();
        }
        final Epoch e = admission == null ? membership.openEpoch(initialView()) :
            FirstTable.openWhileInstalling(membership, config, admission);
        try
        {
            control = new ControlServer(config.group().members().get(config.rank()), membership.desk());
        }
        catch (final RuntimeException ex)
        {
            e.close();
            throw ex;
        }
        membership.install(e, Map.of());
        membership.start();
    }

    /**
     * open() where another member's control port answers: its group runs already (a member opens that port once
     * its first view is installed, and view 0 needs every member of the initial view, this one too), so view 0
     * would never form and the open would wait out the connect timeout, then fail naming a transport symptom.
     */
    private void refuseIfRunning()
    {
        for (final MemberAddress m : config.group().members())
        {
            if (m.id() != config.memberId() && GoneProbe.listens(m, config.group().name()))
            {
                throw new GroupRefusedException("member " + config.memberId() + " cannot open view 0 of group " +
                    config.group().name() + ": member " + m.id() + " answers on its control port " + m.host() + ":" +
                    m.controlPort() + ", so the group runs already; start this member as a joiner " +
                    "(GroupBuilder.join(); on the command line --join)");
            }
        }
    }

    private View initialView()
    {
        final View first = View.initial(config.membership().initialView(config.group()));
        if (!first.contains(config.memberId()))
        {
            throw new IllegalStateException("member " + config.memberId() + " is not in weft.membership.initial-view " +
                first.members() + ": open() starts view 0; a member outside it joins with join()");
        }
        return first;
    }

    /**
     * Starts configuring a group member; {@link GroupBuilder#open()} or {@link GroupBuilder#join()} connects it.
     *
     * @param config the member's configuration: its id, the group's address book, the subgroups.
     * @return a builder for callbacks, meters and options, which connects nothing until opened or joined.
     */
    public static GroupBuilder builder(final WeftConfig config)
    {
        return new GroupBuilder(config);
    }

    /**
     * {@return the subgroup named {@code name} (valid across views), configured or added at run time}
     *
     * @param name the subgroup's name, as in {@code weft.subgroups} or {@link #addSubgroup}.
     * @throws IllegalArgumentException no subgroup of that name (the message lists those there are).
     */
    public Subgroup subgroup(final String name)
    {
        final Subgroup s = subgroups.get(name);
        if (s != null)
        {
            return s;
        }
        final Subgroup a = added.get(name); // per write for a DDS topic created at run time: no lock
        if (a != null)
        {
            return a;
        }
        if (membership.runtime().find(name) != null)
        {
            return added.computeIfAbsent(name, n -> new Subgroup(this, n));
        }
        throw new IllegalArgumentException("no subgroup named " + name + (membership.runtime().wasRemoved(name) ?
            " (it was removed at run time)" : "") + "; configured: " + subgroups.keySet() +
            (membership.runtime().enabled() ? ", added at run time: " + requests.addedNames() : ""));
    }

    /** {@return every subgroup by name} The configured ones come first, then those added at run time, as added. */
    public Map<String, Subgroup> subgroups()
    {
        final Map<String, Subgroup> all = new LinkedHashMap<>(subgroups);
        requests.addedNames().forEach(n -> all.put(n, subgroup(n)));
        return java.util.Collections.unmodifiableMap(all);
    }

    /**
     * Adds a subgroup to the running group (needs {@code weft.membership.runtime-subgroups = true} at every member):
     * the request is multicast in order, the next view change adds the subgroup at every member at once (each told
     * through {@link GroupBuilder#onSubgroupAdded} before its first delivery, joiners included), and this call
     * returns once a view holding it is installed here. Asking for a subgroup that exists with the same
     * configuration returns it; two members asking for one name at once get the first request in the order, and the
     * other call fails if its configuration differs.
     *
     * @param sg         the subgroup: member and sender ids (empty: every member of the group), window, payload, mode.
     * @param properties anything the application wants every member's listener to see (at most a few KiB), or "".
     * @param timeout    how long to wait for the view that adds it.
     * @return the subgroup's handle, usable at this member once the call returns.
     * @throws IllegalStateException    runtime subgroups are off, the name is taken by another configuration, or
     *                                  this member's group ended (it stopped, left or was closed).
     * @throws IllegalArgumentException a member id outside the group, or a request too large.
     * @throws java.util.concurrent.TimeoutException not added within {@code timeout} (it may still be added later).
     */
    public Subgroup addSubgroup(final SubgroupConfig sg, final String properties, final Duration timeout)
        throws java.util.concurrent.TimeoutException, InterruptedException
    {
        checkLive("subgroup " + sg.name() + " cannot be added");
        requests.add(sg, properties, timeout);
        return subgroup(sg.name());
    }

    /**
     * Removes a subgroup added at run time (needs {@code weft.membership.runtime-subgroups = true} at every member):
     * the request is multicast in order, and the next view change drops the subgroup at every member at once, after
     * the last messages of the view that holds it are delivered (each member told through
     * {@link GroupBuilder#onSubgroupRemoved}). Returns once a view without it is installed here. Messages of the
     * subgroup sent but not delivered by the end of that view are not delivered; sends on it fail from then on. A
     * later {@link #addSubgroup} may use the name again.
     *
     * @param name    the subgroup's name.
     * @param timeout how long to wait for the view that removes it.
     * @throws IllegalStateException    runtime subgroups are off, the subgroup is configured (not added at run time),
     *                                  or this member's group ended (it stopped, left or was closed).
     * @throws IllegalArgumentException no subgroup of that name was added at run time.
     * @throws java.util.concurrent.TimeoutException not removed within {@code timeout} (it may still be removed later).
     */
    public void removeSubgroup(final String name, final Duration timeout)
        throws java.util.concurrent.TimeoutException, InterruptedException
    {
        checkLive("subgroup " + name + " cannot be removed");
        requests.remove(name, timeout);
    }

    /** The configuration of a subgroup, configured or added at run time. */
    SubgroupConfig subgroupConfig(final String name)
    {
        final SubgroupConfig sg = membership.runtime().find(name);
        return sg != null ? sg : name.equals(io.weft.config.MembershipConfig.RUNTIME_CHANNEL) ?
            RuntimeSubgroups.channel() : config.subgroup(name);
    }

    /**
     * Fetches part of member {@code memberId}'s application state outside a view change and installs it with this
     * member's {@link StateTransfer#install(java.io.InputStream)}: the member, which must be in the current view,
     * answers with its {@link StateTransfer#captureNow captureNow(request)}, taken at once on its control
     * connection's thread, authenticated as a joiner's state is. For state
     * the members bring up to date themselves, such as the DDS layer's logs when a whole group starts again. Needs
     * {@code weft.membership.secret}.
     *
     * @param memberId the member to fetch from, in the current view and not this one.
     * @param request  what to fetch, given to that member's {@code captureNow} as it is.
     * @throws GroupRefusedException refused: no secret, not another member, the member does not know this one as a
     *                               member of its view, or it serves no fetch or its capture failed (the message
     *                               says which).
     * @throws IllegalStateException this member's group ended (stopped, left, closed).
     * @throws java.io.IOException   the member could not be reached, or the state stream broke.
     */
    public void fetchState(final int memberId, final byte[] request) throws java.io.IOException
    {
        checkLive("it cannot fetch state from member " + memberId);
        Joiner.fetch(config, memberId, request, membership.stateTransfer()::install);
    }

    /** {@return the current view; once this member's group ended (stopped, left, closed), the last view it was in} */
    public View view()
    {
        return current.epoch().view;
    }

    /** {@return the members of the current view, in rank order} */
    public List<MemberAddress> members()
    {
        return current.epoch().config.group().members();
    }

    /** {@return this member's configured id} */
    public int memberId()
    {
        return config.memberId();
    }

    /** {@return this member's rank in the current view} */
    public int rank()
    {
        return current.epoch().myRank();
    }

    /** {@return the configuration this member was started with (the address book, subgroup policies)} */
    public WeftConfig config()
    {
        return config;
    }

    /** {@return the registry holding this member's meters (the builder's, or a simple registry of its own)} */
    public MeterRegistry meterRegistry()
    {
        return registry;
    }

    /** {@return the one-sided writes this member posted in all its views} One per push target: weft.sst.writes. */
    public long writesPosted()
    {
        return totals.total(EpochTotals.Count.WRITES);
    }

    /** {@return bytes this member wrote to other members' tables in all its views: {@code weft.sst.bytes}} */
    public long bytesPushed()
    {
        return totals.total(EpochTotals.Count.BYTES);
    }

    /** {@return nanoseconds this member's predicate threads spent in passes that did work, in all its views} */
    public long predicateBusyNanos()
    {
        return totals.total(EpochTotals.Count.BUSY_NANOS);
    }

    /** This member's current view with its table and threads (the package's tests reach its predicate thread). */
    Epoch epoch()
    {
        return current.epoch();
    }

    /** {@return true once the group was closed, left or stopped} */
    public boolean isClosed()
    {
        return current.state().terminal();
    }

    /** {@return true once this member has left the group gracefully} */
    public boolean hasLeft()
    {
        return current.state() == Lifecycle.LEFT;
    }

    /**
     * {@return why this member stopped, or null while it runs} It stops in a minority partition, when removed from
     * the view, or on an error thrown on its predicate thread.
     */
    public String minorityReason()
    {
        return current.stopReason();
    }

    /**
     * Leaves the group gracefully: waits until this member's own messages are delivered (so none is lost), announces
     * the leave, and returns once the view without this member is agreed and its last messages are delivered. Other
     * members neither count it as failed nor against the majority. From the call on, a send or claim of any thread
     * of this member throws an {@link IllegalStateException} (a send that returned an index before is delivered);
     * the same id may join again later. Returns false if that did not happen within {@code timeout} (the member is
     * then closed abruptly). Refused with an {@link IllegalStateException} in a callback (a protocol thread), whose
     * thread brings what it waits for.
     *
     * @param timeout how long to wait for the view without this member.
     * @return true if this member left within {@code timeout}, false if it was closed abruptly.
     */
    public boolean leave(final Duration timeout) throws InterruptedException
    {
        return departure.leave(timeout);
    }

    /**
     * Shutdown barrier for the end of a run: once this member's own messages are delivered, announces that it is
     * finished and waits, up to {@code timeout}, until every other live member of the view announced the same, still
     * acknowledging and delivering meanwhile; then closes. No view change starts after it is called, and finished
     * members are not reported as failed. A view change under way when it is called is waited out (the sends it
     * left outside its trim go again in the next view), unless a member already passed the barrier and so takes no
     * part in it. From the call on, this member's sends throw an {@link IllegalStateException}, as during {@link
     * #leave}, and it is refused in a callback as a leave is. Returns false if the wait timed out, or if this member's
     * own messages were not all delivered.
     *
     * @param timeout how long to wait for every other live member of the view to finish.
     * @return true if all finished in time and this member's own messages were all delivered.
     */
    public boolean finish(final Duration timeout) throws InterruptedException
    {
        return departure.finish(timeout);
    }

    /**
     * {@return the invoker that runs this member's passes on an application thread} ({@link GroupBuilder#useInvoker()})
     *
     * @throws IllegalStateException the group was built without {@code useInvoker()}: a predicate thread runs them.
     */
    public PassInvoker invoker()
    {
        if (invoker == null)
        {
            throw new IllegalStateException("member " + config.memberId() + " runs its passes on a predicate thread: " +
                "build the group with useInvoker() to run them on an application thread");
        }
        return invoker;
    }

    /** Leaves abruptly: the others see this member as failed and remove it. Its meters leave the registry. */
    @Override
    public void close()
    {
        if (!released.compareAndSet(false, true))
        {
            return;
        }
        if (exitLeave != null)
        {
            exitLeave.unregister();
        }
        current.moveTo(Lifecycle.CLOSED); // a member that left or stopped keeps that state
        membership.wake();
        if (!membership.isMembershipThread())
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
        membership.desk().closeAll();
        final Epoch e = current.epoch();
        if (e != null)
        {
            e.close();
        }
        totals.close();
        membership.tellEnd();
    }

    /**
     * {@return the invoker if this is its thread, outside a pass, in invoker mode; null otherwise} A wait on that
     * thread must run the passes itself, as nothing else does ({@link PassInvoker#invokeUntil}); other waits may sleep.
     */
    public PassInvoker invokerHere()
    {
        return invoker != null && invoker.waitsHere() ? invoker : null;
    }

    // ---- sends (used by Subgroup) ---------------------------------------------------------------------------------

    /**
     * Reads the current view's engine of a subgroup under its view's monitor, so that a view change cannot close its
     * table during the read (an application thread read a closed table: "Already closed"); {@code none} while the
     * view's table is closed or the subgroup does not run in it.
     */
    <T> T readEngine(final String name, final Function<SmcSubgroup, T> read, final T none)
    {
        checkLive("subgroup " + name + " cannot be read");
        return current.epoch().readIfOpen(e ->
        {
            final SmcSubgroup g = e.engine(name);
            return g == null ? none : read.apply(g);
        }, none);
    }

    /** The current view's engine of a subgroup, checking that this member may use it. */
    SmcSubgroup engine(final String name)
    {
        checkOpen(name);
        final Epoch e = current.epoch();
        final SmcSubgroup g = e.engine(name);
        if (g == null && membership.runtime().wasRemoved(name))
        {
            throw new IllegalStateException("subgroup " + name + " was removed from the group at run time");
        }
        if (g == null)
        {
            throw new IllegalStateException("subgroup " + name + " has no members or no senders in " + e.view +
                " (its member list: " + subgroupConfig(name).members() + ")");
        }
        return g;
    }

    /** Sends through the current view, waiting (or failing fast, as configured) while the view changes. */
    long send(final String name, final byte[] bytes, final int offset, final int length, final Claim claim,
        final long timeoutNanos)
    {
        return sends.offer(name, ViewSends.Offer.SEND, bytes, offset, length, claim, timeoutNanos);
    }

    /** Claims a slot in the current view, waiting (or failing fast, as configured) while the view changes. */
    long claim(final String name, final int length, final Claim claim, final long timeoutNanos)
    {
        return sends.offer(name, ViewSends.Offer.CLAIM, null, 0, length, claim, timeoutNanos);
    }

    /** Asks for a read fence in the current view, waiting (or failing fast, as configured) while the view changes. */
    long fence(final String name, final long timeoutNanos)
    {
        return sends.offer(name, ViewSends.Offer.FENCE, null, 0, 0, null, timeoutNanos);
    }

    void checkOpen(final String name)
    {
        checkLive("subgroup " + name + " cannot send");
    }

    /** Refuses, naming what {@code cannot} be done, once this member stopped, left or closed its group. */
    private void checkLive(final String cannot)
    {
        switch (current.state())
        {
            case STOPPED -> throw new IllegalStateException(current.stopReason() + "; " + cannot);
            case LEFT -> throw new IllegalStateException("member " + config.memberId() + " has left the group; " +
                cannot);
            case CLOSED -> throw new IllegalStateException("group of member " + config.memberId() + " is closed; " +
                cannot);
            default ->
            {
            }
        }
    }
}

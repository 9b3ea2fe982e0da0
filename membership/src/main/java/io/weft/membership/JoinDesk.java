package io.weft.membership;

import io.weft.config.WeftConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What the control port asks of this member, and the joiners it accepted: authenticated joiners wait here, on their
 * control connection, until the leader's view change lists them and the next view is assembled.
 */
final class JoinDesk implements ControlServer.Desk
{
    private final WeftConfig config;
    private final CurrentView current;
    private final Supplier<ViewChange> viewChange;
    private final Runnable wakeMembership;
    private final StateTransfer stateTransfer;
    private final Map<Integer, PendingJoin> pending = new ConcurrentHashMap<>();

    JoinDesk(final WeftConfig config, final CurrentView current, final Supplier<ViewChange> viewChange,
        final Runnable wakeMembership, final StateTransfer stateTransfer)
    {
        this.stateTransfer = stateTransfer;
        this.config = config;
        this.current = current;
        this.viewChange = viewChange;
        this.wakeMembership = wakeMembership;
    }

    /** Ids of the joiners waiting now (the leader lists those not yet in the view). */
    List<Integer> waiting()
    {
        return new ArrayList<>(pending.keySet());
    }

    /** Removes and returns the waiting joiner {@code memberId}, or null if it went away or asked elsewhere. */
    PendingJoin take(final int memberId)
    {
        return pending.remove(memberId);
    }

    void closeAll()
    {
        pending.values().forEach(PendingJoin::close);
    }

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
        return current.epoch().view;
    }

    @Override
    public boolean isLeader()
    {
        final ViewChange vc = viewChange.get();
        return vc != null && vc.isLeader() && !current.state().terminal();
    }

    @Override
    public int leaderId()
    {
        return viewChange.get().leaderId();
    }

    @Override
    public String rejoining(final int memberId)
    {
        final Epoch e = current.epoch();
        final int rank = e.view.rankOf(memberId);
        if (rank < 0)
        {
            return "member " + memberId + " has just left " + e.view + ", try again";
        }
        if (rank == e.myRank())
        {
            return "member " + memberId + " is this leader, alive in " + e.view + ": another process runs with id " +
                memberId;
        }
        final long silentMs = e.detector.silenceMillis(rank);
        final long replaceMs = replaceAfterMillis();
        if (silentMs < replaceMs && !e.detector.suspects(rank))
        {
            // a misconfigured second process must not evict a live member: in a group of two that stops both
            return "member " + memberId + " is alive in " + e.view + " (heard " + silentMs + " ms ago): another " +
                "process runs with id " + memberId + "; stop it, or this join succeeds once it is silent for " +
                replaceMs + " ms";
        }
        e.detector.suspect(rank, "it asked to join again after " + silentMs + " ms of silence: its previous " +
            "incarnation is gone");
        return "member " + memberId + " is still in " + e.view + "; its old incarnation is being removed, try again";
    }

    /**
     * How long, in ms, a member must have been silent here before a process with its id replaces it: half the failure
     * timeout, at least three heartbeat intervals (a live member is heard every interval), at most the timeout.
     */
    private long replaceAfterMillis()
    {
        final long timeout = config.failure().failureTimeout().toMillis();
        return Math.min(timeout, Math.max(timeout / 2, 3 * config.failure().heartbeatInterval().toMillis()));
    }

    @Override
    public void enqueue(final PendingJoin join)
    {
        final PendingJoin before = pending.put(join.memberId(), join);
        if (before != null)
        {
            before.close();
        }
        wakeMembership.run();
    }

    /** On the fetching member's control connection: the application's cut for its request, taken now. */
    @Override
    public StateTransfer.Snapshot fetch(final byte[] request)
    {
        return stateTransfer.captureNow(request);
    }

    @Override
    public java.time.Duration stall()
    {
        return config.membership().joinTimeout();
    }
}

package io.weft.sst;

import io.weft.config.WeftConfig;

import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * What a transport is opened with.
 *
 * @param config   the member's configuration (group, own id, transport options).
 * @param layout   the row layout, identical at every member.
 * @param failures where the transport reports failed members.
 * @param threadFailed told, on the transport's own thread, when that thread ends by a throwable it did not expect
 *                 (a bug of ours, an {@link Error} such as one a failure listener threw): the table then neither sends
 *                 nor receives, so its member must stop rather than go on cut off.
 * @param tolerateMissing when true, members that have not connected by the connect timeout are reported failed
 *                        and the table opens without them (a view after the first: a member may have crashed
 *                        after the view was agreed; the next view change removes it); when false, opening fails.
 * @param gone     asked by an open that tolerates missing members, while it waits for a rank: true when that member
 *                 is known to be gone, and the open stops waiting for it at once instead of at the connect timeout.
 *                 It may block briefly (a probe), so it is never asked under a lock another thread needs.
 */
public record TransportContext(WeftConfig config, SstLayout layout, FailureListener failures,
    Consumer<Throwable> threadFailed, boolean tolerateMissing, IntPredicate gone)
{
    /** No member is known to be gone: an open waits for everyone up to the connect timeout. */
    public static final IntPredicate NONE_GONE = rank -> false;

    /**
     * An open that waits for everyone up to the connect timeout (see {@link #gone()}), whose thread's failure only
     * the transport's own log tells.
     */
    public TransportContext(final WeftConfig config, final SstLayout layout, final FailureListener failures,
        final boolean tolerateMissing)
    {
        this(config, layout, failures, ex -> { }, tolerateMissing, NONE_GONE);
    }

    /** How many rows the table has: the group's members. */
    public int rows()
    {
        return config.group().size();
    }

    /** This member's row. */
    public int myRank()
    {
        return config.rank();
    }

    /** Whether the open gives up on {@code rank} now: it tolerates missing members and the member is known gone. */
    public boolean givesUpOn(final int rank)
    {
        return tolerateMissing && gone.test(rank);
    }
}

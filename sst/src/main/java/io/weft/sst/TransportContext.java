package io.weft.sst;

import io.weft.config.WeftConfig;

/**
 * What a transport is opened with.
 *
 * @param config   the member's configuration (group, own id, transport options).
 * @param layout   the row layout, identical at every member.
 * @param failures where the transport reports failed members.
 * @param tolerateMissing when true, members that have not connected by the connect timeout are reported failed
 *                        and the table opens without them (a view after the first: a member may have crashed
 *                        after the view was agreed; the next view change removes it); when false, opening fails.
 */
public record TransportContext(WeftConfig config, SstLayout layout, FailureListener failures, boolean tolerateMissing)
{
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
}

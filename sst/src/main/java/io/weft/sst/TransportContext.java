package io.weft.sst;

import io.weft.config.WeftConfig;

/**
 * What a transport is opened with.
 *
 * @param config   the member's configuration (group, own id, transport options).
 * @param layout   the row layout, identical at every member.
 * @param failures where the transport reports failed members.
 */
public record TransportContext(WeftConfig config, SstLayout layout, FailureListener failures)
{
    public int rows()
    {
        return config.group().size();
    }

    public int myRank()
    {
        return config.rank();
    }
}

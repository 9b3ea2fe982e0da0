package io.weft.config;

/**
 * Where one member of the group can be reached.
 *
 * @param id          the member's stable node id, unique in the group.
 * @param host        host name or address of the member (loopback for local groups).
 * @param sstPort     TCP port of the member's shared-state-table data channel (tcp transport).
 * @param controlPort TCP port of the member's control channel (joins, state transfer, rdma set-up).
 */
public record MemberAddress(int id, String host, int sstPort, int controlPort)
{
    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public MemberAddress
    {
        WeftConfigException.check(id >= 0, "weft.group.members[].id", id, "must be >= 0");
        WeftConfigException.check(host != null && !host.isBlank(), "weft.group.members[].host", host,
            "must be a non-empty host name or address");
        WeftConfigException.check(sstPort >= 1 && sstPort <= 65535, "weft.group.members[].sst-port", sstPort,
            "must be a TCP port in 1..65535");
        WeftConfigException.check(controlPort >= 1 && controlPort <= 65535, "weft.group.members[].control-port",
            controlPort, "must be a TCP port in 1..65535");
        WeftConfigException.check(controlPort != sstPort, "weft.group.members[].control-port", controlPort,
            "must differ from sst-port " + sstPort);
    }
}

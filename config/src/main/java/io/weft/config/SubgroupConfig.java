package io.weft.config;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One subgroup: a named subset of the group's members with its own atomic multicast stream.
 *
 * @param name       unique name, used to look the subgroup up and in metrics.
 * @param members    member ids in the subgroup, in group order; empty means every member of the group.
 * @param senders    member ids that send; a subset of the members; empty means every member of the subgroup.
 * @param window     each sender's ring in max-payload messages: at least this many may be in flight, not yet
 *                   delivered everywhere (smaller messages take only their own bytes, so more fit).
 * @param maxPayload largest message in bytes; the sender's ring holds {@code window} messages of this size.
 * @param mode       ordered (atomic multicast) or unordered (raw).
 */
public record SubgroupConfig(String name, List<Integer> members, List<Integer> senders, int window, int maxPayload,
    DeliveryMode mode)
{
    public static final int MAX_WINDOW = 100_000;
    public static final int MAX_PAYLOAD = 1 << 20;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public SubgroupConfig
    {
        final String key = "weft.subgroups[" + name + "]";
        WeftConfigException.check(name != null && NAME.matcher(name).matches(), "weft.subgroups[].name", name,
            "must be 1-63 characters of letters, digits, '_', '.', '-'");
        members = List.copyOf(members == null ? List.of() : members);
        senders = List.copyOf(senders == null ? List.of() : senders);
        WeftConfigException.check(members.stream().distinct().count() == members.size(), key + ".members", members,
            "must not repeat a member");
        WeftConfigException.check(senders.stream().distinct().count() == senders.size(), key + ".senders", senders,
            "must not repeat a member");
        WeftConfigException.check(members.isEmpty() || members.containsAll(senders), key + ".senders", senders,
            "must be members of the subgroup " + members);
        WeftConfigException.check(window >= 1 && window <= MAX_WINDOW, key + ".window", window,
            "must be in 1.." + MAX_WINDOW);
        WeftConfigException.check(maxPayload >= 1 && maxPayload <= MAX_PAYLOAD, key + ".max-payload", maxPayload,
            "must be in 1.." + MAX_PAYLOAD + " bytes");
        WeftConfigException.check(mode != null, key + ".mode", null, "must be ordered or unordered");
    }

    /**
     * The window {@code window = auto} gives: as many slots as fit a ring of about {@link #ringBytes} for the
     * transport (a slot holds a 32-byte header and {@code maxPayload} bytes), at least 16. Measured here: on shm and
     * tcp a 1 MiB ring covers the round trip at every message size (100 slots of 1 KiB capped tcp at half its rate;
     * 400 slots of 10 KiB were slower than 100, out of cache); RDMA round trips are microseconds.
     */
    public static int autoWindow(final TransportKind kind, final int maxPayload)
    {
        final long slot = (32L + maxPayload + 7) & -8;
        return (int)Math.max(16, Math.min(MAX_WINDOW, ringBytes(kind) / slot));
    }

    /** The ring size per sender that {@code window = auto} aims for on {@code kind}. */
    public static long ringBytes(final TransportKind kind)
    {
        return kind == TransportKind.RDMA ? 256 << 10 : 1 << 20;
    }

    /** Every member sends, in a subgroup of every member of the group. */
    public static SubgroupConfig allMembers(final String name, final int window, final int maxPayload)
    {
        return new SubgroupConfig(name, List.of(), List.of(), window, maxPayload, DeliveryMode.ORDERED);
    }

    /** Member ids of the subgroup, resolved against the group (empty means all). */
    public List<Integer> memberIds(final GroupConfig group)
    {
        return members.isEmpty() ? group.members().stream().map(MemberAddress::id).toList() : members;
    }

    /** Sender ids of the subgroup, resolved against the group (empty means every member of the subgroup). */
    public List<Integer> senderIds(final GroupConfig group)
    {
        return senders.isEmpty() ? memberIds(group) : senders;
    }

    /** Checks every member and sender id against the group's members. */
    public void validateAgainst(final GroupConfig group)
    {
        for (final int id : members)
        {
            WeftConfigException.check(group.rankOf(id) >= 0, "weft.subgroups[" + name + "].members", members,
                "every id must be in weft.group.members; " + id + " is not");
        }
        for (final int id : senders)
        {
            WeftConfigException.check(group.rankOf(id) >= 0, "weft.subgroups[" + name + "].senders", senders,
                "every id must be in weft.group.members; " + id + " is not");
        }
    }
}

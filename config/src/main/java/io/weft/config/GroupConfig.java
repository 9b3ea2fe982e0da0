package io.weft.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The group: its name and the ordered member list of view 0. A member's rank is its position in the list.
 *
 * @param name    group name, part of every handshake and of shared-memory file names.
 * @param members the members in rank order.
 */
public record GroupConfig(String name, List<MemberAddress> members)
{
    /** Largest group the shared state table is laid out for. */
    public static final int MAX_MEMBERS = 64;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public GroupConfig
    {
        WeftConfigException.check(name != null && NAME.matcher(name).matches(), "weft.group.name", name,
            "must be 1-63 characters of letters, digits, '_', '.', '-', starting with a letter or digit");
        WeftConfigException.check(members != null && !members.isEmpty(), "weft.group.members", members,
            "must list at least one member");
        WeftConfigException.check(members.size() <= MAX_MEMBERS, "weft.group.members", members.size() + " members",
            "at most " + MAX_MEMBERS + " members are supported");
        final Set<Integer> ids = new HashSet<>();
        final Set<String> endpoints = new HashSet<>();
        for (final MemberAddress m : members)
        {
            WeftConfigException.check(ids.add(m.id()), "weft.group.members[].id", m.id(),
                "must be unique in the group; id " + m.id() + " appears twice");
            WeftConfigException.check(endpoints.add(m.host() + ":" + m.sstPort()), "weft.group.members[].sst-port",
                m.host() + ":" + m.sstPort(), "must be unique in the group");
            WeftConfigException.check(endpoints.add(m.host() + ":" + m.controlPort()),
                "weft.group.members[].control-port", m.host() + ":" + m.controlPort(), "must be unique in the group");
        }
        members = List.copyOf(members);
    }

    /** @return the rank (list position) of the member with this id, or -1 when it is not a member. */
    public int rankOf(final int memberId)
    {
        for (int i = 0; i < members.size(); i++)
        {
            if (members.get(i).id() == memberId)
            {
                return i;
            }
        }
        return -1;
    }

    /** How many members the group has. */
    public int size()
    {
        return members.size();
    }
}

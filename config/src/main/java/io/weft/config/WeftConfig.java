package io.weft.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The whole, validated configuration of one member process. Immutable; build it with {@link #builder()} (which
 * starts from the documented defaults of {@code weft-reference.conf}) or load it with {@link ConfigLoader}.
 *
 * <pre>{@code
 * WeftConfig config = WeftConfig.builder()
 *     .memberId(1)
 *     .localGroup("demo", 3, 7100)      // members 0,1,2 on 127.0.0.1
 *     .transport(TransportKind.TCP)
 *     .build();
 * }</pre>
 *
 * @param memberId  the node id of this process; must appear in the group.
 * @param group     the group and its member list.
 * @param transport the transport and its options.
 * @param idle      the predicate thread's idle strategy.
 * @param failure   failure-detection timing.
 * @param subgroups the subgroups of view 0, each with its own multicast stream.
 * @param smc       the Spindle optimisation switches of the small-message multicast.
 * @param membership view 0, the join secret and sends during view changes.
 * @param dds       the DDS topics of the domain; each adds its subgroup ({@code dds.<topic>}) to {@code subgroups}.
 */
public record WeftConfig(int memberId, GroupConfig group, TransportConfig transport, IdleConfig idle,
    FailureConfig failure, List<SubgroupConfig> subgroups, SmcConfig smc, MembershipConfig membership, DdsConfig dds)
{
    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public WeftConfig
    {
        WeftConfigException.check(group != null, "weft.group", null, "must be present");
        WeftConfigException.check(group.rankOf(memberId) >= 0, "weft.member.id", memberId,
            "must be the id of a member of weft.group.members " + group.members().stream().map(MemberAddress::id)
                .toList());
        WeftConfigException.check(transport != null, "weft.transport", null, "must be present");
        WeftConfigException.check(idle != null, "weft.idle", null, "must be present");
        WeftConfigException.check(failure != null, "weft.failure", null, "must be present");
        WeftConfigException.check(smc != null, "weft.smc", null, "must be present");
        WeftConfigException.check(membership != null, "weft.membership", null, "must be present");
        membership.validateAgainst(group);
        dds = dds == null ? DdsConfig.NONE : dds;
        subgroups = List.copyOf(subgroups == null ? List.of() : subgroups);
        final java.util.Set<String> names = new java.util.HashSet<>();
        for (final SubgroupConfig s : subgroups)
        {
            WeftConfigException.check(names.add(s.name()), "weft.subgroups[].name", s.name(), "must be unique");
            s.validateAgainst(group);
        }
    }

    /** The subgroups with each topic's subgroup appended, unless already there. */
    private static List<SubgroupConfig> withTopics(final List<SubgroupConfig> subgroups, final DdsConfig dds)
    {
        final List<SubgroupConfig> all = new ArrayList<>(subgroups);
        for (final TopicConfig t : dds.topics())
        {
            if (subgroups.stream().noneMatch(s -> s.name().equals(t.subgroupName())))
            {
                all.add(t.subgroup());
            }
        }
        return List.copyOf(all);
    }

    /** The subgroups declared as such, without those of DDS topics. */
    public List<SubgroupConfig> declaredSubgroups()
    {
        return subgroups.stream().filter(s -> !s.name().startsWith(TopicConfig.SUBGROUP_PREFIX)).toList();
    }

    /** The subgroup named {@code name}, or an error that lists the declared ones. */
    public SubgroupConfig subgroup(final String name)
    {
        return ConfigNames.named(subgroups, SubgroupConfig::name, name, "subgroup", "weft.subgroups");
    }

    /** @return this member's rank: its position in the member list. */
    public int rank()
    {
        return group.rankOf(memberId);
    }

    /** @return the same configuration for another member of the same group. */
    public WeftConfig forMember(final int otherMemberId)
    {
        return new WeftConfig(otherMemberId, group, transport, idle, failure, subgroups, smc, membership, dds);
    }

    /** @return the same configuration for another view: its member list (named per view) and subgroups. */
    public WeftConfig forView(final GroupConfig viewGroup, final List<SubgroupConfig> viewSubgroups)
    {
        return new WeftConfig(memberId, viewGroup, transport, idle, failure, viewSubgroups, smc, membership, dds);
    }

    /** @return a builder preset with the reference defaults. */
    public static Builder builder()
    {
        return ConfigLoader.builderFrom(ConfigLoader.reference());
    }

    /** Mutable builder; {@link #build()} validates everything at once. */
    public static final class Builder
    {
        int memberId = -1;
        String groupName;
        List<MemberAddress> members = new ArrayList<>();
        TransportKind transportKind;
        Duration connectTimeout;
        Path shmDirectory;
        boolean shmZeroCopy = true;
        TcpOptions tcp;
        RdmaOptions rdma;
        IdleConfig idle;
        FailureConfig failure;
        List<SubgroupConfig> subgroups = new ArrayList<>();
        SmcConfig smc;
        MembershipConfig membership;
        DdsConfig dds = DdsConfig.NONE;

        Builder()
        {
        }

        /** This member's id ({@code weft.member.id}); one of the group's members. */
        public Builder memberId(final int memberId)
        {
            this.memberId = memberId;
            return this;
        }

        /** The group's name ({@code weft.group.name}); members of one group must agree on it. */
        public Builder groupName(final String groupName)
        {
            this.groupName = groupName;
            return this;
        }

        /** Every member of the initial view with its addresses ({@code weft.group.members}). */
        public Builder members(final List<MemberAddress> members)
        {
            this.members = new ArrayList<>(members);
            return this;
        }

        /** A group of {@code size} members with ids 0..size-1 on 127.0.0.1, sst ports from {@code basePort}. */
        public Builder localGroup(final String groupName, final int size, final int basePort)
        {
            this.groupName = groupName;
            this.members = new ArrayList<>();
            for (int i = 0; i < size; i++)
            {
                members.add(new MemberAddress(i, "127.0.0.1", basePort + 2 * i, basePort + 2 * i + 1));
            }
            return this;
        }

        /** shm, tcp or rdma ({@code weft.transport.kind}). */
        public Builder transport(final TransportKind kind)
        {
            this.transportKind = kind;
            return this;
        }

        /** How long the first view waits for every member to connect ({@code weft.transport.connect-timeout}). */
        public Builder connectTimeout(final Duration connectTimeout)
        {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** Where the shm transport's table files live ({@code weft.transport.shm.directory}). */
        public Builder shmDirectory(final Path directory)
        {
            this.shmDirectory = directory;
            return this;
        }

        /** Whether the shm transport reads other rows in place ({@code weft.transport.shm.zero-copy}). */
        public Builder shmZeroCopy(final boolean zeroCopy)
        {
            this.shmZeroCopy = zeroCopy;
            return this;
        }

        /** Keeps the other tcp options. */
        public Builder tcpThreading(final TransportThreading threading)
        {
            this.tcp = new TcpOptions(tcp.sendBufferBytes(), tcp.socketBufferBytes(), tcp.noDelay(), threading);
            return this;
        }

        /** The tcp transport's options ({@code weft.transport.tcp}). */
        public Builder tcp(final TcpOptions tcp)
        {
            this.tcp = tcp;
            return this;
        }

        /** The rdma transport's options ({@code weft.transport.rdma}). */
        public Builder rdma(final RdmaOptions rdma)
        {
            this.rdma = rdma;
            return this;
        }

        /** How idle protocol threads wait ({@code weft.idle}). */
        public Builder idle(final IdleConfig idle)
        {
            this.idle = idle;
            return this;
        }

        /** Heartbeats and the failure timeout ({@code weft.failure}). */
        public Builder failure(final FailureConfig failure)
        {
            this.failure = failure;
            return this;
        }

        /** The subgroups of view 0 ({@code weft.subgroups}); at least one for multicast. */
        public Builder subgroups(final List<SubgroupConfig> subgroups)
        {
            this.subgroups = new ArrayList<>(subgroups);
            return this;
        }

        /** The multicast's Spindle switches ({@code weft.smc}); all on unless measuring their effect. */
        public Builder smc(final SmcConfig smc)
        {
            this.smc = smc;
            return this;
        }

        /** Joins, the shared secret and sends during a view change ({@code weft.membership}). */
        public Builder membership(final MembershipConfig membership)
        {
            this.membership = membership;
            return this;
        }

        /** The DDS domain's topics and log settings ({@code weft.dds}). */
        public Builder dds(final DdsConfig dds)
        {
            this.dds = dds;
            return this;
        }

        /** The configuration, validated as a file would be: a bad value is refused naming its key. */
        public WeftConfig build()
        {
            final GroupConfig group = new GroupConfig(groupName, members);
            final DdsConfig topics = dds == null ? DdsConfig.NONE : dds;
            for (final SubgroupConfig s : subgroups)
            {
                // names the system gives subgroups of its own (runtime additions reuse the DDS prefix for topics)
                WeftConfigException.check(!s.name().startsWith(TopicConfig.SUBGROUP_PREFIX) || topics.topics()
                    .stream().anyMatch(t -> t.subgroupName().equals(s.name())), "weft.subgroups[].name", s.name(),
                    "must not start with '" + TopicConfig.SUBGROUP_PREFIX + "' (the subgroups of DDS topics)");
                WeftConfigException.check(!s.name().equals(MembershipConfig.RUNTIME_CHANNEL), "weft.subgroups[].name",
                    s.name(), "is reserved for the requests of weft.membership.runtime-subgroups");
            }
            for (final TopicConfig t : topics.topics())
            {
                t.validateAgainst(group); // here, not per view: a view may lack a publisher or subscriber
            }
            return new WeftConfig(memberId, group, new TransportConfig(transportKind, connectTimeout,
                new ShmOptions(shmDirectory, shmZeroCopy), tcp, rdma), idle, failure,
                withTopics(subgroups, topics), smc, membership, topics);
        }
    }
}

package io.weft.config;

import java.time.Duration;
import java.util.List;

/**
 * Dynamic membership: who forms view 0, how joiners authenticate, and what a send does while the view changes.
 *
 * @param initialView          member ids of view 0, in rank order; empty means every member of weft.group.members.
 *                             The other members of the list may join later.
 * @param secret               pre-shared group secret for the join handshake (HMAC-SHA256 challenge-response); null
 *                             means this member refuses every join.
 * @param sendDuringViewChange what a send does while a view change is in progress.
 * @param joinTimeout          how long a joining process keeps trying before it gives up.
 * @param runtimeSubgroups     whether members may add subgroups while the group runs (a small ordered subgroup of
 *                             every member, {@value #RUNTIME_CHANNEL}, carries the requests; the same in every
 *                             member's file).
 */
public record MembershipConfig(List<Integer> initialView, String secret, ViewChangeSends sendDuringViewChange,
    Duration joinTimeout, boolean runtimeSubgroups)
{
    /** The subgroup that carries requests for subgroups added at run time; no declared subgroup may take its name. */
    public static final String RUNTIME_CHANNEL = "weft.runtime";

    /** Shortest secret accepted: a short secret is a guessable one. */
    public static final int MIN_SECRET_LENGTH = 16;

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public MembershipConfig
    {
        initialView = List.copyOf(initialView == null ? List.of() : initialView);
        WeftConfigException.check(initialView.stream().distinct().count() == initialView.size(),
            "weft.membership.initial-view", initialView, "must not repeat a member");
        WeftConfigException.check(secret == null || secret.length() >= MIN_SECRET_LENGTH, "weft.membership.secret",
            secret == null ? null : "(" + secret.length() + " characters)", "must be at least " + MIN_SECRET_LENGTH +
            " characters");
        WeftConfigException.check(sendDuringViewChange != null, "weft.membership.send-during-view-change", null,
            "must be wait or fail");
        WeftConfigException.check(joinTimeout != null && joinTimeout.toMillis() >= 100 &&
            joinTimeout.compareTo(Duration.ofHours(1)) <= 0, "weft.membership.join-timeout", joinTimeout,
            "must be a duration between 100ms and 1h");
    }

    /** Subgroups are fixed by the configuration (no runtime additions). */
    public MembershipConfig(final List<Integer> initialView, final String secret,
        final ViewChangeSends sendDuringViewChange, final Duration joinTimeout)
    {
        this(initialView, secret, sendDuringViewChange, joinTimeout, false);
    }

    /** Member ids of view 0, resolved against the group (empty means all). */
    public List<Integer> initialView(final GroupConfig group)
    {
        return initialView.isEmpty() ? group.members().stream().map(MemberAddress::id).toList() : initialView;
    }

    void validateAgainst(final GroupConfig group)
    {
        for (final int id : initialView)
        {
            WeftConfigException.check(group.rankOf(id) >= 0, "weft.membership.initial-view", initialView,
                "every id must be in weft.group.members; " + id + " is not");
        }
    }

    @Override
    public String toString()
    {
        return "MembershipConfig[initialView=" + initialView + ", secret=" + (secret == null ? "none" : "(set)") +
            ", sendDuringViewChange=" + sendDuringViewChange + ", joinTimeout=" + joinTimeout +
            ", runtimeSubgroups=" + runtimeSubgroups + "]";
    }
}

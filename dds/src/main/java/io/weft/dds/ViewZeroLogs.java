package io.weft.dds;

import io.weft.config.GroupConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;

/**
 * A whole group started again from its logs. The members of view 0 take no state from each other: each logged topic
 * goes on from each member's own log, and the next sample delivered takes the log's size as its position at every
 * member. Logs of different sizes (a member that stopped first persisted less; at a power cut each topic's log
 * thread was somewhere else at each member) would give one sample different positions at different members, for
 * good. So before a member of view 0 is enabled, it announces each log's size in the topic's persisted column
 * ({@link LogWriter#start}, {@link LogAnnouncement}) and waits for the others'. A member whose log of a topic is
 * shorter than the longest fetches what it lacks from the member of lowest id holding the most
 * ({@link Group#fetchState}: the entries after its own, checked by CRC as a joiner's are; needs
 * {@code weft.membership.secret}, else every member refuses, naming the sizes) and announces its new size. Once
 * every member of each topic announced the most entries, each announces its last entry's CRC; the topics go on if
 * they are equal, else every member refuses (logs that end differently are not copies of one history). No sample
 * is written before.
 *
 * <p>No member writes before it is enabled, and a member is enabled only once every member of its topics announced
 * the same last entry after as many entries as its own (or counts: it saw the same). A member announces its last
 * entry only once every member of its topics announced the most entries or a last entry: so a slower member that
 * reads a last entry while it still collects sizes holds the most itself, and takes that member's size to be its own.
 * A slower member that reads a size announced after a fetch finds the most there, as in the member fetched from.
 * A view change (a member failed) before a member saw every size refuses it: start it again as a joiner. A later view
 * change that leaves a topic without a sender (its publisher killed while another member fetches from it, say)
 * refuses every member at once: its subgroup no longer runs, and nothing the others wait for can be published.
 */
final class ViewZeroLogs
{
    private static final Logger LOG = LoggerFactory.getLogger(ViewZeroLogs.class);
    /** Short: a member that reads late may find the view changed by another member's failure. */
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private ViewZeroLogs()
    {
    }

    /**
     * Waits until the members of view 0 agree on this member's logged topics (sizes, fetching what its logs lack,
     * then last entries), at most the connect timeout for each wait; then the topics publish counts.
     *
     * @throws IllegalStateException the sizes differ and no secret to fetch with, the last entries differ (the
     *                               message names them and what to do), a fetch failed, the view changed, the group
     *                               stopped, or a member announced nothing in time; the group is closed.
     */
    static void agree(final Group group, final List<TopicState> all, final WeftConfig config)
    {
        try
        {
            decide(group, all, config.transport().connectTimeout(), config.membership().secret() != null);
        }
        catch (final RuntimeException | Error ex)
        {
            group.close(); // this member stops at once; the caller closes its logs
            throw ex;
        }
    }

    private static void decide(final Group group, final List<TopicState> all, final Duration timeout,
        final boolean canFetch)
    {
        final List<TopicState> logged = all.stream().filter(t -> t.announcedLog() >= 0).toList();
        // a topic no member of view 0 can send on: nothing takes a position there before a joiner brings the state
        release(logged.stream().filter(t -> !runs(group, t)).toList());
        final List<TopicState> topics = logged.stream().filter(t -> runs(group, t)).toList();
        final Map<String, Map<Integer, Long>> sizes = new LinkedHashMap<>();
        for (final TopicState topic : topics)
        {
            final Map<Integer, Long> announced = new TreeMap<>();
            await(group, topic, timeout, () -> sizes(group, topic, announced));
            sizes.put(topic.config.name(), announced);
        }
        final Map<String, Long> most = new LinkedHashMap<>();
        sizes.forEach((name, s) -> most.put(name, s.values().stream().mapToLong(Long::longValue).max().orElseThrow()));
        if (!sizes.values().stream().allMatch(s -> s.values().stream().distinct().count() == 1))
        {
            final String differ = "the members of view 0 hold logs of different sizes (entries by member: " + sizes +
                "), and view 0 takes no state: the same sample would take different positions at different members";
            if (!canFetch)
            {
                throw new IllegalStateException(differ + ". Nothing was written. Without weft.membership.secret the " +
                    "shorter logs cannot fetch what they lack: set it at every member (the members holding the " +
                    "most entries, per topic: " + holders(sizes, most) + ", then send it), or start as view 0 " +
                    "(weft.membership.initial-view) only members whose logs hold the most entries of every topic, " +
                    "then the others as joiners: a joiner receives the entries its log lacks");
            }
            fetchWhatIsLacking(group, topics, sizes, most);
        }
        for (final TopicState topic : topics)
        {
            final long size = most.get(topic.config.name());
            await(group, topic, timeout, () -> allHoldTheMost(topic, size));
        }
        compareLastEntries(group, topics, timeout, most);
        release(topics);
    }

    /** Fetches, per topic whose log here is shorter, what it lacks from the member of lowest id holding the most. */
    private static void fetchWhatIsLacking(final Group group, final List<TopicState> topics,
        final Map<String, Map<Integer, Long>> sizes, final Map<String, Long> most)
    {
        final Map<Integer, List<TopicState>> byHolder = new TreeMap<>();
        final Map<String, List<Integer>> holders = holders(sizes, most);
        for (final TopicState t : topics)
        {
            final String name = t.config.name();
            if (sizes.get(name).get(group.memberId()) < most.get(name))
            {
                byHolder.computeIfAbsent(holders.get(name).getFirst(), k -> new ArrayList<>()).add(t);
            }
        }
        byHolder.forEach((holder, lacking) ->
        {
            for (final byte[] request : DomainState.fetchRequests(lacking))
            {
                try
                {
                    group.fetchState(holder, request);
                }
                catch (final IOException | RuntimeException | Error ex) // a full disk faults the mapped appends
                {
                    throw new IllegalStateException("fetching what this member's logs of " + lacking.stream()
                        .map(t -> t.config.name()).toList() + " lack from member " + holder + " failed: " + ex, ex);
                }
            }
            for (final TopicState t : lacking)
            {
                final long held = t.logHeld()[0];
                if (held != most.get(t.config.name()))
                {
                    throw new IllegalStateException("topic " + t.config.name() + ": the log holds " + held +
                        " entries after fetching from member " + holder + ", which announced " +
                        most.get(t.config.name()));
                }
                t.announceFetched(); // the others wait until every member announces the most
            }
            LOG.info("member {} fetched what its logs of {} lacked from member {} (entries by member: {})",
                group.memberId(), lacking.stream().map(t -> t.config.name()).toList(), holder, sizes);
        });
    }

    /**
     * Every member of the topics holds as many entries as this one: each announces its last entry's CRC and waits
     * for the others'; logs of one size that end differently are not copies of one history, and every member
     * refuses (one counts only after it saw every other's CRC equal to its own).
     */
    private static void compareLastEntries(final Group group, final List<TopicState> topics, final Duration timeout,
        final Map<String, Long> most)
    {
        topics.forEach(TopicState::announceLastEntry);
        for (final TopicState topic : topics)
        {
            final Map<Integer, Integer> crcs = new TreeMap<>();
            await(group, topic, timeout, () -> lastEntries(topic, crcs));
            if (crcs.values().stream().distinct().count() > 1)
            {
                throw new IllegalStateException("topic " + topic.config.name() + ": members " + crcs.keySet() +
                    " hold logs of " + most.get(topic.config.name()) + " entries whose last entries differ (CRC-32C " +
                    "by member: " + hex(crcs) + "): the logs are not copies of one history. No sample was written (a " +
                    "member that fetched entries holds them). " +
                    "Start as view 0 only members whose logs are this group's, then start the others as joiners " +
                    "with their logs of this topic moved aside (a joiner whose log is not a prefix of the group's " +
                    "is refused)");
            }
        }
    }

    /**
     * Fills {@code announced} with every member's announced size once all announced. A member that announces its last
     * entry already saw every size equal: its size is this member's.
     */
    private static boolean sizes(final Group group, final TopicState topic, final Map<Integer, Long> announced)
    {
        if (group.view().id() != 0)
        {
            throw new IllegalStateException("topic " + topic.config.name() + ": the view changed (" + group.view() +
                ") while the members of view 0 compared their logs: the others went on without this member; start it " +
                "again as a joiner");
        }
        final Map<Integer, Long> published = publishedOnceAll(topic, v -> LogAnnouncement.isSize(v) ||
            LogAnnouncement.isLastEntry(v));
        if (published == null)
        {
            return false; // not every member announced yet, or the view is closing (the next check refuses)
        }
        published.forEach((member, v) -> announced.put(member, LogAnnouncement.isSize(v) ?
            LogAnnouncement.entries(v) : topic.announcedLog()));
        return true;
    }

    /**
     * Fills {@code crcs} with the last-entry CRCs announced once every member of the topic in the current view
     * announced one or counts (it compared its own with the others' and found them equal).
     */
    private static boolean lastEntries(final TopicState topic, final Map<Integer, Integer> crcs)
    {
        final Map<Integer, Long> published = publishedOnceAll(topic, v -> v >= 0 || LogAnnouncement.isLastEntry(v));
        if (published == null)
        {
            return false;
        }
        published.forEach((member, v) ->
        {
            if (v < 0)
            {
                crcs.put(member, LogAnnouncement.crc(v));
            }
        });
        return true;
    }

    /** Whether every member of the topic announced {@code size} entries, or its last entry (it holds as many). */
    private static boolean allHoldTheMost(final TopicState topic, final long size)
    {
        return publishedOnceAll(topic, v -> v >= 0 || v == LogAnnouncement.size(size) ||
            LogAnnouncement.isLastEntry(v)) != null;
    }

    /**
     * What every member of the topic published in its persisted column (a failed member's last value too), once each
     * value passes {@code accepted}; null before, or while a view closes (nothing is read then).
     */
    private static Map<Integer, Long> publishedOnceAll(final TopicState topic, final LongPredicate accepted)
    {
        final Map<Integer, Long> published = topic.subgroup().persistedByMember();
        return !published.isEmpty() && published.values().stream().allMatch(accepted::test) ? published : null;
    }

    private static Map<Integer, String> hex(final Map<Integer, Integer> crcs)
    {
        final Map<Integer, String> hex = new TreeMap<>();
        crcs.forEach((member, crc) -> hex.put(member, String.format("%08x", crc)));
        return hex;
    }

    /**
     * Waits until {@code done}; refuses at once when a view change left the topic without a sender or a member: its
     * subgroup no longer runs, so nothing the members wait for can be published. (A view change that keeps it
     * running, say one that removed a member that failed fetching, leaves the others to go on.)
     */
    private static void await(final Group group, final TopicState topic, final Duration timeout,
        final BooleanSupplier done)
    {
        final String name = topic.config.name();
        final long deadline = System.nanoTime() + timeout.toNanos();
        long pause = TimeUnit.MICROSECONDS.toNanos(100);
        while (!done.getAsBoolean())
        {
            if (group.isClosed() || group.minorityReason() != null)
            {
                throw new IllegalStateException("topic " + name + ": the group stopped while the members of view " +
                    "0 compared their logs");
            }
            if (!runs(group, topic))
            {
                throw new IllegalStateException("topic " + name + ": " + group.view() + " holds none of its " +
                    "senders " + topic.config.subgroup().senderIds(group.config().group()) + " (or none of its " +
                    "members) while the members of view 0 compared their logs, which they can no longer finish. " +
                    "Nothing was written: start the group again");
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("topic " + name + ": the members of view 0 did not compare their " +
                    "logs within " + timeout.toMillis() + " ms (view " + group.view() + ")");
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(LONGEST_PAUSE_NANOS, pause * 2);
        }
    }

    /** Whether the topic's subgroup runs in the current view: some of its senders and members are in it. */
    private static boolean runs(final Group group, final TopicState topic)
    {
        final List<Integer> view = group.view().members();
        final SubgroupConfig sg = topic.config.subgroup();
        final GroupConfig config = group.config().group();
        return sg.senderIds(config).stream().anyMatch(view::contains) &&
            sg.memberIds(config).stream().anyMatch(view::contains);
    }

    private static void release(final List<TopicState> topics)
    {
        topics.forEach(TopicState::logsAgreed);
    }

    /** Per topic, the members whose logs hold the most entries. */
    private static Map<String, List<Integer>> holders(final Map<String, Map<Integer, Long>> sizes,
        final Map<String, Long> most)
    {
        final Map<String, List<Integer>> holders = new LinkedHashMap<>();
        sizes.forEach((name, s) ->
        {
            final List<Integer> members = new ArrayList<>();
            s.forEach((member, size) ->
            {
                if (size.equals(most.get(name)))
                {
                    members.add(member);
                }
            });
            holders.put(name, members);
        });
        return holders;
    }
}

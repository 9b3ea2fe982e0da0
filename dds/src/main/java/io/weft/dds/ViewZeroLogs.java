package io.weft.dds;

import io.weft.membership.Group;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * A whole group started again from its logs. The members of view 0 take no state from each other: each logged topic
 * goes on from each member's own log, and the next sample delivered takes the log's size as its position at every
 * member. Logs of different sizes (a member that stopped first persisted less) would give one sample different
 * positions at different members, for good. So before a member of view 0 is enabled, it announces each log's size
 * in the topic's persisted column ({@link LogWriter#start}) and waits for the others': all equal, the topic goes on;
 * not, every member refuses to start, naming each member's size, and nothing is written.
 *
 * <p>No member writes before it agreed, so the first member to agree saw announcements only, all equal. A count
 * published in view 0 (not an announcement) thus means its member saw every size equal to its own, and a slower
 * member that reads it after the first samples were persisted agrees too. A view change before a member agreed
 * refuses it (a joiner's count is no such evidence).
 */
final class ViewZeroLogs
{
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private ViewZeroLogs()
    {
    }

    /**
     * Waits until the members of view 0 announced the same size for every logged topic in {@code topics}, at most
     * {@code timeout}; then the topics publish counts.
     *
     * @throws IllegalStateException the sizes differ (the message names them and what to do), the view changed, the
     *                               group stopped, or a member announced nothing within {@code timeout}.
     */
    static void agree(final Group group, final List<TopicState> topics, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        for (final TopicState topic : topics)
        {
            if (topic.announcedLog() < 0)
            {
                continue; // not logged, or attached as a joiner
            }
            long pause = TimeUnit.MICROSECONDS.toNanos(100);
            while (!agreed(group, topic))
            {
                if (group.isClosed() || group.minorityReason() != null)
                {
                    throw new IllegalStateException("topic " + topic.config.name() + ": the group stopped while the " +
                        "members of view 0 compared their logs");
                }
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("topic " + topic.config.name() + ": not every member of view 0 " +
                        "announced its log's size within " + timeout.toMillis() + " ms: " +
                        topic.subgroup().persistedByMember());
                }
                LockSupport.parkNanos(pause);
                pause = Math.min(LONGEST_PAUSE_NANOS, pause * 2);
            }
            topic.logsAgreed();
        }
    }

    /** Whether the sizes agree; a failed member's announcement counts (its log may be the longest). */
    private static boolean agreed(final Group group, final TopicState topic)
    {
        if (group.view().id() != 0)
        {
            throw new IllegalStateException("topic " + topic.config.name() + ": the view changed (" + group.view() +
                ") while the members of view 0 compared their logs; start the group again");
        }
        final Map<Integer, Long> published = topic.subgroup().persistedByMember();
        if (published.values().stream().anyMatch(v -> v >= 0))
        {
            return true; // a member that agreed (see the class comment)
        }
        if (published.isEmpty() || published.values().stream().anyMatch(v -> v == -1))
        {
            return false; // not every member announced yet
        }
        final Map<Integer, Long> sizes = published.entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> -(e.getValue() + 2), (a, b) -> a, TreeMap::new));
        if (sizes.values().stream().distinct().count() == 1)
        {
            return true;
        }
        final long longest = sizes.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        throw new IllegalStateException("topic " + topic.config.name() + ": the members of view 0 hold logs of " +
            "different sizes (entries by member: " + sizes + "), and view 0 takes no state: the same sample would " +
            "take different positions at different members. Nothing was written. Start as view 0 " +
            "(weft.membership.initial-view) only members whose logs hold the most entries (here members " +
            sizes.entrySet().stream().filter(e -> e.getValue() == longest).map(Map.Entry::getKey).toList() +
            "), then start the others as joiners: a joiner receives the entries its log lacks");
    }
}

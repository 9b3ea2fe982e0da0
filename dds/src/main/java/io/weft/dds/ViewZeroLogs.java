package io.weft.dds;

import io.weft.config.GroupConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A whole group started again from its logs. The members of view 0 take no state from each other: each logged topic
 * goes on from each member's own log, and the next sample delivered takes the log's size as its position at every
 * member. Logs of different sizes (a member that stopped first persisted less) would give one sample different
 * positions at different members, for good. So before a member of view 0 is enabled, it announces each log's size
 * in the topic's persisted column ({@link LogWriter#start}, {@link LogAnnouncement}) and waits for the others':
 * <ul>
 * <li>every topic's sizes equal: the members compare their last entries' CRCs, and the topics go on if they are
 * equal; else every member refuses (logs of one size that end differently are not copies of one history);</li>
 * <li>else, where every logged topic is on every member and some members (the keepers) hold the most entries of
 * every topic: the others leave and join again ({@link DomainParticipant#enable}), receiving what their logs lack
 * from the leader, a keeper (again, if the leader was another shorter log still leaving); the keepers go on once the
 * view holds no shorter log and their last entries are equal;</li>
 * <li>else every member refuses to start, naming each member's sizes; nothing is written.</li>
 * </ul>
 * No member writes before it is enabled, and a member is enabled only once every member left in the view announced
 * as many entries and the same last entry as its own (or counts: it saw the same). A member announces its last entry
 * only after it saw every size, so a slower member that reads one in view 0 takes that member's size to be its own.
 * Keepers announce their last entries only once the view holds no shorter log: in view 0 only when all sizes are
 * equal, else in a later view. A view change before a member saw every size refuses it: the others went on, so it
 * starts again as a joiner.
 */
final class ViewZeroLogs
{
    private static final Logger LOG = LoggerFactory.getLogger(ViewZeroLogs.class);
    /** Short: a member that reads late may find the view changed by another member's leave (tens of ms here). */
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private ViewZeroLogs()
    {
    }

    /**
     * Waits until the members of view 0 agree on this member's logged topics (sizes, then last entries), at most the
     * connect timeout for each wait; then the topics publish counts.
     *
     * @return empty when they agree; else this member's logs are shorter than the keepers', it left the group (and
     *         closed it), and the map holds how many entries the keepers' logs hold per topic: {@link #rejoin}.
     * @throws IllegalStateException the sizes or the last entries differ with no way on (the message names them and
     *                               what to do), the view changed, the group stopped, or a member announced nothing
     *                               in time; the group is closed.
     */
    static Map<String, Long> agree(final Group group, final List<TopicState> all, final WeftConfig config)
    {
        final Map<String, Long> keepersHold;
        try
        {
            keepersHold = decide(group, all, config.transport().connectTimeout(), config.membership().secret() != null);
        }
        catch (final RuntimeException ex)
        {
            group.close(); // this member stops at once; the caller closes its logs
            throw ex;
        }
        if (!keepersHold.isEmpty())
        {
            leave(group); // the keepers go on once no shorter log is left
        }
        return keepersHold;
    }

    /**
     * Joins again after {@link #agree} found this member's logs shorter, until the join brought each log to what the
     * keepers hold. The leader that admits it may be another member with a shorter log that has not left yet: its
     * state brings less (the log stays short: this member leaves and joins again before it publishes a count) or
     * less than this member holds (the install refuses: it joins again), within {@code timeout}.
     */
    static Group rejoin(final GroupBuilder builder, final List<TopicState> topics, final Map<String, Long> keepersHold,
        final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            String lacking;
            try
            {
                final Group group = builder.join();
                lacking = lacking(topics, keepersHold);
                if (lacking == null)
                {
                    return group;
                }
                leave(group);
            }
            catch (final IllegalStateException ex)
            {
                lacking = ex.getMessage();
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("joining again did not bring this member's logs to the keepers' " +
                    keepersHold + " within " + timeout.toMillis() + " ms: " + lacking);
            }
            LOG.info("joining again ({}); the leader was not a keeper yet", lacking);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** Leaves gracefully (the others neither suspect it nor count it against the majority), then closes. */
    private static void leave(final Group group)
    {
        try
        {
            group.leave(group.config().transport().connectTimeout());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while leaving to join again", ex);
        }
        finally
        {
            group.close();
        }
    }

    /** What this member's logs lack of what the keepers hold, or null. */
    private static String lacking(final List<TopicState> topics, final Map<String, Long> keepersHold)
    {
        for (final TopicState t : topics)
        {
            final Long keepers = keepersHold.get(t.config.name());
            final long[] held = t.logHeld();
            if (keepers != null && held != null && held[0] < keepers)
            {
                return "topic " + t.config.name() + " holds " + held[0] + " entries, the keepers " + keepers;
            }
        }
        return null;
    }

    /**
     * Returns empty once the logs agree (or this member is a keeper, no shorter log is left in the view and the
     * keepers' last entries are the same); what the keepers hold per topic when this member's logs are shorter.
     */
    private static Map<String, Long> decide(final Group group, final List<TopicState> all, final Duration timeout,
        final boolean canJoin)
    {
        final List<TopicState> logged = all.stream().filter(t -> t.announcedLog() >= 0).toList();
        // a topic no member of view 0 can send on: nothing takes a position there before a joiner brings the state
        release(logged.stream().filter(t -> !runs(group, t)).toList());
        final List<TopicState> topics = logged.stream().filter(t -> runs(group, t)).toList();
        final Map<String, Map<Integer, Long>> sizes = new LinkedHashMap<>();
        for (final TopicState topic : topics)
        {
            final Map<Integer, Long> announced = new TreeMap<>();
            await(group, topic.config.name(), timeout, () -> sizes(group, topic, announced));
            sizes.put(topic.config.name(), announced);
        }
        final Map<String, Long> most = new LinkedHashMap<>();
        sizes.forEach((name, s) -> most.put(name, s.values().stream().mapToLong(Long::longValue).max().orElseThrow()));
        final List<Integer> view = group.view().members();
        final Set<Integer> keepers = new HashSet<>(view);
        sizes.forEach((name, s) -> s.forEach((member, size) ->
        {
            if (size < most.get(name))
            {
                keepers.remove(member);
            }
        }));
        final boolean equal = keepers.size() == view.size();
        final boolean everywhere = sizes.values().stream().allMatch(s -> s.keySet().containsAll(view));
        final String differ = "the members of view 0 hold logs of different sizes (entries by member: " + sizes +
            "), and view 0 takes no state: the same sample would take different positions at different members";
        if (!equal && (!everywhere || keepers.isEmpty() || !canJoin))
        {
            throw new IllegalStateException(differ + ". Nothing was written. " + (keepers.isEmpty() ?
                "No member holds the most entries of every topic. " : !everywhere ?
                "Not every logged topic is on every member, so the shorter logs cannot catch up by joining. " :
                "Without weft.membership.secret the shorter logs cannot catch up by joining. ") +
                "Start as view 0 (weft.membership.initial-view) only members whose logs hold the most entries " +
                "(per topic: " + holders(sizes, most) + "), then start the others as joiners: a joiner receives " +
                "the entries its log lacks");
        }
        if (!keepers.contains(group.memberId()))
        {
            LOG.warn("{}. Members {} hold the most entries of every topic: member {} leaves and joins again to " +
                "receive what its logs lack", differ, keepers.stream().sorted().toList(), group.memberId());
            return most;
        }
        for (final TopicState topic : topics)
        {
            final long size = most.get(topic.config.name());
            await(group, topic.config.name(), timeout, () -> onlyKeepers(topic, size));
        }
        compareLastEntries(group, topics, timeout);
        release(topics);
        return Map.of();
    }

    /**
     * Every member left in the view holds as many entries as this one: each announces its last entry's CRC and
     * waits for the others'; logs of one size that end differently are not copies of one history, and every
     * keeper refuses (one counts only after it saw every other's CRC equal to its own).
     */
    private static void compareLastEntries(final Group group, final List<TopicState> topics, final Duration timeout)
    {
        topics.forEach(TopicState::announceLastEntry);
        for (final TopicState topic : topics)
        {
            final Map<Integer, Integer> crcs = new TreeMap<>();
            await(group, topic.config.name(), timeout, () -> lastEntries(topic, crcs));
            if (crcs.values().stream().distinct().count() > 1)
            {
                throw new IllegalStateException("topic " + topic.config.name() + ": members " + crcs.keySet() +
                    " hold logs of " + topic.announcedLog() + " entries whose last entries differ (CRC-32C by " +
                    "member: " + hex(crcs) + "): the logs are not copies of one history. Nothing was written. " +
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
        final Map<Integer, Long> published = topic.subgroup().persistedByMember(); // a failed member's too
        if (published.isEmpty() || !published.values().stream().allMatch(v -> LogAnnouncement.isSize(v) ||
            LogAnnouncement.isLastEntry(v)))
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
        final Map<Integer, Long> published = topic.subgroup().persistedByMember(); // empty while a view closes
        if (published.isEmpty() || !published.values().stream().allMatch(v -> v >= 0 ||
            LogAnnouncement.isLastEntry(v)))
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

    /** Whether every member of the topic in the current view holds {@code size} entries: a keeper, or rejoined. */
    private static boolean onlyKeepers(final TopicState topic, final long size)
    {
        final Map<Integer, Long> published = topic.subgroup().persistedByMember(); // empty while a view closes
        return !published.isEmpty() && published.values().stream().allMatch(v -> v >= 0 ||
            v == LogAnnouncement.size(size) || LogAnnouncement.isLastEntry(v));
    }

    private static Map<Integer, String> hex(final Map<Integer, Integer> crcs)
    {
        final Map<Integer, String> hex = new TreeMap<>();
        crcs.forEach((member, crc) -> hex.put(member, String.format("%08x", crc)));
        return hex;
    }

    private static void await(final Group group, final String topic, final Duration timeout,
        final BooleanSupplier done)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        long pause = TimeUnit.MICROSECONDS.toNanos(100);
        while (!done.getAsBoolean())
        {
            if (group.isClosed() || group.minorityReason() != null)
            {
                throw new IllegalStateException("topic " + topic + ": the group stopped while the members of view " +
                    "0 compared their logs");
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("topic " + topic + ": the members of view 0 did not compare their " +
                    "logs within " + timeout.toMillis() + " ms (view " + group.view() + ")");
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(LONGEST_PAUSE_NANOS, pause * 2);
        }
    }

    /** Whether the topic's subgroup runs in view 0: some of its senders and members are in it. */
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

package io.weft.examples.kv;

import static io.weft.examples.kv.StoreClient.args;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The waits of one member's blocked clients over its own store, the delivery thread's steps taken in turn: a command
 * applied, parked, woken by a push, sent again and applied. Across members: KvBlockingTest.
 */
@Timeout(30)
class BlockedClientsTest
{
    private static final long NOW = 1_000_000;
    private final KvStore store = new KvStore();
    private final Map<Command, String> names = new IdentityHashMap<>();

    @Test
    void aClientWokenInVainWaitsAgainInItsPlace()
    {
        final Command first = waitOn("first", "BLPOP", "jobs", "0");
        final Command second = waitOn("second", "BLPOP", "jobs", "0");
        final Command third = waitOn("third", "BRPOP", "jobs", "0");
        assertEquals(3, store.blocked.size());

        apply("RPUSH", "jobs", "a");
        assertEquals(List.of("first"), woken(), "one item wakes the client waiting longest");
        assertEquals(3, store.blocked.size(), "a client whose pop is in the group is blocked still");
        apply("LPOP", "jobs"); // a client of another member took the item first
        assertNull(store.blocked.park(first, apply(first), NOW), "found the list empty: waits again");
        assertEquals(3, store.blocked.size());
        assertEquals(List.of(), woken(), "nothing left to wake anyone for");

        apply("RPUSH", "jobs", "b", "c");
        assertEquals(List.of("first", "second"), woken(),
            "the first client keeps its place before those that came after it");
        assertEquals(3, store.blocked.size());
        assertEquals(List.of("jobs", "b"), texts(store.blocked.park(first, apply(first), NOW)));
        assertEquals(2, store.blocked.size(), "the first is answered");
        assertEquals(List.of("jobs", "c"), texts(store.blocked.park(second, apply(second), NOW)));
        assertEquals(1, store.blocked.size(), "the third waits on");
        assertEquals(List.of(), woken());

        apply("LPUSH", "jobs", "d");
        assertEquals(List.of("third"), woken());
        assertEquals(List.of("jobs", "d"), texts(store.blocked.park(third, apply(third), NOW)));
        assertEquals(0, store.blocked.size());
    }

    @Test
    void itemsWakeNoMoreClientsThanTheyFeedLessThoseAlreadyInTheGroup()
    {
        final Command first = waitOn("first", "BLPOP", "q", "0");
        waitOn("second", "BLPOP", "q", "0");
        waitOn("third", "BLPOP", "other", "q", "0");
        apply("RPUSH", "q", "a");
        assertEquals(List.of("first"), woken());
        apply("RPUSH", "q", "b");
        assertEquals(List.of("second"), woken(), "two items, one of them the first client's in the group");
        apply("SET", "unrelated", "1");
        assertEquals(List.of(), woken(), "a batch that fills no list wakes no one");
        assertEquals(List.of("q", "a"), texts(store.blocked.park(first, apply(first), NOW)));
        assertEquals(List.of(), woken(), "b is the second client's, in the group");
        assertEquals(2, store.blocked.size(), "the third waits here, the second is in the group: both are blocked");
    }

    /**
     * CLIENT UNBLOCK: a client waiting here is answered at once and waits no more; one whose command is in the group
     * answers the unblock's reply if it comes back with nothing, and the item if it popped one (every member applied
     * that pop); one answered is not unblocked.
     */
    @Test
    void unblockEndsAWaitHereAtOnceAndOneInTheGroupAsItComesBack()
    {
        final Reply unblocked = Reply.error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
        final Command parked = waitOn("parked", "BLPOP", "u", "0");
        assertTrue(store.blocked.unblock(parked, unblocked));
        assertEquals(unblocked, parked.reply());
        assertEquals(0, store.blocked.size());
        assertFalse(store.blocked.unblock(parked, Reply.NIL_ARRAY), "answered already");
        apply("RPUSH", "u", "a");
        assertEquals(List.of(), woken(), "the unblocked client is not woken");

        final Command empty = new Command(args("BLPOP", "none", "0"), true, false, null, () -> { }, Long.MAX_VALUE);
        assertTrue(store.blocked.unblock(empty, Reply.NIL_ARRAY), "in the group: answered as it comes back");
        assertEquals(Reply.NIL_ARRAY, store.blocked.park(empty, apply(empty), NOW),
            "nothing popped: the unblock's reply");
        final Command popping = new Command(args("BLPOP", "u", "0"), true, false, null, () -> { }, Long.MAX_VALUE);
        assertTrue(store.blocked.unblock(popping, unblocked));
        assertEquals(List.of("u", "a"), texts(store.blocked.park(popping, apply(popping), NOW)),
            "its pop applied: the item");
        assertEquals(0, store.blocked.size());
    }

    @Test
    void streamReadersAllLookAgainAfterTheIdsTheirFirstLookSaw()
    {
        apply("XADD", "events", "1-1", "a", "1");
        final Command last = read("last", "XREAD", "BLOCK", "0", "STREAMS", "events", "$");
        final Command both = read("both", "XREAD", "COUNT", "5", "BLOCK", "0", "STREAMS", "other", "events", "$", "$");
        final Command ahead = read("ahead", "XREAD", "BLOCK", "0", "STREAMS", "events", "9-0");
        assertEquals("1-1", new String(last.args.getLast(), StandardCharsets.UTF_8),
            "$ stands for the first look's ID");
        assertEquals(3, store.blocked.size());

        apply("XADD", "elsewhere", "1-1", "a", "1");
        assertEquals(List.of(), woken(), "another stream wakes no one");
        apply("XADD", "events", "2-1", "b", "2");
        assertEquals(List.of("last", "both", "ahead"), woken(), "a stream's entry wakes every reader: none takes it");
        assertEquals("[$events, [[$2-1, [$b, $2]]]]", render(store.blocked.park(last, apply(last), NOW)));
        assertEquals("[$events, [[$2-1, [$b, $2]]]]", render(store.blocked.park(both, apply(both), NOW)));
        assertNull(store.blocked.park(ahead, apply(ahead), NOW), "nothing after 9-0 yet: waits again");
        assertEquals(1, store.blocked.size());
        assertEquals(List.of(), woken(), "a reader waiting again wakes no one");

        apply("XADD", "events", "9-1", "c", "3");
        assertEquals(List.of("ahead"), woken());
        assertEquals("[$events, [[$9-1, [$c, $3]]]]", render(store.blocked.park(ahead, apply(ahead), NOW)));
        assertEquals(0, store.blocked.size());
    }

    /** An XREAD with BLOCK, named {@code name} here, applied with nothing to read at its origin: it then waits. */
    private Command read(final String name, final String... words)
    {
        final Command command = new Command(new ArrayList<>(args(words)), false, false, null, () -> { },
            Long.MAX_VALUE);
        assertNull(store.blocked.park(command, apply(command), NOW), "waits: nothing to read");
        names.put(command, name);
        return command;
    }

    /** A reply as text: bulk strings {@code $...}, arrays and pairs as lists. */
    private static String render(final Reply reply)
    {
        return switch (reply)
        {
            case Reply.Bulk b -> "$" + new String(b.bytes(), StandardCharsets.UTF_8);
            case Reply.Array a -> a.items().stream().map(BlockedClientsTest::render).toList().toString();
            case Reply.Pairs p -> p.keysAndValues().stream().map(BlockedClientsTest::render).toList().toString();
            default -> reply.toString();
        };
    }

    /** A blocking command, named {@code name} here, applied with nothing to pop at its origin, where it then waits. */
    private Command waitOn(final String name, final String... words)
    {
        final Command command = new Command(args(words), true, false, null, () -> { }, Long.MAX_VALUE);
        assertNull(store.blocked.park(command, apply(command), NOW), "waits: nothing to pop");
        names.put(command, name);
        return command;
    }

    /** The names of the commands the last batch woke, in the order they are sent. */
    private List<String> woken()
    {
        return store.blocked.woken().stream().map(names::get).toList();
    }

    private Reply apply(final Command command)
    {
        return store.apply(command.args, NOW);
    }

    private Reply apply(final String... words)
    {
        return store.apply(args(words), NOW);
    }

    /** A popped key and item, as text. */
    private static List<String> texts(final Reply reply)
    {
        return ((Reply.Array)reply).items().stream()
            .map(item -> new String(((Reply.Bulk)item).bytes(), StandardCharsets.UTF_8)).toList();
    }
}

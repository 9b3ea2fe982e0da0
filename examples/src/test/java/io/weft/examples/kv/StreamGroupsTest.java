package io.weft.examples.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streams' consumer groups with Redis's replies: every reply in the first two tests was asked of redis-server 7.0.15
 * too, which answers them alike (arrays in brackets; no idle time among them, as Redis's are its wall clock's).
 * Besides: idle and delivery times from the batch's clock (XPENDING, XCLAIM's IDLE and TIME, XAUTOCLAIM's min-idle,
 * XINFO CONSUMERS), and groups in a cut and a snapshot.
 */
@Timeout(10)
class StreamGroupsTest
{
    private final StoreClient client = new StreamsTest.Client();

    /** XGROUP, XREADGROUP with {@code >} and with history, XACK, XPENDING's summary, and their errors. */
    @Test
    void groupsReadAndAcknowledgeAsRedis()
    {
        // XGROUP: creation, MKSTREAM, ENTRIESREAD, errors
        client.expect("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to u" +
            "se the MKSTREAM option to create an empty stream automatically.", "XGROUP", "CREATE", "s", "g", "$");
        client.expect("OK", "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        client.expect("BUSYGROUP Consumer Group name already exists", "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        client.expect("OK", "XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "5");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XGROUP", "CREATE", "s", "g3",
            "bad");
        client.expect("ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.", "XGROUP",
            "CREATE", "s", "g4", "$", "FOO");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XGROUP", "CREATE", "s", "g5", ">");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XGROUP", "CREATE", "s", "g6", "+");
        client.expect("ERR value for ENTRIESREAD must be positive or -1", "XGROUP", "CREATE", "s", "g9", "0",
            "ENTRIESREAD", "-2");
        client.expect("ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.", "XGROUP",
            "CREATE", "s", "g9", "0", "ENTRIESREAD");
        client.expect("OK", "XGROUP", "CREATE", "s", "g9", "0", "MKSTREAM", "MKSTREAM");
        client.expect("ERR wrong number of arguments for 'xgroup|create' command", "XGROUP", "CREATE", "s");
        client.expect("ERR unknown subcommand 'FOO'. Try XGROUP HELP.", "XGROUP", "FOO");
        StreamsTest.addEntries(client, 3);
        // XREADGROUP: new entries, history, errors
        client.expect("[[s [[1-1 [a 1]] [2-1 [b 2]] [3-1 [c 3]]]]]", "XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s",
            ">");
        client.expect("[[s [[1-1 [a 1]]]]]", "XREADGROUP", "GROUP", "g2", "c1", "COUNT", "1", "STREAMS", "s", ">");
        client.expect("[[s [[2-1 [b 2]] [3-1 [c 3]]]]]", "XREADGROUP", "GROUP", "g2", "c2", "STREAMS", "s", ">");
        client.expect("[[s [[1-1 [a 1]]]]]", "XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "s", "0");
        client.expect("[[s []]]", "XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "s", "1-1");
        client.expect("[[s []]]", "XREADGROUP", "GROUP", "g2", "nobody", "STREAMS", "s", "0");
        client.expect("NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option", "XREADGROUP",
            "GROUP", "nog", "c1", "STREAMS", "s", ">");
        client.expect("NOGROUP No such key 'nokey' or consumer group 'g2' in XREADGROUP with GROUP option",
            "XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "nokey", ">");
        client.expect("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of t" +
            "his consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just retu" +
            "rn an empty result set.", "XREADGROUP", "GROUP", "g2", "c1", "STREAMS", "s", "$");
        client.expect("nil", "XREADGROUP", "GROUP", "g2", "c1", "NOACK", "STREAMS", "s", ">");
        client.expect("ERR wrong number of arguments for 'xreadgroup' command", "XREADGROUP", "STREAMS", "s", ">");
        client.expect("ERR wrong number of arguments for 'xreadgroup' command", "XREADGROUP", "GROUP", "g2", "STREAMS",
            "s", ">");
        client.expect("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
            "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0", "extra");
        client.expect("ERR syntax error", "XREADGROUP", "GROUP", "g", "c", "FOO", "STREAMS", "s", ">");
        client.expect("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.", "XREAD",
            "GROUP", "g", "c", "STREAMS", "s", "0");
        client.expect("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.", "XREAD",
            "NOACK", "STREAMS", "s", "0");
        client.expect("ERR wrong number of arguments for 'xreadgroup' command", "XREADGROUP", "COUNT", "1", "STREAMS",
            "s", ">");
        // XPENDING summary, XACK
        client.expect("[3 1-1 3-1 [[c1 1] [c2 2]]]", "XPENDING", "s", "g2");
        client.expect("[3 1-1 3-1 [[c1 3]]]", "XPENDING", "s", "g");
        client.expect("NOGROUP No such key 's' or consumer group 'nog'", "XPENDING", "s", "nog");
        client.expect("NOGROUP No such key 'nokey' or consumer group 'g'", "XPENDING", "nokey", "g");
        client.expect("ERR syntax error", "XPENDING", "s", "g2", "-", "+");
        client.expect("ERR value is not an integer or out of range", "XPENDING", "s", "g2", "IDLE", "x", "-", "+",
            "10");
        client.expect("[]", "XPENDING", "s", "g2", "-", "+", "0");
        client.expect("[]", "XPENDING", "s", "g2", "-", "+", "-1");
        client.expect("[]", "XPENDING", "s", "g2", "-", "+", "10", "nobody");
        client.expect("ERR value is not an integer or out of range", "XPENDING", "s", "g2", "-", "+", "x");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XPENDING", "s", "g2", "bad", "+",
            "10");
        client.expect("1", "XACK", "s", "g2", "1-1", "9-9");
        client.expect("0", "XACK", "s", "g2", "1-1");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XACK", "s", "g2", "bad");
        client.expect("0", "XACK", "s", "nog", "1-1");
        client.expect("0", "XACK", "nokey", "g", "1-1");
        client.expect("[2 2-1 3-1 [[c2 2]]]", "XPENDING", "s", "g2");
        // consumers, SETID, DESTROY
        client.expect("1", "XGROUP", "CREATECONSUMER", "s", "g2", "c3");
        client.expect("0", "XGROUP", "CREATECONSUMER", "s", "g2", "c3");
        client.expect("NOGROUP No such consumer group 'nog' for key name 's'", "XGROUP", "CREATECONSUMER", "s", "nog",
            "c3");
        client.expect("2", "XGROUP", "DELCONSUMER", "s", "g2", "c2");
        client.expect("0", "XGROUP", "DELCONSUMER", "s", "g2", "nobody");
        client.expect("[0 nil nil nil]", "XPENDING", "s", "g2");
        client.expect("OK", "XGROUP", "SETID", "s", "g2", "0");
        client.expect("[[s [[1-1 [a 1]]]]]", "XREADGROUP", "GROUP", "g2", "c9", "COUNT", "1", "STREAMS", "s", ">");
        client.expect("OK", "XGROUP", "SETID", "s", "g2", "$", "ENTRIESREAD", "0");
        client.expect("NOGROUP No such consumer group 'nog' for key name 's'", "XGROUP", "SETID", "s", "nog", "0");
        client.expect("ERR unknown subcommand or wrong number of arguments for 'SETID'. Try XGROUP HELP.", "XGROUP",
            "SETID", "s", "g2", "0", "FOO", "1");
        client.expect("ERR value for ENTRIESREAD must be positive or -1", "XGROUP", "SETID", "s", "g2", "0",
            "ENTRIESREAD", "-2");
        client.expect("OK", "XGROUP", "SETID", "s", "g2", "-");
        client.expect("0", "XGROUP", "DESTROY", "s", "g3");
        client.expect("1", "XGROUP", "DESTROY", "s", "g");
        client.expect("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to u" +
            "se the MKSTREAM option to create an empty stream automatically.", "XGROUP", "DESTROY", "nokey", "g");
        client.expect("ERR wrong number of arguments for 'xgroup|destroy' command", "XGROUP", "DESTROY", "s", "g",
            "extra");
        client.expect("OK", "SET", "str", "x");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XGROUP", "CREATE", "str",
            "g", "$");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XREADGROUP", "GROUP", "g",
            "c", "STREAMS", "str", ">");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XACK", "str", "g", "1-1");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XPENDING", "str", "g");
    }

    /** XCLAIM, XAUTOCLAIM (deleted entries leave the pending ones), XINFO STREAM, GROUPS (entries read, lag). */
    @Test
    void claimsAndInfoAsRedis()
    {
        StreamsTest.addEntries(client, 4);
        client.expect("OK", "XGROUP", "CREATE", "s", "g", "0");
        client.expect("[[s [[1-1 [a 1]] [2-1 [b 2]] [3-1 [c 3]] [4-1 [d 4]]]]]", "XREADGROUP", "GROUP", "g", "c1",
            "STREAMS", "s", ">");
        // XCLAIM
        client.expect("[[1-1 [a 1]] [2-1 [b 2]]]", "XCLAIM", "s", "g", "c2", "0", "1-1", "2-1", "9-9");
        client.expect("[3-1]", "XCLAIM", "s", "g", "c2", "0", "3-1", "JUSTID");
        client.expect("[]", "XCLAIM", "s", "g", "c2", "999999999", "4-1");
        client.expect("[]", "XCLAIM", "s", "g", "c3", "0", "9-9", "FORCE");
        client.expect("[[4-1 [d 4]]]", "XCLAIM", "s", "g", "c3", "0", "4-1", "RETRYCOUNT", "7");
        client.expect("[[4-1 [d 4]]]", "XCLAIM", "s", "g", "c3", "0", "4-1", "LASTID", "99-0");
        client.expect("ERR Unrecognized XCLAIM option 'bad'", "XCLAIM", "s", "g", "c3", "0", "bad");
        client.expect("ERR Invalid min-idle-time argument for XCLAIM", "XCLAIM", "s", "g", "c3", "x", "1-1");
        client.expect("[[1-1 [a 1]]]", "XCLAIM", "s", "g", "c3", "-5", "1-1");
        client.expect("NOGROUP No such key 's' or consumer group 'nog'", "XCLAIM", "s", "nog", "c3", "0", "1-1");
        client.expect("NOGROUP No such key 'nokey' or consumer group 'g'", "XCLAIM", "nokey", "g", "c3", "0", "1-1");
        client.expect("ERR Unrecognized XCLAIM option 'FOO'", "XCLAIM", "s", "g", "c3", "0", "1-1", "FOO");
        client.expect("ERR Unrecognized XCLAIM option 'IDLE'", "XCLAIM", "s", "g", "c3", "0", "1-1", "IDLE");
        client.expect("ERR Invalid IDLE option argument for XCLAIM", "XCLAIM", "s", "g", "c3", "0", "1-1", "IDLE", "x");
        client.expect("[[1-1 [a 1]]]", "XCLAIM", "s", "g", "c3", "0", "1-1", "RETRYCOUNT", "-1");
        client.expect("[4 1-1 4-1 [[c2 2] [c3 2]]]", "XPENDING", "s", "g");
        client.expect("[[name g consumers 3 pending 4 last-delivered-id 99-0 entries-read 4 lag 0]]", "XINFO", "GROUPS",
            "s");
        // XAUTOCLAIM, deleted entries
        client.expect("1", "XDEL", "s", "2-1");
        client.expect("[2-1 [[1-1 [a 1]]] []]", "XAUTOCLAIM", "s", "g", "c4", "0", "0", "COUNT", "1");
        client.expect("[2-1 [1-1] []]", "XAUTOCLAIM", "s", "g", "c4", "0", "0", "COUNT", "1", "JUSTID");
        client.expect("[0-0 [[1-1 [a 1]] [3-1 [c 3]] [4-1 [d 4]]] [2-1]]", "XAUTOCLAIM", "s", "g", "c4", "0", "0");
        client.expect("ERR COUNT must be > 0", "XAUTOCLAIM", "s", "g", "c4", "0", "0", "COUNT", "0");
        client.expect("ERR COUNT must be > 0", "XAUTOCLAIM", "s", "g", "c4", "0", "0", "COUNT", "x");
        client.expect("[0-0 [[1-1 [a 1]] [3-1 [c 3]] [4-1 [d 4]]] []]", "XAUTOCLAIM", "s", "g", "c4", "0", "0", "COUNT",
            "999999999");
        client.expect("ERR Invalid min-idle-time argument for XAUTOCLAIM", "XAUTOCLAIM", "s", "g", "c4", "x", "0");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XAUTOCLAIM", "s", "g", "c4", "0",
            "bad");
        client.expect("NOGROUP No such key 's' or consumer group 'nog'", "XAUTOCLAIM", "s", "nog", "c4", "0", "0");
        client.expect("ERR syntax error", "XAUTOCLAIM", "s", "g", "c4", "0", "0", "FOO");
        client.expect("[0-0 [[3-1 [c 3]] [4-1 [d 4]]] []]", "XAUTOCLAIM", "s", "g", "c4", "0", "(1-1");
        client.expect("[0-0 [] []]", "XAUTOCLAIM", "s", "g", "c4", "999999999", "0");
        client.expect("[3 1-1 4-1 [[c4 3]]]", "XPENDING", "s", "g");
        client.expect("1", "XDEL", "s", "3-1");
        client.expect("[[s [[1-1 [a 1]] [3-1 nil] [4-1 [d 4]]]]]", "XREADGROUP", "GROUP", "g", "c4", "STREAMS", "s",
            "0");
        client.expect("[[4-1 [d 4]]]", "XCLAIM", "s", "g", "c5", "0", "3-1", "4-1");
        client.expect("[2 1-1 4-1 [[c4 1] [c5 1]]]", "XPENDING", "s", "g");
        // XINFO
        client.expect("[length 2 radix-tree-keys 1 radix-tree-nodes 2 last-generated-id 4-1 max-deleted-entry-id 3" +
            "-1 entries-added 4 recorded-first-entry-id 1-1 groups 1 first-entry [1-1 [a 1]] last-entry [4-1 [d 4]" +
            "]]", "XINFO", "STREAM", "s");
        client.expect("[[name g consumers 5 pending 2 last-delivered-id 99-0 entries-read 4 lag 0]]", "XINFO", "GROUPS",
            "s");
        client.expect("NOGROUP No such consumer group 'nog' for key name 's'", "XINFO", "CONSUMERS", "s", "nog");
        client.expect("ERR no such key", "XINFO", "STREAM", "nokey");
        client.expect("ERR no such key", "XINFO", "GROUPS", "nokey");
        client.expect("ERR value is not an integer or out of range", "XINFO", "STREAM", "s", "FULL", "COUNT", "x");
        client.expect("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.", "XINFO",
            "STREAM", "s", "FULL", "FOO", "1");
        client.expect("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.", "XINFO",
            "STREAM", "s", "FOO");
        client.expect("ERR wrong number of arguments for 'xinfo|groups' command", "XINFO", "GROUPS", "s", "extra");
        client.expect("ERR wrong number of arguments for 'xinfo|consumers' command", "XINFO", "CONSUMERS", "s");
        client.expect("ERR unknown subcommand 'FOO'. Try XINFO HELP.", "XINFO", "FOO", "s");
        client.expect("1-1", "XADD", "e", "MAXLEN", "0", "1-1", "a", "1");
        client.expect("[length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 1-1 max-deleted-entry-id 0" +
            "-0 entries-added 1 recorded-first-entry-id 0-0 groups 0 first-entry nil last-entry nil]", "XINFO",
            "STREAM", "e");
        client.expect("[length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 1-1 max-deleted-entry-id 0" +
            "-0 entries-added 1 recorded-first-entry-id 0-0 entries [] groups []]", "XINFO", "STREAM", "e", "FULL");
        client.expect("OK", "XGROUP", "CREATE", "e", "g", "0");
        client.expect("OK", "XGROUP", "CREATE", "e", "g1", "$");
        client.expect("OK", "XGROUP", "CREATE", "e", "g2", "0", "ENTRIESREAD", "1");
        client.expect("[[name g consumers 0 pending 0 last-delivered-id 0-0 entries-read nil lag 0] [name g1 consu" +
            "mers 0 pending 0 last-delivered-id 1-1 entries-read nil lag 0] [name g2 consumers 0 pending 0 last-de" +
            "livered-id 0-0 entries-read 1 lag 0]]", "XINFO", "GROUPS", "e");
        client.expect("2-1", "XADD", "e", "2-1", "b", "2");
        client.expect("3-1", "XADD", "e", "3-1", "c", "3");
        client.expect("[[name g consumers 0 pending 0 last-delivered-id 0-0 entries-read nil lag 2] [name g1 consu" +
            "mers 0 pending 0 last-delivered-id 1-1 entries-read nil lag 2] [name g2 consumers 0 pending 0 last-de" +
            "livered-id 0-0 entries-read 1 lag 2]]", "XINFO", "GROUPS", "e");
        client.expect("1", "XDEL", "e", "2-1");
        client.expect("[[name g consumers 0 pending 0 last-delivered-id 0-0 entries-read nil lag 1] [name g1 consu" +
            "mers 0 pending 0 last-delivered-id 1-1 entries-read nil lag 1] [name g2 consumers 0 pending 0 last-de" +
            "livered-id 0-0 entries-read 1 lag 2]]", "XINFO", "GROUPS", "e");
        client.expect("[[e [[3-1 [c 3]]]]]", "XREADGROUP", "GROUP", "g", "c", "STREAMS", "e", ">");
        client.expect("[[name g consumers 1 pending 1 last-delivered-id 3-1 entries-read 3 lag 0] [name g1 consume" +
            "rs 0 pending 0 last-delivered-id 1-1 entries-read nil lag 1] [name g2 consumers 0 pending 0 last-deli" +
            "vered-id 0-0 entries-read 1 lag 2]]", "XINFO", "GROUPS", "e");
        client.expect("OK", "SET", "str", "x");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XINFO", "STREAM", "str");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XCLAIM", "str", "g", "c",
            "0", "1-1");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XAUTOCLAIM", "str", "g",
            "c", "0", "0");
    }

    /**
     * Times are the batch's clock readings: a delivery's, a consumer's last sight; XPENDING's and XINFO's idle times
     * and the min-idle of XPENDING, XCLAIM and XAUTOCLAIM are measured against the clock of the batch that runs them.
     */
    @Test
    void idleTimesFollowTheBatchClock()
    {
        run(1_000, "XADD", "s", "1-1", "a", "1");
        run(1_000, "XADD", "s", "2-1", "b", "2");
        run(1_000, "XGROUP", "CREATE", "s", "g", "0");
        run(2_000, "XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "s", ">");
        run(3_000, "XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">");
        assertEquals("[[1-1 c1 3000 1] [2-1 c2 2000 1]]", run(5_000, "XPENDING", "s", "g", "-", "+", "10"));
        assertEquals("[[1-1 c1 3000 1]]", run(5_000, "XPENDING", "s", "g", "IDLE", "2500", "-", "+", "10"));
        assertEquals("[]", run(5_000, "XCLAIM", "s", "g", "c3", "3500", "1-1", "2-1"), "none idle 3.5 s");
        assertEquals("[[1-1 [a 1]]]", run(5_000, "XCLAIM", "s", "g", "c3", "2500", "1-1", "2-1", "IDLE", "100"));
        assertEquals("[[1-1 c3 100 2] [2-1 c2 2000 1]]", run(5_000, "XPENDING", "s", "g", "-", "+", "10"));
        assertEquals("[[2-1 c2 1000 1]]", run(4_000, "XPENDING", "s", "g", "-", "+", "10", "c2"));
        assertEquals("[[2-1 [b 2]]]", run(6_000, "XCLAIM", "s", "g", "c3", "0", "2-1", "TIME", "5500",
            "RETRYCOUNT", "9"));
        assertEquals("[[1-1 c3 1100 2] [2-1 c3 500 9]]", run(6_000, "XPENDING", "s", "g", "-", "+", "10"));
        assertEquals("[[2-1 c3 0 9]]", run(5_000, "XPENDING", "s", "g", "(1-1", "+", "10"), "never below 0");
        assertEquals("[0-0 [[1-1 [a 1]]] []]", run(7_000, "XAUTOCLAIM", "s", "g", "c4", "1600", "0"));
        assertEquals("[[name c1 pending 0 idle 5000] [name c2 pending 0 idle 4000] [name c3 pending 1 idle 1000] " +
            "[name c4 pending 1 idle 0]]", run(7_000, "XINFO", "CONSUMERS", "s", "g"));
    }

    /**
     * XCLAIM's LASTID moves the group's last ID even when it claims nothing, also after a cut, which makes the next
     * change of the stream work on a copy: a change not stored then was lost (the copy dropped) at the members that
     * had taken a cut and kept at the others.
     */
    @Test
    void aLastIdAloneIsStoredAfterACut()
    {
        client.run("XADD", "s", "1-1", "a", "1");
        client.run("XGROUP", "CREATE", "s", "g", "$");
        client.store.cut();
        client.expect("[]", "XCLAIM", "s", "g", "c", "0", "9-9", "LASTID", "50-0");
        client.expect("[[name g consumers 0 pending 0 last-delivered-id 50-0 entries-read nil lag nil]]", "XINFO",
            "GROUPS", "s");
    }

    /** A cut and a snapshot carry groups whole: consumers, pending entries and their times, counters. */
    @Test
    void aSnapshotCarriesGroups()
    {
        client.run("XADD", "s", "1-1", "a", "1");
        client.run("XADD", "s", "2-1", "b", "2");
        client.run("XGROUP", "CREATE", "s", "g", "0", "ENTRIESREAD", "0");
        client.run("XGROUP", "CREATE", "s", "other", "$");
        client.run("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">");
        client.run("XCLAIM", "s", "g", "c2", "0", "2-1", "RETRYCOUNT", "4");
        client.run("XGROUP", "CREATECONSUMER", "s", "other", "idle");
        final byte[] state = client.store.snapshot();
        final StoreClient loaded = new StreamsTest.Client();
        final StoreLoader loader = loaded.store.loader();
        for (int at = 0; at < state.length; at += 5)
        {
            loader.accept(state, at, Math.min(5, state.length - at));
        }
        loader.finish();
        assertArrayEquals(state, loaded.store.snapshot());
        assertEquals(client.store.bytes(), loaded.store.bytes(), "a loaded store estimates its size alike");
        for (final String[] command : List.of(new String[] {"XPENDING", "s", "g", "-", "+", "10"},
            new String[] {"XINFO", "GROUPS", "s"}, new String[] {"XINFO", "CONSUMERS", "s", "other"},
            new String[] {"XINFO", "STREAM", "s", "FULL"}))
        {
            assertEquals(StreamsTest.text(client.run((Object[])command)), StreamsTest.text(loaded.run(
                (Object[])command)), String.join(" ", command));
        }
        loaded.expect("1", "XACK", "s", "g", "2-1");
        loaded.expect("[1 1-1 1-1 [[c1 1]]]", "XPENDING", "s", "g");
        assertTrue(client.store.bytes() > 0);
    }

    private String run(final long now, final String... words)
    {
        return StreamsTest.text(client.store.apply(StoreClient.args(words), now));
    }
}

package io.weft.examples.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streams with Redis's replies: every reply in the four command tests was asked of redis-server 7.0.15 too, which
 * answers them alike (arrays in brackets here). Besides: XADD's {@code *} from the batch's clock, the exact trimming of
 * {@code ~} (where Redis trims whole nodes), a stream in a cut and a snapshot, the version gate of scripts, and the
 * key commands over streams.
 */
@Timeout(10)
class StreamsTest
{
    private final StoreClient client = new Client();

    /** Explicit IDs, {@code ms-*} and {@code ms}, the ends of the ID space, XADD's options and its errors. */
    @Test
    void addFollowsRedis()
    {
        // explicit IDs, ms-*, ms alone, the bounds of the ID space
        client.expect("1-1", "XADD", "s", "1-1", "a", "1");
        client.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "s",
            "1-1", "a", "1");
        client.expect("ERR The ID specified in XADD must be greater than 0-0", "XADD", "s", "0-0", "a", "1");
        client.expect("ERR The ID specified in XADD must be greater than 0-0", "XADD", "t", "0-0", "a", "1");
        client.expect("1-2", "XADD", "s", "1-*", "b", "2");
        client.expect("2-0", "XADD", "s", "2-*", "b", "2");
        client.expect("3-0", "XADD", "s", "3", "b", "2");
        client.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "s",
            "3", "b", "2");
        client.expect("18446744073709551615-18446744073709551615", "XADD", "s",
            "18446744073709551615-18446744073709551615", "z", "1");
        client.expect("ERR The stream has exhausted the last possible ID, unable to add more items", "XADD", "s",
            "18446744073709551615-*", "z", "1");
        client.expect("18446744073709551615-0", "XADD", "u", "18446744073709551615-*", "z", "1");
        client.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "u",
            "18446744073709551614-18446744073709551615", "z", "1");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XADD", "s",
            "18446744073709551616-1", "x", "y");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XADD", "s", "abc", "a", "1");
        client.expect("ERR The stream has exhausted the last possible ID, unable to add more items", "XADD", "s", "+1",
            "a", "1");
        client.expect("ERR The stream has exhausted the last possible ID, unable to add more items", "XADD", "s",
            "01-1", "a", "1");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XADD", "s", "-1", "a", "1");
        // arity and options
        client.expect("ERR wrong number of arguments for 'xadd' command", "XADD", "s", "5-1", "x");
        client.expect("ERR wrong number of arguments for 'xadd' command", "XADD", "s", "5-1", "x", "y", "z");
        client.expect("nil", "XADD", "nokey", "NOMKSTREAM", "1-1", "a", "1");
        client.expect("0", "EXISTS", "nokey");
        client.expect("ERR The MAXLEN argument must be >= 0.", "XADD", "s", "MAXLEN", "-1", "9-1", "a", "1");
        client.expect("ERR syntax error, LIMIT cannot be used without the special ~ option", "XADD", "s", "MAXLEN", "1",
            "LIMIT", "5", "9-1", "a", "1");
        client.expect("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy", "XADD", "s",
            "LIMIT", "5", "9-1", "a", "1");
        client.expect("ERR syntax error, LIMIT cannot be used without the special ~ option", "XADD", "s", "LIMIT", "0",
            "9-1", "a", "1");
        client.expect("ERR syntax error, MAXLEN and MINID options at the same time are not compatible", "XADD", "s",
            "MAXLEN", "1", "MINID", "1", "9-1", "a", "1");
        client.expect("ERR value is not an integer or out of range", "XADD", "s", "MAXLEN", "x", "9-1", "a", "1");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XADD", "s", "MINID", "bad", "9-1",
            "a", "1");
        client.expect("ERR wrong number of arguments for 'xadd' command", "XADD", "s", "MAXLEN", "1", "2-1");
        client.expect("5-5", "XADD", "m", "MAXLEN", "0", "5-5", "a", "1");
        client.expect("1", "EXISTS", "m");
        client.expect("0", "XLEN", "m");
        client.expect("[]", "XRANGE", "m", "-", "+");
        client.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "m",
            "5-5", "a", "1");
        client.expect("stream", "TYPE", "m");
        client.expect("OK", "SET", "str", "x");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XADD", "str", "1-1", "a",
            "1");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XLEN", "str");
        client.expect("0", "XLEN", "nokey");
        client.expect("5", "XLEN", "s");
        client.expect("1", "XLEN", "u");
    }

    /** XRANGE and XREVRANGE: inclusive and exclusive bounds, IDs read as Redis reads them, COUNT. */
    @Test
    void rangesFollowRedis()
    {
        client.expect("1-1", "XADD", "s", "1-1", "a", "1");
        client.expect("1-2", "XADD", "s", "1-2", "b", "2", "c", "3");
        client.expect("5-0", "XADD", "s", "5-0", "d", "4");
        client.expect("18446744073709551615-0", "XADD", "s", "18446744073709551615-0", "e", "5");
        client.expect("[[1-1 [a 1]] [1-2 [b 2 c 3]] [5-0 [d 4]] [18446744073709551615-0 [e 5]]]", "XRANGE", "s", "-",
            "+");
        client.expect("[[1-1 [a 1]] [1-2 [b 2 c 3]]]", "XRANGE", "s", "-", "+", "COUNT", "2");
        client.expect("nil", "XRANGE", "s", "-", "+", "COUNT", "0");
        client.expect("nil", "XRANGE", "s", "-", "+", "COUNT", "-3");
        client.expect("[]", "XRANGE", "nokey", "-", "+", "COUNT", "0");
        client.expect("[]", "XRANGE", "nokey", "-", "+");
        client.expect("ERR syntax error", "XRANGE", "s", "-", "+", "COUNT");
        client.expect("ERR syntax error", "XRANGE", "s", "-", "+", "FOO", "1");
        client.expect("[[1-1 [a 1]] [1-2 [b 2 c 3]] [5-0 [d 4]]]", "XRANGE", "s", "-", "+", "COUNT", "1", "COUNT", "3");
        client.expect("[[1-1 [a 1]] [1-2 [b 2 c 3]]]", "XRANGE", "s", "1", "1");
        client.expect("[[1-2 [b 2 c 3]] [5-0 [d 4]]]", "XRANGE", "s", "(1-1", "5");
        client.expect("[[1-1 [a 1]] [1-2 [b 2 c 3]] [5-0 [d 4]] [18446744073709551615-0 [e 5]]]", "XRANGE", "s", "(1",
            "+");
        client.expect("[[1-1 [a 1]] [1-2 [b 2 c 3]]]", "XRANGE", "s", "-", "(5-0");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "(", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "(-", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "-", "(+");
        client.expect("ERR invalid start ID for the interval", "XRANGE", "s",
            "(18446744073709551615-18446744073709551615", "+");
        client.expect("ERR invalid end ID for the interval", "XRANGE", "s", "-", "(0-0");
        client.expect("[]", "XRANGE", "s", "-", "(0");
        client.expect("[]", "XRANGE", "s", "5", "1");
        client.expect("[[18446744073709551615-0 [e 5]]]", "XRANGE", "s", "18446744073709551615", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s",
            "18446744073709551616", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s",
            "-18446744073709551615", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "1-1-1", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "1-", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "1-*", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "", "+");
        client.expect("[[1-1 [a 1]] [1-2 [b 2 c 3]] [5-0 [d 4]]]", "XRANGE", "s", " 1", "+5");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "s", "0x1", "+");
        client.expect("[[18446744073709551615-0 [e 5]] [5-0 [d 4]] [1-2 [b 2 c 3]] [1-1 [a 1]]]", "XREVRANGE", "s", "+",
            "-");
        client.expect("[[18446744073709551615-0 [e 5]] [5-0 [d 4]]]", "XREVRANGE", "s", "+", "-", "COUNT", "2");
        client.expect("[]", "XREVRANGE", "s", "-", "+");
        client.expect("[[5-0 [d 4]] [1-2 [b 2 c 3]]]", "XREVRANGE", "s", "5", "(1-1");
        client.expect("[[5-0 [d 4]] [1-2 [b 2 c 3]] [1-1 [a 1]]]", "XREVRANGE", "s", "(5", "-");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XREVRANGE", "s", "bad", "worse");
        client.expect("OK", "SET", "str", "x");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XRANGE", "str", "-", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XRANGE", "str", "bad", "+");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XREVRANGE", "str", "+",
            "-");
    }

    /** XDEL, XTRIM with MAXLEN and MINID (exact), XSETID, and the last ID a stream keeps with no entries. */
    @Test
    void deletesTrimsAndSetIdsFollowRedis()
    {
        addEntries(client, 4);
        client.expect("ERR Invalid stream ID specified as stream command argument", "XDEL", "s", "2-1", "9-9", "bad");
        client.expect("1", "XDEL", "s", "2-1", "9-9", "2-1");
        client.expect("0", "XDEL", "s", "2-1");
        client.expect("0", "XDEL", "nokey", "bad");
        client.expect("3", "XLEN", "s");
        // trimming, exact
        client.expect("1", "XTRIM", "s", "MAXLEN", "2");
        client.expect("[[3-1 [c 3]] [4-1 [d 4]]]", "XRANGE", "s", "-", "+");
        client.expect("1", "XTRIM", "s", "MINID", "4");
        client.expect("[[4-1 [d 4]]]", "XRANGE", "s", "-", "+");
        client.expect("0", "XTRIM", "s", "MINID", "=", "4");
        client.expect("ERR wrong number of arguments for 'xtrim' command", "XTRIM", "s");
        client.expect("ERR syntax error", "XTRIM", "s", "FOO", "1");
        client.expect("ERR syntax error", "XTRIM", "s", "MAXLEN", "1", "foo");
        client.expect("ERR syntax error", "XTRIM", "s", "MAXLEN", "1", "NOMKSTREAM");
        client.expect("ERR syntax error, LIMIT cannot be used without the special ~ option", "XTRIM", "s", "MAXLEN",
            "=", "0", "LIMIT", "1");
        client.expect("ERR syntax error, MAXLEN and MINID options at the same time are not compatible", "XTRIM", "s",
            "MAXLEN", "0", "MINID", "1");
        client.expect("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy", "XTRIM", "s",
            "LIMIT", "1");
        client.expect("ERR The LIMIT argument must be >= 0.", "XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "-1");
        client.expect("0", "XTRIM", "nokey", "MAXLEN", "0");
        client.expect("1", "XTRIM", "s", "MAXLEN", "0");
        client.expect("0", "XLEN", "s");
        client.expect("1", "EXISTS", "s");
        client.expect("[]", "XRANGE", "s", "-", "+");
        // the last ID stays with no entries
        client.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "s",
            "4-1", "e", "5");
        client.expect("4-2", "XADD", "s", "4-*", "e", "5");
        // XSETID
        client.expect("ERR The ID specified in XSETID is smaller than the target stream top item", "XSETID", "s",
            "1-1");
        client.expect("ERR The ID specified in XSETID is smaller than the target stream top item", "XSETID", "s",
            "4-1");
        client.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "s",
            "4-1", "e", "5");
        client.expect("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id", "XSETID", "s",
            "99-1", "ENTRIESADDED", "5", "MAXDELETEDID", "100");
        client.expect("ERR entries_added must be positive", "XSETID", "s", "99-1", "ENTRIESADDED", "-1");
        client.expect("ERR value is not an integer or out of range", "XSETID", "s", "99-1", "ENTRIESADDED", "x");
        client.expect("ERR syntax error", "XSETID", "s", "99-1", "ENTRIESADDED");
        client.expect("ERR syntax error", "XSETID", "s", "99-1", "FOO", "1");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XSETID", "s", "99-1",
            "MAXDELETEDID", "-");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XSETID", "s", "-");
        client.expect("ERR no such key", "XSETID", "nokey", "1-1");
        client.expect("5-1", "XADD", "s", "5-1", "f", "6");
        client.expect("ERR The ID specified in XSETID is smaller than the target stream top item", "XSETID", "s",
            "5-0");
        client.expect("ERR The entries_added specified in XSETID is smaller than the target stream length", "XSETID",
            "s", "5-1", "ENTRIESADDED", "0");
        client.expect("OK", "XSETID", "s", "6-1", "ENTRIESADDED", "7", "MAXDELETEDID", "6-0");
        client.expect("6-2", "XADD", "s", "6-*", "g", "7");
        client.expect("OK", "SET", "str", "x");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XSETID", "str", "1-1");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XDEL", "str", "1-1");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XTRIM", "str", "MAXLEN",
            "0");
    }

    /** XREAD of several streams, {@code $}, COUNT, and BLOCK's arguments (a read that finds entries does not wait). */
    @Test
    void readsFollowRedis()
    {
        client.expect("1-1", "XADD", "s", "1-1", "a", "1");
        client.expect("1-2", "XADD", "s", "1-2", "b", "2");
        client.expect("5-0", "XADD", "t", "5-0", "c", "3");
        client.expect("[[s [[1-1 [a 1]] [1-2 [b 2]]]]]", "XREAD", "STREAMS", "s", "0");
        client.expect("[[s [[1-1 [a 1]]]] [t [[5-0 [c 3]]]]]", "XREAD", "COUNT", "1", "STREAMS", "s", "t", "0", "0");
        client.expect("[[s [[1-2 [b 2]]]] [t [[5-0 [c 3]]]]]", "XREAD", "STREAMS", "s", "t", "1-1", "4");
        client.expect("nil", "XREAD", "STREAMS", "s", "t", "1-2", "5");
        client.expect("nil", "XREAD", "STREAMS", "s", "$");
        client.expect("nil", "XREAD", "STREAMS", "s", "nokey", "$", "$");
        client.expect("nil", "XREAD", "STREAMS", "nokey", "0");
        client.expect("[[s [[1-1 [a 1]] [1-2 [b 2]]]]]", "XREAD", "COUNT", "0", "STREAMS", "s", "0");
        client.expect("[[s [[1-2 [b 2]]]]]", "XREAD", "COUNT", "-5", "STREAMS", "s", "1-1");
        client.expect(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.",
            "XREAD", "STREAMS", "s", ">");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XREAD", "STREAMS", "s", "+");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XREAD", "STREAMS", "s", "-");
        client.expect("ERR Invalid stream ID specified as stream command argument", "XREAD", "STREAMS", "s", "bad");
        client.expect("[[s [[1-1 [a 1]] [1-2 [b 2]]]]]", "XREAD", "STREAMS", "s", "1");
        client.expect("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
            "XREAD", "STREAMS", "s", "s", "s");
        client.expect("ERR wrong number of arguments for 'xread' command", "XREAD", "STREAMS");
        client.expect("ERR syntax error", "XREAD", "COUNT", "1", "STREAMS");
        client.expect("ERR value is not an integer or out of range", "XREAD", "COUNT", "x", "STREAMS", "s", "0");
        client.expect("ERR syntax error", "XREAD", "FOO", "STREAMS", "s", "0");
        client.expect("ERR syntax error", "XREAD", "COUNT", "1", "BLOCK", "0");
        client.expect("ERR wrong number of arguments for 'xread' command", "XREAD", "COUNT", "1");
        client.expect("OK", "SET", "str", "x");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XREAD", "STREAMS", "nokey",
            "str", "0", "0");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XREAD", "STREAMS", "s",
            "str", "0", "bad");
        client.expect("WRONGTYPE Operation against a key holding the wrong kind of value", "XREAD", "STREAMS", "str",
            "s", "bad", "0");
        client.expect("ERR timeout is not an integer or out of range", "XREAD", "BLOCK", "x", "STREAMS", "s", "0");
        client.expect("ERR timeout is negative", "XREAD", "BLOCK", "-1", "STREAMS", "s", "0");
        client.expect("ERR timeout is not an integer or out of range", "XREAD", "BLOCK", "1.5", "STREAMS", "s", "0");
        client.expect("[[s [[1-1 [a 1]] [1-2 [b 2]]]]]", "XREAD", "BLOCK", "10", "STREAMS", "s", "0");
        client.expect("[[s [[1-2 [b 2]]]]]", "XREAD", "BLOCK", "10", "COUNT", "1", "STREAMS", "s", "t", "1-1", "$");
    }

    /**
     * {@code *} is the batch's clock reading, or the last ID's next while the clock is not past it (a clock that went
     * back, or many entries in a millisecond): every member gives the entry the same ID.
     */
    @Test
    void anAutomaticIdIsTheBatchClocks()
    {
        assertEquals("1000000-0", text(client.store.apply(StoreClient.args("XADD", "s", "*", "a", "1"), 1_000_000)));
        assertEquals("1000000-1", text(client.store.apply(StoreClient.args("XADD", "s", "*", "a", "1"), 1_000_000)));
        assertEquals("1000000-2", text(client.store.apply(StoreClient.args("XADD", "s", "*", "a", "1"), 999_000)));
        assertEquals("1000001-0", text(client.store.apply(StoreClient.args("XADD", "s", "*", "a", "1"), 1_000_001)));
        assertEquals("1000001-1", text(client.store.apply(StoreClient.args("XADD", "s", "1000001-*", "a", "1"), 5)));
        assertEquals("2000000-0", text(client.store.apply(StoreClient.args("XADD", "s", "2000000-*", "a", "1"), 5)));
    }

    /**
     * {@code ~} trims entry by entry to the threshold, as {@code =} does, at most LIMIT entries a call (10,000 when
     * none is given); Redis trims whole nodes of up to 100 entries under {@code ~}, and keeps the rest of a node.
     */
    @Test
    void anApproximateTrimIsExactAndBoundedByItsLimit()
    {
        for (int i = 1; i <= 30; i++)
        {
            client.run("XADD", "s", i + "-1", "f", "v");
        }
        client.expect("31-1", "XADD", "s", "MAXLEN", "~", "20", "LIMIT", "5", "31-1", "f", "v");
        client.expect("26", "XLEN", "s");
        client.expect("6", "XTRIM", "s", "MAXLEN", "~", "20");
        client.expect("[[12-1 [f v]]]", "XRANGE", "s", "-", "+", "COUNT", "1");
        client.expect("2", "XTRIM", "s", "MINID", "~", "14", "LIMIT", "0");
        client.expect("18", "XLEN", "s");
    }

    /** A cut holds a stream as it was while entries come and go; a snapshot carries its entries, counters, expiry. */
    @Test
    void aCutAndASnapshotCarryAStreamWhole() throws Exception
    {
        client.run("XADD", "s", "1-1", "a", "1", "b", "2");
        client.run("XADD", "s", "2-1", "c", "x".repeat(70_000)); // longer than the cut's buffer
        client.run("XADD", "s", "3-1", "d", "4");
        client.run("XDEL", "s", "3-1"); // the last ID stays 3-1
        client.run("XADD", "empty", "MAXLEN", "0", "7-7", "e", "5"); // a stream with no entries stays
        client.run("PEXPIRE", "s", "5000");
        final StoreCut cut = client.store.cut();
        final byte[] then = client.store.snapshot();
        client.run("XADD", "s", "4-1", "f", "6");
        client.run("XTRIM", "s", "MAXLEN", "0");
        client.run("XSETID", "empty", "9-9", "ENTRIESADDED", "3");
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        cut.writeTo(written);
        final StoreClient loaded = new Client();
        final StoreLoader loader = loaded.store.loader();
        final byte[] state = written.toByteArray();
        for (int at = 0; at < state.length; at += 7)
        {
            loader.accept(state, at, Math.min(7, state.length - at));
        }
        loader.finish();
        assertArrayEquals(then, loaded.store.snapshot(), "the cut is the store before the later writes");
        loaded.expect("[[1-1 [a 1 b 2]] [2-1 [c " + "x".repeat(70_000) + "]]]", "XRANGE", "s", "-", "+");
        loaded.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "s",
            "3-1", "d", "4");
        loaded.expect("3-2", "XADD", "s", "3-*", "d", "4");
        loaded.expect("5000", "PTTL", "s");
        loaded.expect("stream", "TYPE", "empty");
        loaded.expect("7-8", "XADD", "empty", "7-*", "e", "5");
        assertEquals(client.store.bytes() > 0, loaded.store.bytes() > 0);
        final StoreClient again = new Client();
        final StoreLoader all = again.store.loader();
        final byte[] now = client.store.snapshot();
        all.accept(now, 0, now.length);
        all.finish();
        assertArrayEquals(now, again.store.snapshot());
        assertEquals(client.store.bytes(), again.store.bytes(), "a loaded store estimates its size alike");
        again.expect("9-10", "XADD", "empty", "9-*", "e", "5");
    }

    /** A state whose stream entry holds a field of a negative length is refused as corrupt, naming it. */
    @Test
    void aCorruptStreamEntryIsRefused()
    {
        client.run("XADD", "s", "1-1", "a", "1");
        final byte[] state = client.store.snapshot();
        final java.nio.ByteBuffer entry = java.nio.ByteBuffer.allocate(20).putLong(1).putLong(1).putInt(2);
        final int at = indexOf(state, entry.array());
        assertTrue(at > 0, "the entry's ID and count are in the state");
        java.nio.ByteBuffer.wrap(state).putInt(at + 20, -5); // the field "a"'s length
        final StoreLoader loader = new KvStore().loader();
        final IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalStateException.class, () -> loader.accept(state, 0, state.length));
        assertTrue(refused.getMessage().contains("a corrupt key-value state: a stream entry's field of -5 bytes"),
            refused.getMessage());
    }

    private static int indexOf(final byte[] in, final byte[] part)
    {
        for (int i = 0; i + part.length <= in.length; i++)
        {
            if (Arrays.equals(in, i, i + part.length, part, 0, part.length))
            {
                return i;
            }
        }
        return -1;
    }

    /** TYPE, SCAN's TYPE, COPY, RENAME and DUMP take streams ({@link StreamDumpTest}); SORT is WRONGTYPE. */
    @Test
    void keyCommandsTakeStreams()
    {
        client.run("XADD", "s", "1-1", "a", "1");
        client.expect("stream", "TYPE", "s");
        client.expect("[0 [s]]", "SCAN", "0", "TYPE", "stream");
        client.expect("1", "COPY", "s", "c");
        client.expect("2-1", "XADD", "c", "2-1", "b", "2");
        client.expect("1", "XLEN", "s");
        client.expect("OK", "RENAME", "c", "r");
        client.expect("2", "XLEN", "r");
        client.expect("OK", "RESTORE", "d", "0", ((Reply.Bulk)client.run("DUMP", "r")).bytes());
        client.expect("[[1-1 [a 1]] [2-1 [b 2]]]", "XRANGE", "d", "-", "+");
        client.expect(Keyspace.WRONG_TYPE, "SORT", "r");
        final long before = client.store.bytes();
        client.run("XADD", "r", "3-1", "f", "v".repeat(1000));
        assertTrue(client.store.bytes() >= before + 1000, "an entry counts in the store's size");
        client.run("XDEL", "r", "3-1");
        assertEquals(before, client.store.bytes(), "a deleted entry no more");
    }

    /**
     * A script calls the stream commands from KvWire 22 on (a log's older batch replays them as unknown commands);
     * XREAD's pairs reach it as RESP2 arrays; BLOCK is Redis's error there, after the errors of the options before it
     * (their words as redis-server 7.0.15 answered them).
     */
    @Test
    void scriptsCallStreamsFromTheirVersion()
    {
        client.run("XADD", "s", "1-1", "a", "1");
        client.expect("[[s [[1-1 [a 1]]]]]", "EVAL", "return redis.call('XREAD', 'STREAMS', 's', '0')", "0");
        assertTrue(text(client.run("EVAL", "return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', 's', '$')", "0"))
            .startsWith("ERR XREAD command is not allowed with BLOCK option from scripts"));
        // Redis reads the options in order: an error before BLOCK comes first; the command named as the script did
        for (final String[] call : new String[][] {
            {"'xread', 'BLOCK', 'x', 'COUNT', 'x'", "ERR xread command is not allowed with BLOCK option from scripts"},
            {"'XREAD', 'COUNT', '-1', 'BLOCK', '0'", "ERR XREAD command is not allowed with BLOCK option"},
            {"'XREAD', 'COUNT', 'x', 'BLOCK', '0'", "ERR value is not an integer or out of range"},
            {"'XREAD', 'NOACK', 'BLOCK', '0'", "ERR The NOACK option is only supported by XREADGROUP."},
            {"'xread', 'GROUP', 'g', 'c', 'BLOCK', '0'", "ERR The GROUP option is only supported by XREADGROUP."},
            {"'XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'COUNT', '01', 'BLOCK', '0'",
                "ERR value is not an integer or out of range"}})
        {
            final String script = "return redis.call(" + call[0] + ", 'STREAMS', 's', '0')";
            assertTrue(text(client.run("EVAL", script, "0")).startsWith(call[1]), call[0]);
        }
        client.store.versions().writing(1, (byte)(StreamReads.SCRIPT_ORDER_SINCE - 1)); // a log's older batch
        assertTrue(text(client.run("EVAL", "return redis.call('xread', 'COUNT', 'x', 'BLOCK', '0', 'STREAMS', 's', " +
            "'0')", "0")).startsWith("ERR XREAD command is not allowed with BLOCK option from scripts"));
        client.store.versions().written();
        final KvStore older = new KvStore();
        older.versions().writing(1, (byte)(StreamCommands.SINCE - 1));
        assertTrue(text(older.apply(StoreClient.args("EVAL", "return redis.call('XLEN', 's')", "0"), 1))
            .startsWith("ERR Unknown Redis command called from script"));
    }

    /** Adds entries 1-1, 2-1, ... of stream {@code s} ({@code a 1}, {@code b 2}, ...), each answered with its ID. */
    static void addEntries(final StoreClient client, final int count)
    {
        for (int n = 1; n <= count; n++)
        {
            final String id = n + "-1";
            client.expect(id, "XADD", "s", id, String.valueOf((char)('a' + n - 1)), String.valueOf(n));
        }
    }

    /** Replies as text: arrays (XREAD's pairs too, as RESP2 writes them) in brackets, nil, errors and values. */
    static String text(final Reply r)
    {
        return switch (r)
        {
            case Reply.Array a when a.items() == null -> "nil";
            case Reply.Array a -> a.items().stream().map(StreamsTest::text).collect(Collectors.joining(" ", "[", "]"));
            case Reply.Pairs p -> pairs(p.keysAndValues());
            case Reply.Map m -> m.keysAndValues().stream().map(StreamsTest::text).collect(Collectors.joining(" ", "[",
                "]"));
            default -> StoreClient.text(r);
        };
    }

    private static String pairs(final List<Reply> keysAndValues)
    {
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < keysAndValues.size(); i += 2)
        {
            out.append(i == 0 ? "[" : " [").append(text(keysAndValues.get(i))).append(' ')
                .append(text(keysAndValues.get(i + 1))).append(']');
        }
        return out.append(']').toString();
    }

    /** A {@link StoreClient} whose expectations read arrays in brackets. */
    static final class Client extends StoreClient
    {
        @Override
        void expect(final String expected, final Object... words)
        {
            assertEquals(expected, StreamsTest.text(run(words)), Arrays.stream(words).map(Object::toString)
                .collect(Collectors.joining(" ")));
        }
    }
}

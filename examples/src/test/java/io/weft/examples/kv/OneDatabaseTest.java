package io.weft.examples.kv;

import static io.weft.examples.kv.StoreClient.args;
import static io.weft.examples.kv.StoreClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * SELECT, MOVE and SWAPDB against what redis-server 7.0.15 started with {@code --databases 1} answered to the same
 * lines (asked with redis-cli on 2026-12-04): the order of its checks shows in which error wins.
 */
class OneDatabaseTest
{
    private static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";
    private static final String NOT_AN_INT = "ERR value is out of range, value must between -2147483648 and 2147483647";
    private static final String OUT_OF_RANGE = "ERR DB index is out of range";

    @Test
    void selectTakesDatabaseZeroOnly()
    {
        final Map<String, String> redis = Map.of("0", "OK", "1", OUT_OF_RANGE, "-1", OUT_OF_RANGE,
            "abc", NOT_AN_INTEGER, "00", NOT_AN_INTEGER, "-0", NOT_AN_INTEGER, "", NOT_AN_INTEGER,
            "9999999999", NOT_AN_INT, "99999999999999999999", NOT_AN_INTEGER);
        redis.forEach((index, expected) -> assertEquals(expected, text(OneDatabase.select(bytes(index))), index));
    }

    @Test
    void moveNeverMovesAndChecksItsIndexFirst()
    {
        final Map<String, String> redis = Map.of("0", "ERR source and destination objects are the same",
            "1", OUT_OF_RANGE, "x", NOT_AN_INTEGER, "9999999999", NOT_AN_INT);
        redis.forEach((db, expected) -> assertEquals(expected, text(OneDatabase.move(bytes(db))), db));
    }

    @Test
    void swapdbOfDatabaseZeroWithItselfIsOk()
    {
        final Map<String, String> redis = Map.of("0 0", "OK", "0 1", OUT_OF_RANGE, "-1 0", OUT_OF_RANGE,
            "x 0", "ERR invalid first DB index", "0 x", "ERR invalid second DB index",
            "1 x", "ERR invalid second DB index", "9999999999 0", "ERR invalid first DB index",
            "0 9999999999", "ERR invalid second DB index");
        redis.forEach((line, expected) ->
        {
            final String[] indexes = line.split(" ");
            assertEquals(expected, text(OneDatabase.swapdb(bytes(indexes[0]), bytes(indexes[1]))), line);
        });
    }

    /** Queued in a transaction, each answers at EXEC as Redis's did, in its place among the others. */
    @Test
    void aTransactionQueuesThemAndExecAnswersEach()
    {
        final Transaction t = new Transaction(1_000, List.of());
        for (final String line : List.of("SELECT 0", "SET a 1", "MOVE a 1", "MOVE a 0", "SWAPDB 0 0", "SWAPDB 0 1",
            "SELECT x", "SELECT 1"))
        {
            t.queue(args(line.split(" ")));
        }
        final StoreClient client = new StoreClient();
        assertEquals(String.join(" ", "OK", "OK", OUT_OF_RANGE, "ERR source and destination objects are the same",
            "OK", OUT_OF_RANGE, NOT_AN_INTEGER, OUT_OF_RANGE), StoreClient.text(client.store.apply(t.exec(), 0)));
        client.expect("1", "GET", "a");
    }

    /**
     * A script calls them as Redis's did, a read-only script not MOVE nor SWAPDB (Redis's writes); a script of a log
     * written before KvWire 16 calls them as unknown commands, as its build did.
     */
    @Test
    void aScriptCallsThemAsRedisAndAnOlderLogsScriptDoesNot()
    {
        final StoreClient client = new StoreClient();
        client.expect("OK", "EVAL", "return redis.call('select', '0')", "0");
        client.expect("OK", "EVAL", "return redis.call('swapdb', '0', '0')", "0");
        client.expect("OK", "EVAL_RO", "return redis.call('select', '0')", "0");
        client.expect(NOT_AN_INTEGER, "EVAL", "return redis.pcall('select', 'x')", "0");
        for (final String call : List.of("'select', '1'", "'move', 'a', '1'"))
        {
            assertTrue(StoreClient.text(client.run("EVAL", "return redis.call(" + call + ")", "0"))
                .startsWith(OUT_OF_RANGE), call);
        }
        for (final String call : List.of("'move', 'a', '1'", "'swapdb', '0', '0'"))
        {
            assertTrue(StoreClient.text(client.run("EVAL_RO", "return redis.call(" + call + ")", "0"))
                .startsWith("ERR Write commands are not allowed from read-only scripts."), call);
        }
        client.store.versions().writing(1, (byte)15);
        assertTrue(StoreClient.text(client.run("EVAL", "return redis.call('select', '0')", "0"))
            .startsWith("ERR Unknown Redis command called from script"));
        client.store.versions().written();
    }

    private static String text(final Reply reply)
    {
        return switch (reply)
        {
            case Reply.Simple s -> s.text();
            case Reply.Error e -> e.text();
            default -> reply.toString();
        };
    }
}

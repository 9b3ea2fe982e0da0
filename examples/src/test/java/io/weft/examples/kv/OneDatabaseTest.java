package io.weft.examples.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
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

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
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

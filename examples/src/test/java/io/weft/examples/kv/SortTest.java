package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SORT and SORT_RO with Redis's replies: every reply here but the set orders and the version gate was asked of
 * redis-server 7.0.15 too, which answers them alike.
 */
@Timeout(10)
class SortTest
{
    private static final String NOT_NUMBERS = "ERR One or more scores can't be converted into double";

    private final StoreClient client = new StoreClient();

    /** Lists, sets and sorted sets by number, by bytes, by other keys' strings and hash fields, with GET. */
    @Test
    void sortsByNumberBytesAndPatterns()
    {
        client.run("RPUSH", "l", "c", "a", "b");
        client.run("SADD", "s", "3", "1", "2");
        client.run("ZADD", "z", "3", "x", "1", "y", "2", "w");
        client.run("MSET", "w_a", "3", "w_b", "1", "w_c", "2");
        client.run("HSET", "o_a", "f", "30", "g", "x");
        client.run("HSET", "o_b", "f", "10");
        client.run("HSET", "o_c", "f", "20", "g", "y");
        client.expect("a b c", "SORT", "l", "ALPHA");
        client.expect("b c a", "SORT", "l", "BY", "w_*");
        client.expect("a x c y b nil", "SORT", "l", "BY", "w_*", "DESC", "GET", "#", "GET", "o_*->g");
        client.expect("20 30", "SORT", "l", "BY", "o_*->f", "LIMIT", "1", "5", "GET", "o_*->f");
        client.expect("a", "SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "1"); // the list's order, from its end
        client.expect("1 2 3", "SORT", "s");
        client.expect("3 2", "SORT", "s", "DESC", "LIMIT", "0", "2");
        client.expect("x w y", "SORT", "z", "BY", "nosort", "DESC");
        client.expect("w x y", "SORT", "z", "ALPHA");
        client.expect("a b c", "SORT_RO", "l", "ALPHA");
        client.expect(NOT_NUMBERS, "SORT", "l");
        // numbers as C's strtod reads them: white space before, hexadecimal, an exponent, the empty string as 0
        client.run("RPUSH", "n", "0x10", "  4", "1e1", "", "-inf", "07");
        client.expect("-inf    4 07 1e1 0x10", "SORT", "n"); // -inf, the empty string, "  4", ...
        client.run("RPUSH", "bad", "1", "4 ");
        client.expect(NOT_NUMBERS, "SORT", "bad");
        client.expect("1 4 ", "SORT", "bad", "BY", "nosort"); // nothing sorted: nothing read as a number
    }

    /** STORE replaces its destination with a list (an empty result deletes it); SORT_RO takes no STORE. */
    @Test
    void storeReplacesTheDestination()
    {
        client.run("RPUSH", "l", "c", "a", "b");
        client.run("MSET", "w_a", "3", "w_b", "1", "w_c", "2");
        client.run("HSET", "o_a", "g", "x");
        client.run("HSET", "o_c", "g", "y");
        client.run("SET", "d", "a string", "EX", "100");
        client.expect("3", "SORT", "l", "STORE", "d", "BY", "w_*", "GET", "o_*->g");
        client.expect(" y x", "LRANGE", "d", "0", "-1"); // what GET found nothing for: the empty string
        client.expect("-1", "TTL", "d");
        client.expect("0", "SORT", "nosuch", "STORE", "d");
        client.expect("0", "EXISTS", "d");
        client.expect("ERR syntax error", "SORT_RO", "l", "ALPHA", "STORE", "d");
        client.expect("3", "SORT", "l", "ALPHA", "STORE", "l"); // its own key: sorted in place
        client.expect("a b c", "LRANGE", "l", "0", "-1");
    }

    /** Options and types refused as Redis refuses them; a script's SORT, and a log's script from before SORT. */
    @Test
    void refusalsAndScripts()
    {
        client.run("RPUSH", "l", "c", "a", "b");
        client.run("HSET", "h", "f", "v");
        client.expect("ERR syntax error", "SORT", "l", "LIMIT", "1");
        client.expect("ERR value is not an integer or out of range", "SORT", "l", "LIMIT", "x", "1");
        client.expect("ERR syntax error", "SORT", "l", "BOGUS");
        client.expect(Keyspace.WRONG_TYPE, "SORT", "h");
        client.expect("ERR wrong number of arguments for 'sort' command", "SORT");
        client.expect("", "SORT", "l", "ALPHA", "LIMIT", "3", "1");
        client.expect("b c", "SORT", "l", "ALPHA", "LIMIT", "1", "9223372036854775807");
        client.expect("c b a", "EVAL", "return redis.call('SORT', KEYS[1], 'ALPHA', 'DESC')", "1", "l");
        client.store.versions().writing(1, (byte)11); // a log's script of the build before SORT: unknown
        assertTrue(StoreClient.text(client.run("EVAL", "return redis.call('SORT', KEYS[1], 'ALPHA', 'STORE', " +
            "KEYS[1])", "1", "l")).startsWith("ERR Unknown Redis command called from script"));
        client.store.versions().written();
        client.expect("c a b", "LRANGE", "l", "0", "-1");
    }

    @Test
    void numbersAsStrtodReadsThem()
    {
        assertEquals(16, Sort.number("0x10".getBytes()));
        assertEquals(0.5, Sort.number("\t.5".getBytes()));
        assertEquals(0, Sort.number(new byte[0]));
        assertTrue(Double.isNaN(Sort.number(" ".getBytes())));
        assertTrue(Double.isNaN(Sort.number("nan".getBytes())));
        assertTrue(Double.isNaN(Sort.number("1e400".getBytes())));
        assertTrue(Double.isNaN(Sort.number("1e".getBytes())));
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * LCS and SUBSTR with Redis's replies (an array's items, nested ones too, joined by spaces here): every case but the
 * table's limit was asked of redis-server 7.0.15 too, in this order, which answers them alike.
 */
@Timeout(30)
class LcsTest
{
    private final StoreClient client = new StoreClient();

    @Test
    void theLongestCommonSubsequenceItsLengthAndItsRanges()
    {
        client.run("SET", "key1", "ohmytext");
        client.run("SET", "key2", "mynewtext");
        client.expect("mytext", "LCS", "key1", "key2");
        client.expect("6", "LCS", "key1", "key2", "LEN");
        client.expect("matches 4 7 5 8 2 3 0 1 len 6", "LCS", "key1", "key2", "IDX"); // ranges last first
        client.expect("matches 4 7 5 8 4 len 6", "LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN");
        client.expect("", "LCS", "key1", "nope"); // a missing key is empty
        client.expect("myte", "SUBSTR", "key1", "2", "-3");
    }

    @Test
    void badOptionsAndOtherTypesAreRefused()
    {
        client.run("SET", "key1", "ohmytext");
        client.run("RPUSH", "l", "x");
        client.expect("ERR If you want both the length and indexes, please just use IDX.", "LCS", "key1", "key1", "LEN",
            "IDX");
        client.expect("ERR syntax error", "LCS", "key1", "key1", "FOO");
        client.expect("ERR value is not an integer or out of range", "LCS", "key1", "key1", "MINMATCHLEN", "x");
        client.expect("ERR The specified keys must contain string values", "LCS", "key1", "l");
        client.expect("ERR The specified keys must contain string values", "LCS", "l", "key1", "BAD"); // the keys first
        client.expect("ERR value is not an integer or out of range", "SUBSTR", "key1", "x", "1");
        client.expect("ERR wrong number of arguments for 'substr' command", "SUBSTR", "key1", "1");
    }

    @Test
    void aTablePastItsLimitIsRefusedBeforeItIsMade()
    {
        final String side = "a".repeat(4_500); // 4,501 x 4,501 x 4 bytes: past 64 MiB
        client.run("SET", "x", side);
        client.run("SET", "y", side);
        client.expect("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len", "LCS", "x", "y");
        client.run("SET", "y", side.substring(0, 3_000));
        client.expect("3000", "LCS", "x", "y", "LEN");
    }
}

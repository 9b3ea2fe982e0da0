package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PFADD, PFCOUNT and PFMERGE with Redis's replies and counts: every reply here was asked of redis-server 7.0.15 too,
 * which answers them alike (the counts of 10,000 and 100,000 elements included).
 */
@Timeout(30)
class HyperLogLogsTest
{
    private static final String NOT_A_SKETCH = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    private static final String CORRUPTED = "INVALIDOBJ Corrupted HLL object detected";

    private final StoreClient client = new StoreClient();
    private final KvStore store = client.store;

    @Test
    void sketchesAddCountAndMergeAsRedisDoes()
    {
        client.expect("1", "PFADD", "h"); // made, with no element
        client.expect("0", "PFADD", "h");
        client.expect("1", "PFADD", "h", "a", "b", "c");
        client.expect("0", "PFADD", "h", "a");
        client.expect("3", "PFCOUNT", "h");
        client.expect("0", "PFCOUNT", "nope");
        client.expect("1", "PFADD", "h2", "c", "d", "e");
        client.expect("5", "PFCOUNT", "h", "h2");
        client.expect("OK", "PFMERGE", "m", "h", "h2");
        client.expect("5", "PFCOUNT", "m");
        client.expect("OK", "PFMERGE", "e");
        client.expect("0", "PFCOUNT", "e");
        client.expect("1", "EXISTS", "e");
        client.expect("string", "TYPE", "m");
        client.expect("1", "PFADD", "t", "a");
        client.expect("1", "EXPIRE", "t", "100");
        client.expect("1", "PFADD", "t", "zz");
        client.expect("100", "TTL", "t"); // a sketch keeps its key's expiry
    }

    @Test
    void largeCountsAreRedisEstimatesAndAGrownSketchIsDense()
    {
        client.expect("1", adding("big", IntStream.range(0, 10_000).mapToObj(Integer::toString)));
        client.expect("9987", "PFCOUNT", "big");
        assertEquals(HllSketch.DENSE_SIZE, ((Reply.Bulk)client.run("GET", "big")).bytes().length);
        for (int i = 0; i < 100_000; i += 10_000)
        {
            client.run(adding("users", IntStream.range(i, i + 10_000).mapToObj(n -> "user:" + n)));
        }
        client.expect("99471", "PFCOUNT", "users");
    }

    @Test
    void aValueThatIsNotASketchIsRefusedAndKept()
    {
        client.run("RPUSH", "l", "x");
        client.run("SET", "x", "foo");
        client.expect(Keyspace.WRONG_TYPE, "PFADD", "l", "a");
        client.expect(NOT_A_SKETCH, "PFCOUNT", "x");
        client.expect(NOT_A_SKETCH, "PFMERGE", "m", "x");
        client.expect(NOT_A_SKETCH, "PFADD", "x", "a");
        client.expect("ERR wrong number of arguments for 'pfadd' command", "PFADD");
        client.expect(Keyspace.WRONG_TYPE, "PFCOUNT", "nope", "l");
        client.run("SET", "d", hex("48594c4c00000000000000000000000000")); // dense, but not 12,304 bytes long
        client.expect(NOT_A_SKETCH, "PFCOUNT", "d");
        assertEquals("foo", new String(((Reply.Bulk)client.run("GET", "x")).bytes(), StandardCharsets.US_ASCII));
    }

    @Test
    void aSketchRedisWroteIsReadAndItsCurrentCachedCountAnswered()
    {
        // Redis's bytes for a, b and c after a PFCOUNT: sparse, the count 3 cached and current
        client.run("SET", "r", hex("48594c4c01000000030000000000000060f38050b1844bfb80425a"));
        client.expect("3", "PFCOUNT", "r");
        client.expect("1", "PFADD", "r", "d");
        client.expect("4", "PFCOUNT", "r");
        // a run of one register, not 16,384: broken, but a current cached 0 answers for it alone, as in Redis
        client.run("SET", "bad", hex("48594c4c01000000000000000000000000"));
        client.expect("0", "PFCOUNT", "bad");
        client.expect(CORRUPTED, "PFCOUNT", "bad", "r");
        client.expect(CORRUPTED, "PFMERGE", "m", "bad");
        store.versions().writing(1, (byte)10); // a log's script of the build before them: unknown commands
        assertTrue(StoreClient.text(client.run("EVAL", "return redis.call('PFADD', 'k', 'a')", "0")).startsWith(
            "ERR Unknown Redis command called from script"));
        store.versions().written();
        client.expect("0", "EXISTS", "k");
    }

    private static Object[] adding(final String key, final java.util.stream.Stream<String> elements)
    {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of("PFADD", key), elements).toArray();
    }

    private static byte[] hex(final String hex)
    {
        return HexFormat.of().parseHex(hex);
    }
}

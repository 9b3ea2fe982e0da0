package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
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

    private final KvStore store = new KvStore();

    private Reply run(final Object... words)
    {
        final List<byte[]> args = new ArrayList<>();
        for (final Object w : words)
        {
            args.add(w instanceof byte[] b ? b : w.toString().getBytes(StandardCharsets.UTF_8));
        }
        return store.apply(args, 1_000_000);
    }

    private static String text(final Reply r)
    {
        return switch (r)
        {
            case Reply.Int i -> Long.toString(i.value());
            case Reply.Error e -> e.text();
            case Reply.Simple s -> s.text();
            default -> r.toString();
        };
    }

    private void expect(final String expected, final Object... words)
    {
        assertEquals(expected, text(run(words)), List.of(words).toString());
    }

    @Test
    void sketchesAddCountAndMergeAsRedisDoes()
    {
        expect("1", "PFADD", "h"); // made, with no element
        expect("0", "PFADD", "h");
        expect("1", "PFADD", "h", "a", "b", "c");
        expect("0", "PFADD", "h", "a");
        expect("3", "PFCOUNT", "h");
        expect("0", "PFCOUNT", "nope");
        expect("1", "PFADD", "h2", "c", "d", "e");
        expect("5", "PFCOUNT", "h", "h2");
        expect("OK", "PFMERGE", "m", "h", "h2");
        expect("5", "PFCOUNT", "m");
        expect("OK", "PFMERGE", "e");
        expect("0", "PFCOUNT", "e");
        expect("1", "EXISTS", "e");
        expect("string", "TYPE", "m");
        expect("1", "PFADD", "t", "a");
        expect("1", "EXPIRE", "t", "100");
        expect("1", "PFADD", "t", "zz");
        expect("100", "TTL", "t"); // a sketch keeps its key's expiry
    }

    @Test
    void largeCountsAreRedisEstimatesAndAGrownSketchIsDense()
    {
        expect("1", adding("big", IntStream.range(0, 10_000).mapToObj(Integer::toString)));
        expect("9987", "PFCOUNT", "big");
        assertEquals(HllSketch.DENSE_SIZE, ((Reply.Bulk)run("GET", "big")).bytes().length);
        for (int i = 0; i < 100_000; i += 10_000)
        {
            run(adding("users", IntStream.range(i, i + 10_000).mapToObj(n -> "user:" + n)));
        }
        expect("99471", "PFCOUNT", "users");
    }

    @Test
    void aValueThatIsNotASketchIsRefusedAndKept()
    {
        run("RPUSH", "l", "x");
        run("SET", "x", "foo");
        expect(Keyspace.WRONG_TYPE, "PFADD", "l", "a");
        expect(NOT_A_SKETCH, "PFCOUNT", "x");
        expect(NOT_A_SKETCH, "PFMERGE", "m", "x");
        expect(NOT_A_SKETCH, "PFADD", "x", "a");
        expect("ERR wrong number of arguments for 'pfadd' command", "PFADD");
        expect(Keyspace.WRONG_TYPE, "PFCOUNT", "nope", "l");
        run("SET", "d", hex("48594c4c00000000000000000000000000")); // dense, but not 12,304 bytes long
        expect(NOT_A_SKETCH, "PFCOUNT", "d");
        assertEquals("foo", new String(((Reply.Bulk)run("GET", "x")).bytes(), StandardCharsets.US_ASCII));
    }

    @Test
    void aSketchRedisWroteIsReadAndItsCurrentCachedCountAnswered()
    {
        // Redis's bytes for a, b and c after a PFCOUNT: sparse, the count 3 cached and current
        run("SET", "r", hex("48594c4c01000000030000000000000060f38050b1844bfb80425a"));
        expect("3", "PFCOUNT", "r");
        expect("1", "PFADD", "r", "d");
        expect("4", "PFCOUNT", "r");
        // a run of one register, not 16,384: broken, but a current cached 0 answers for it alone, as in Redis
        run("SET", "bad", hex("48594c4c01000000000000000000000000"));
        expect("0", "PFCOUNT", "bad");
        expect(CORRUPTED, "PFCOUNT", "bad", "r");
        expect(CORRUPTED, "PFMERGE", "m", "bad");
        store.versions().writing(1, (byte)10); // a log's script of the build before them: unknown commands
        assertTrue(text(run("EVAL", "return redis.call('PFADD', 'k', 'a')", "0")).startsWith(
            "ERR Unknown Redis command called from script"));
        store.versions().written();
        expect("0", "EXISTS", "k");
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

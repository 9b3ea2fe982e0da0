package io.weft.examples.kv;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(10)
class RespWriterTest
{
    /** A set of members (SMEMBERS, SINTER, SPOP with a count) is RESP3's set type, an array in RESP2, as in Redis 7. */
    @Test
    void aSetIsARespThreeSetAndARespTwoArray()
    {
        final Reply set = new Reply.Set(List.of(Reply.Bulk.of("a"), Reply.Bulk.of("bc")));
        assertEquals("~2\r\n$1\r\na\r\n$2\r\nbc\r\n", written(set, true));
        assertEquals("*2\r\n$1\r\na\r\n$2\r\nbc\r\n", written(set, false));
        assertEquals("*1\r\n~0\r\n", written(new Reply.Array(List.of(new Reply.Set(List.of()))), true), "in EXEC's");
    }

    /**
     * A score is RESP3's double and a bulk string in RESP2; members with scores (WITHSCORES) are pairs in RESP3 and
     * one flat array in RESP2, as Redis 7 writes them.
     */
    @Test
    void scoresAreRespThreeDoublesAndPairs()
    {
        assertEquals(",2.5\r\n", written(new Reply.Double(2.5), true));
        assertEquals("$3\r\n2.5\r\n", written(new Reply.Double(2.5), false));
        assertEquals(",-inf\r\n", written(new Reply.Double(Double.NEGATIVE_INFINITY), true));
        final Reply scored = new Reply.Scored(List.of(Reply.Bulk.of("a"), new Reply.Double(1), Reply.Bulk.of("b"),
            new Reply.Double(1e20)));
        assertEquals("*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,1e+20\r\n", written(scored, true));
        assertEquals("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$5\r\n1e+20\r\n", written(scored, false));
    }

    /**
     * INFO's, CLIENT INFO's and CLIENT LIST's text is RESP3's verbatim string of format txt, its length counting
     * {@code txt:}, and a bulk string in RESP2, as redis-server 7.0.15 sends them.
     */
    @Test
    void textIsVerbatimInRespThree()
    {
        final Reply text = new Reply.Text("id=3 é\n");
        assertEquals("=12\r\ntxt:id=3 é\n\r\n", written(text, true, StandardCharsets.UTF_8));
        assertEquals("$8\r\nid=3 é\n\r\n", written(text, false, StandardCharsets.UTF_8));
    }

    private static String written(final Reply reply, final boolean resp3)
    {
        return written(reply, resp3, StandardCharsets.US_ASCII);
    }

    private static String written(final Reply reply, final boolean resp3, final java.nio.charset.Charset charset)
    {
        final ByteBuf out = Unpooled.buffer();
        RespWriter.write(out, reply, resp3);
        return out.toString(charset);
    }
}

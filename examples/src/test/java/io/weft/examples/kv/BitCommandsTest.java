package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP with Redis's replies: the cases were asked of redis-server 7.0.15 too,
 * which answers them alike, but for wrong arguments with a missing key: 7.x answers 0 there, 8.0 (redis/redis#11734)
 * and the store check the arguments first.
 */
@Timeout(30)
class BitCommandsTest
{
    private final KvStore store = new KvStore();
    private final long now = 1_000_000;

    private Reply run(final Object... words)
    {
        final List<byte[]> args = new ArrayList<>();
        for (final Object w : words)
        {
            args.add(w instanceof byte[] b ? b : w.toString().getBytes(StandardCharsets.UTF_8));
        }
        return store.apply(args, now);
    }

    private static String text(final Reply r)
    {
        return switch (r)
        {
            case Reply.Int i -> Long.toString(i.value());
            case Reply.Error e -> e.text();
            case Reply.Simple t -> t.text();
            case Reply.Bulk b -> b.bytes() == null ? "nil" : new String(b.bytes(), StandardCharsets.ISO_8859_1);
            default -> r.toString();
        };
    }

    private void expect(final String expected, final Object... words)
    {
        assertEquals(expected, text(run(words)), String.join(" ", List.of(words).stream().map(Object::toString)
            .toList()));
    }

    private static byte[] bytes(final int... values)
    {
        final byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++)
        {
            b[i] = (byte)values[i];
        }
        return b;
    }

    @Test
    void setBitGrowsTheValueWithZerosAndRepliesTheOldBit()
    {
        expect("0", "SETBIT", "k", "7", "1");
        expect("1", "SETBIT", "k", "7", "1");
        assertArrayEquals(bytes(1), ((Reply.Bulk)run("GET", "k")).bytes());
        expect("0", "SETBIT", "k", "17", "1");
        assertArrayEquals(bytes(1, 0, 0x40), ((Reply.Bulk)run("GET", "k")).bytes(), "bit 17: byte 2's second");
        expect("1", "SETBIT", "k", "7", "0");
        assertArrayEquals(bytes(0, 0, 0x40), ((Reply.Bulk)run("GET", "k")).bytes());
        expect("1", "GETBIT", "k", "17");
        expect("0", "GETBIT", "k", "16");
        expect("0", "GETBIT", "k", "100000"); // beyond the value
        expect("0", "GETBIT", "nokey", "3");
        run("SET", "z", "");
        expect("0", "SETBIT", "z", "0", "0");
        expect("1", "STRLEN", "z"); // clearing a bit past the end grows the value too, as in Redis
        final long last = (ValueEdits.MAX_LENGTH << 3) - 1;
        expect("0", "SETBIT", "big", Long.toString(last), "1");
        expect(Long.toString(ValueEdits.MAX_LENGTH), "STRLEN", "big");
        expect("ERR bit offset is not an integer or out of range", "SETBIT", "big", Long.toString(last + 1), "1");
    }

    @Test
    void setBitKeepsTheExpiry()
    {
        run("SET", "t", "a", "EX", "100");
        expect("0", "SETBIT", "t", "6", "1");
        expect("c", "GET", "t");
        expect("100", "TTL", "t");
    }

    @Test
    void badOffsetsBitsAndTypesAreRedisErrors()
    {
        final String offset = "ERR bit offset is not an integer or out of range";
        final String bit = "ERR bit is not an integer or out of range";
        expect(offset, "SETBIT", "k", "-1", "1");
        expect(offset, "SETBIT", "k", "4294967296", "1");
        expect(offset, "SETBIT", "k", "abc", "1");
        expect(offset, "SETBIT", "k", "abc", "x"); // the offset is read first
        expect(bit, "SETBIT", "k", "0", "x");
        expect(bit, "SETBIT", "k", "1", "2");
        expect(bit, "SETBIT", "k", "1", "-1");
        expect(offset, "GETBIT", "k", "-1");
        expect("0", "EXISTS", "k"); // a refused SETBIT makes no key
        run("LPUSH", "l", "a");
        final String wrongType = Keyspace.WRONG_TYPE;
        expect(wrongType, "SETBIT", "l", "0", "1");
        expect(wrongType, "GETBIT", "l", "0");
        expect(wrongType, "BITCOUNT", "l");
        expect(wrongType, "BITPOS", "l", "1");
        expect(wrongType, "BITOP", "NOT", "d", "l");
        expect("ERR wrong number of arguments for 'setbit' command", "SETBIT", "k", "1");
        expect("ERR wrong number of arguments for 'bitop' command", "BITOP", "AND", "d");
    }

    @Test
    void bitCountCountsByteAndBitRanges()
    {
        run("SET", "s", "foobar");
        expect("26", "BITCOUNT", "s");
        expect("4", "BITCOUNT", "s", "0", "0");
        expect("6", "BITCOUNT", "s", "1", "1");
        expect("1", "BITCOUNT", "s", "1", "1", "bit");
        expect("17", "BITCOUNT", "s", "5", "30", "BIT");
        expect("26", "BITCOUNT", "s", "0", "-1", "byte");
        expect("4", "BITCOUNT", "s", "-100", "-50"); // both clamped to byte 0, as Redis clamps them
        expect("0", "BITCOUNT", "s", "-1", "-2");
        expect("0", "BITCOUNT", "s", "-50", "-100");
        expect("0", "BITCOUNT", "s", "6", "100");
        expect("0", "BITCOUNT", "nokey");
        expect("0", "BITCOUNT", "nokey", "0", "-1");
        expect("ERR syntax error", "BITCOUNT", "s", "0");
        expect("ERR syntax error", "BITCOUNT", "s", "0", "-1", "xx");
        expect("ERR syntax error", "BITCOUNT", "s", "0", "-1", "bit", "extra");
        expect("ERR value is not an integer or out of range", "BITCOUNT", "s", "a", "b");
        expect("ERR syntax error", "BITCOUNT", "nokey", "0", "-1", "xx"); // checked before the key, as in Redis 8.0
    }

    @Test
    void bitPosFindsTheFirstBitOfAValueInARange()
    {
        run("SET", "s", "foobar");
        expect("1", "BITPOS", "s", "1");
        expect("0", "BITPOS", "s", "0");
        expect("2", "BITPOS", "s", "1", "2", "-1", "bit");
        expect("8", "BITPOS", "s", "0", "1");
        expect("-1", "BITPOS", "s", "1", "100");
        expect("1", "BITPOS", "s", "1", "0", "1", "bit");
        expect("7", "BITPOS", "s", "0", "7", "15", "bit");
        expect("1", "BITPOS", "s", "1", "-50", "-100"); // both clamped to byte 0
        run("SET", "ff", bytes(0xff, 0xff));
        expect("16", "BITPOS", "ff", "0"); // without an end, the zeros past the value
        expect("16", "BITPOS", "ff", "0", "1");
        expect("ERR value is not an integer or out of range", "BITPOS", "ff", "0", "3", "BIT"); // the end, then the unit
        expect("-1", "BITPOS", "ff", "0", "0", "-1"); // with an end, none in the range
        expect("-1", "BITPOS", "ff", "0", "3", "15", "bit");
        run("SETBIT", "x", "15", "1");
        expect("-1", "BITPOS", "x", "1", "1", "1", "bit");
        expect("15", "BITPOS", "x", "1", "9", "15", "bit");
        expect("0", "BITPOS", "nokey", "0");
        expect("-1", "BITPOS", "nokey", "1");
        run("SET", "e", "");
        expect("-1", "BITPOS", "e", "0"); // an empty value has no bit at all
        expect("ERR The bit argument must be 1 or 0.", "BITPOS", "s", "2");
        expect("ERR value is not an integer or out of range", "BITPOS", "s", "x");
        expect("ERR syntax error", "BITPOS", "s", "1", "0", "0", "0");
        expect("ERR syntax error", "BITPOS", "s", "1", "0", "0", "bit", "1");
        expect("ERR syntax error", "BITPOS", "nokey", "1", "0", "0", "xx"); // checked before the key, as in 8.0
    }

    @Test
    void bitOpCombinesPaddedSourcesIntoTheDestination()
    {
        run("SET", "s", "foobar");
        run("SETBIT", "k", "7", "1");
        expect("6", "BITOP", "xor", "d", "s", "k");
        expect("goobar", "GET", "d");
        run("SET", "a", bytes(0xf0, 0x0f));
        run("SET", "b", bytes(0x3c));
        expect("2", "BITOP", "AND", "d", "a", "b");
        assertArrayEquals(bytes(0x30, 0), ((Reply.Bulk)run("GET", "d")).bytes(), "b padded with a zero byte");
        expect("2", "BITOP", "OR", "d", "a", "b", "nokey");
        assertArrayEquals(bytes(0xfc, 0x0f), ((Reply.Bulk)run("GET", "d")).bytes());
        expect("2", "BITOP", "NOT", "d", "a");
        assertArrayEquals(bytes(0x0f, 0xf0), ((Reply.Bulk)run("GET", "d")).bytes());
        run("EXPIRE", "d", "100");
        run("LPUSH", "list", "x");
        expect("1", "BITOP", "OR", "list", "b");
        expect("string", "TYPE", "list"); // whatever the destination held
        expect("2", "BITOP", "AND", "d", "a", "a");
        expect("-1", "TTL", "d"); // the result is stored without expiry
        expect("0", "BITOP", "OR", "d", "nokey", "other");
        expect("0", "EXISTS", "d"); // an empty result removes the destination
        expect("ERR syntax error", "BITOP", "foo", "d", "s");
        expect("ERR BITOP NOT must be called with a single source key.", "BITOP", "not", "d", "s", "s");
    }

    @Test
    void aScriptInALogsBatchOfAnOlderVersionCallsThemAsUnknownCommands()
    {
        final String script = "return redis.call('SETBIT', 'k', 0, 1)";
        store.versions().writing(1, (byte)9); // replaying a log written by the build before these commands
        final String old = text(run("EVAL", script, "0"));
        store.versions().written();
        assertTrue(old.startsWith("ERR Unknown Redis command called from script"), old);
        expect("0", "EXISTS", "k");
        store.versions().writing(2, KvWire.VERSION);
        expect("0", "EVAL", script, "0");
        store.versions().written();
        expect("1", "GETBIT", "k", "0");
        store.versions().writing(3, (byte)8);
        assertTrue(text(run("EVAL", "return redis.call('LMPOP', 1, 'l', 'LEFT')", "0")).startsWith(
            "ERR Unknown Redis command called from script"), "LMPOP came with version 9");
        store.versions().written();
        final String field = "return redis.call('BITFIELD', 'k', 'INCRBY', 'u8', 0, 1)[1]";
        store.versions().writing(4, (byte)10);
        assertTrue(text(run("EVAL", field, "0")).startsWith("ERR Unknown Redis command called from script"),
            "BITFIELD came with version 11");
        store.versions().written();
        store.versions().writing(5, KvWire.VERSION);
        expect("129", "EVAL", field, "0"); // bit 0 set above: 128 + 1
        store.versions().written();
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP with Redis's replies: the cases were asked of redis-server 7.0.15 too,
 * which answers them alike, but for wrong arguments with a missing key: 7.x answers 0 there, 8.0 (redis/redis#11734)
 * and the store check the arguments first.
 */
@Timeout(30)
class BitCommandsTest
{
    private final StoreClient client = new StoreClient();
    private final KvStore store = client.store;

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
        client.expect("0", "SETBIT", "k", "7", "1");
        client.expect("1", "SETBIT", "k", "7", "1");
        assertArrayEquals(bytes(1), ((Reply.Bulk)client.run("GET", "k")).bytes());
        client.expect("0", "SETBIT", "k", "17", "1");
        assertArrayEquals(bytes(1, 0, 0x40), ((Reply.Bulk)client.run("GET", "k")).bytes(), "bit 17: byte 2's second");
        client.expect("1", "SETBIT", "k", "7", "0");
        assertArrayEquals(bytes(0, 0, 0x40), ((Reply.Bulk)client.run("GET", "k")).bytes());
        client.expect("1", "GETBIT", "k", "17");
        client.expect("0", "GETBIT", "k", "16");
        client.expect("0", "GETBIT", "k", "100000"); // beyond the value
        client.expect("0", "GETBIT", "nokey", "3");
        client.run("SET", "z", "");
        client.expect("0", "SETBIT", "z", "0", "0");
        client.expect("1", "STRLEN", "z"); // clearing a bit past the end grows the value too, as in Redis
        final long last = (ValueEdits.MAX_LENGTH << 3) - 1;
        client.expect("0", "SETBIT", "big", Long.toString(last), "1");
        client.expect(Long.toString(ValueEdits.MAX_LENGTH), "STRLEN", "big");
        client.expect("ERR bit offset is not an integer or out of range", "SETBIT", "big", Long.toString(last + 1),
            "1");
    }

    @Test
    void setBitKeepsTheExpiry()
    {
        client.run("SET", "t", "a", "EX", "100");
        client.expect("0", "SETBIT", "t", "6", "1");
        client.expect("c", "GET", "t");
        client.expect("100", "TTL", "t");
    }

    @Test
    void badOffsetsBitsAndTypesAreRedisErrors()
    {
        final String offset = "ERR bit offset is not an integer or out of range";
        final String bit = "ERR bit is not an integer or out of range";
        client.expect(offset, "SETBIT", "k", "-1", "1");
        client.expect(offset, "SETBIT", "k", "4294967296", "1");
        client.expect(offset, "SETBIT", "k", "abc", "1");
        client.expect(offset, "SETBIT", "k", "abc", "x"); // the offset is read first
        client.expect(bit, "SETBIT", "k", "0", "x");
        client.expect(bit, "SETBIT", "k", "1", "2");
        client.expect(bit, "SETBIT", "k", "1", "-1");
        client.expect(offset, "GETBIT", "k", "-1");
        client.expect("0", "EXISTS", "k"); // a refused SETBIT makes no key
        client.run("LPUSH", "l", "a");
        final String wrongType = Keyspace.WRONG_TYPE;
        client.expect(wrongType, "SETBIT", "l", "0", "1");
        client.expect(wrongType, "GETBIT", "l", "0");
        client.expect(wrongType, "BITCOUNT", "l");
        client.expect(wrongType, "BITPOS", "l", "1");
        client.expect(wrongType, "BITOP", "NOT", "d", "l");
        client.expect("ERR wrong number of arguments for 'setbit' command", "SETBIT", "k", "1");
        client.expect("ERR wrong number of arguments for 'bitop' command", "BITOP", "AND", "d");
    }

    @Test
    void bitCountCountsByteAndBitRanges()
    {
        client.run("SET", "s", "foobar");
        client.expect("26", "BITCOUNT", "s");
        client.expect("4", "BITCOUNT", "s", "0", "0");
        client.expect("6", "BITCOUNT", "s", "1", "1");
        client.expect("1", "BITCOUNT", "s", "1", "1", "bit");
        client.expect("17", "BITCOUNT", "s", "5", "30", "BIT");
        client.expect("26", "BITCOUNT", "s", "0", "-1", "byte");
        client.expect("4", "BITCOUNT", "s", "-100", "-50"); // both clamped to byte 0, as Redis clamps them
        client.expect("0", "BITCOUNT", "s", "-1", "-2");
        client.expect("0", "BITCOUNT", "s", "-50", "-100");
        client.expect("0", "BITCOUNT", "s", "6", "100");
        client.expect("0", "BITCOUNT", "nokey");
        client.expect("0", "BITCOUNT", "nokey", "0", "-1");
        client.expect("ERR syntax error", "BITCOUNT", "s", "0");
        client.expect("ERR syntax error", "BITCOUNT", "s", "0", "-1", "xx");
        client.expect("ERR syntax error", "BITCOUNT", "s", "0", "-1", "bit", "extra");
        client.expect("ERR value is not an integer or out of range", "BITCOUNT", "s", "a", "b");
        // checked before the key, as in Redis 8.0
        client.expect("ERR syntax error", "BITCOUNT", "nokey", "0", "-1", "xx");
    }

    @Test
    void bitPosFindsTheFirstBitOfAValueInARange()
    {
        client.run("SET", "s", "foobar");
        client.expect("1", "BITPOS", "s", "1");
        client.expect("0", "BITPOS", "s", "0");
        client.expect("2", "BITPOS", "s", "1", "2", "-1", "bit");
        client.expect("8", "BITPOS", "s", "0", "1");
        client.expect("-1", "BITPOS", "s", "1", "100");
        client.expect("1", "BITPOS", "s", "1", "0", "1", "bit");
        client.expect("7", "BITPOS", "s", "0", "7", "15", "bit");
        client.expect("1", "BITPOS", "s", "1", "-50", "-100"); // both clamped to byte 0
        client.run("SET", "ff", bytes(0xff, 0xff));
        client.expect("16", "BITPOS", "ff", "0"); // without an end, the zeros past the value
        client.expect("16", "BITPOS", "ff", "0", "1");
        // the end, then the unit
        client.expect("ERR value is not an integer or out of range", "BITPOS", "ff", "0", "3", "BIT");
        client.expect("-1", "BITPOS", "ff", "0", "0", "-1"); // with an end, none in the range
        client.expect("-1", "BITPOS", "ff", "0", "3", "15", "bit");
        client.run("SETBIT", "x", "15", "1");
        client.expect("-1", "BITPOS", "x", "1", "1", "1", "bit");
        client.expect("15", "BITPOS", "x", "1", "9", "15", "bit");
        client.expect("0", "BITPOS", "nokey", "0");
        client.expect("-1", "BITPOS", "nokey", "1");
        client.run("SET", "e", "");
        client.expect("-1", "BITPOS", "e", "0"); // an empty value has no bit at all
        client.expect("ERR The bit argument must be 1 or 0.", "BITPOS", "s", "2");
        client.expect("ERR value is not an integer or out of range", "BITPOS", "s", "x");
        client.expect("ERR syntax error", "BITPOS", "s", "1", "0", "0", "0");
        client.expect("ERR syntax error", "BITPOS", "s", "1", "0", "0", "bit", "1");
        client.expect("ERR syntax error", "BITPOS", "nokey", "1", "0", "0", "xx"); // checked before the key, as in 8.0
    }

    @Test
    void bitOpCombinesPaddedSourcesIntoTheDestination()
    {
        client.run("SET", "s", "foobar");
        client.run("SETBIT", "k", "7", "1");
        client.expect("6", "BITOP", "xor", "d", "s", "k");
        client.expect("goobar", "GET", "d");
        client.run("SET", "a", bytes(0xf0, 0x0f));
        client.run("SET", "b", bytes(0x3c));
        client.expect("2", "BITOP", "AND", "d", "a", "b");
        assertArrayEquals(bytes(0x30, 0), ((Reply.Bulk)client.run("GET", "d")).bytes(), "b padded with a zero byte");
        client.expect("2", "BITOP", "OR", "d", "a", "b", "nokey");
        assertArrayEquals(bytes(0xfc, 0x0f), ((Reply.Bulk)client.run("GET", "d")).bytes());
        client.expect("2", "BITOP", "NOT", "d", "a");
        assertArrayEquals(bytes(0x0f, 0xf0), ((Reply.Bulk)client.run("GET", "d")).bytes());
        client.run("EXPIRE", "d", "100");
        client.run("LPUSH", "list", "x");
        client.expect("1", "BITOP", "OR", "list", "b");
        client.expect("string", "TYPE", "list"); // whatever the destination held
        client.expect("2", "BITOP", "AND", "d", "a", "a");
        client.expect("-1", "TTL", "d"); // the result is stored without expiry
        client.expect("0", "BITOP", "OR", "d", "nokey", "other");
        client.expect("0", "EXISTS", "d"); // an empty result removes the destination
        client.expect("ERR syntax error", "BITOP", "foo", "d", "s");
        client.expect("ERR BITOP NOT must be called with a single source key.", "BITOP", "not", "d", "s", "s");
    }

    @Test
    void aScriptInALogsBatchOfAnOlderVersionCallsThemAsUnknownCommands()
    {
        final String script = "return redis.call('SETBIT', 'k', 0, 1)";
        store.versions().writing(1, (byte)9); // replaying a log written by the build before these commands
        final String old = StoreClient.text(client.run("EVAL", script, "0"));
        store.versions().written();
        assertTrue(old.startsWith("ERR Unknown Redis command called from script"), old);
        client.expect("0", "EXISTS", "k");
        store.versions().writing(2, KvWire.VERSION);
        client.expect("0", "EVAL", script, "0");
        store.versions().written();
        client.expect("1", "GETBIT", "k", "0");
        store.versions().writing(3, (byte)8);
        assertTrue(StoreClient.text(client.run("EVAL", "return redis.call('LMPOP', 1, 'l', 'LEFT')", "0")).startsWith(
            "ERR Unknown Redis command called from script"), "LMPOP came with version 9");
        store.versions().written();
        final String field = "return redis.call('BITFIELD', 'k', 'INCRBY', 'u8', 0, 1)[1]";
        store.versions().writing(4, (byte)10);
        assertTrue(StoreClient.text(client.run("EVAL", field, "0")).startsWith(
            "ERR Unknown Redis command called from script"), "BITFIELD came with version 11");
        store.versions().written();
        store.versions().writing(5, KvWire.VERSION);
        client.expect("129", "EVAL", field, "0"); // bit 0 set above: 128 + 1
        store.versions().written();
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DUMP and RESTORE with Redis's payloads: the hexadecimal ones here are redis-server 7.0.15's DUMP replies, and
 * Redis 6's ziplists and refused payloads built by hand, which redis-server 7.0.15 restores to the same contents and
 * refuses with the same errors (but for a payload of Redis 7.4's RDB version, which it refuses and this store reads).
 * This store's own payloads restore in redis-server 7.0.15 alike (checked by hand, not here).
 */
@Timeout(10)
class DumpPayloadTest
{
    /** Redis's payloads of each kind of blob (LZF, quicklist, intset, listpack, ziplist, skiplist), to change. */
    private static final String[] TO_CHANGE = {"00c30a3c02616261e02e010161620a00bb16d3ebae6fc574",
        "120102c324404612460000000500816102dfff02f2a0860104a878e01e000629f400f2052a01203f0109ff0a008f373e7cbe796013",
        "0b28080000000400000090eefeffffffffff01000000000000000300000000000000001a7118020000000a0037625b35dcbc1261",
        "101d1d00000006008266310382763103816e02dff9028362696704cbb802ff0a00c1b49d86e9cb42fc",
        "1122220000000800816202dffe0281610283312e3504816402640181630283696e6604ff0a00b7450085b9d7ae79",
        "0d22220000001d0000000600000266310402763104016e03fef9030362696705c0b80bff090011c741f89ec07081",
        "0503026d31000000000000e03f026d300000000000000000016e000000000000f0ff0a00d4c7791b07a38c35"};

    private final StoreClient client = new StoreClient();

    /** Each type's value, DUMPed, deleted and RESTOREd, is the same value; a TTL is relative, or absolute. */
    @Test
    void everyTypeComesBackAsItWas()
    {
        client.run("SET", "s", "a string");
        client.run("RPUSH", "l", "a", "-1", "x".repeat(100), "");
        client.run("SADD", "set", "b", "a", "17");
        client.run("HSET", "h", "f1", "v1", "f2", "");
        client.run("ZADD", "z", "1.5", "a", "-inf", "b", "3", "c");
        for (final String key : new String[] {"s", "l", "set", "h", "z"})
        {
            final byte[] payload = bytes(client.run("DUMP", key));
            final String type = StoreClient.text(client.run("TYPE", key));
            final String before = contents(type, key);
            client.expect("BUSYKEY Target key name already exists.", "RESTORE", key, "0", payload);
            client.expect("1", "DEL", key);
            client.expect("OK", "RESTORE", key, "0", payload);
            assertEquals(before, contents(type, key), key);
            client.expect("-1", "PTTL", key);
            client.expect("OK", "RESTORE", key, "5000", payload, "REPLACE");
            client.expect("5000", "PTTL", key);
            assertArrayEquals(payload, bytes(client.run("DUMP", key)), key);
        }
        client.expect("OK", "RESTORE", "s", String.valueOf(StoreClient.NOW + 2500), bytes(client.run("DUMP", "l")),
            "REPLACE", "ABSTTL");
        client.expect("2500 list", "EVAL", "return {redis.call('PTTL', KEYS[1]), redis.call('TYPE', KEYS[1]).ok}",
            "1", "s");
        client.expect("OK", "RESTORE", "s", "1", bytes(client.run("DUMP", "l")), "REPLACE", "ABSTTL");
        client.expect("0", "EXISTS", "s"); // already expired: the old value is gone, nothing added
        client.expect("nil", "DUMP", "nokey");
        // a string of digits comes back the same: the payload keeps its bytes
        client.run("SET", "n", "007");
        final byte[] digits = bytes(client.run("DUMP", "n"));
        client.expect("OK", "RESTORE", "n", "0", digits, "REPLACE");
        client.expect("007", "GET", "n");
    }

    /** redis-server 7.0.15's DUMP replies: integers, LZF, listpacks, a quicklist, an intset, a skiplist. */
    @Test
    void redisPayloadsRestore()
    {
        restores("-12345", "GET", "00c1c7cf0a0067eda236b4db26d0");
        restores("7", "GET", "00c0070a0074cd48a283abce92");
        restores("ab".repeat(30), "GET", "00c30a3c02616261e02e010161620a00bb16d3ebae6fc574");
        restores("a -1 100000 " + "x".repeat(40) + " 5000000000", "LRANGE",
            "120102c324404612460000000500816102dfff02f2a0860104a878e01e000629f400f2052a01203f0109ff0a008f373e7cbe7960" +
            "13");
        restores("-70000 1 3 9000000000", "SMEMBERS", "0b28080000000400000090eefeffffffffff0100000000000000030000000" +
            "0000000001a7118020000000a0037625b35dcbc1261");
        restores("1 a b", "SMEMBERS", "020301620161c0010a0017a89f340731c3de");
        restores("big 3000 f1 v1 n -7", "HGETALL",
            "101d1d00000006008266310382763103816e02dff9028362696704cbb802ff0a00c1b49d86e9cb42fc");
        restores("b -2 a 1.5 d 100 c inf", "ZRANGE",
            "1122220000000800816202dffe0281610283312e3504816402640181630283696e6604ff0a00b7450085b9d7ae79");
        // the forms of larger values (here with Redis's listpack limits set to 0): a skiplist, a hash table
        restores("n -inf m0 0 m1 0.5", "ZRANGE",
            "0503026d31000000000000e03f026d300000000000000000016e000000000000f0ff0a00d4c7791b07a38c35");
        restores("g w f v", "HGETALL", "040201670177016601760a004a88c4610eed3c4e");
        restores("1 2", "SMEMBERS", "0202c002c0010a000b850052aea91fa1");
        restores("bar", "GET", "000362617278797a0a00a0e82801c548468e"); // bytes after the value: unread, as Redis
        restores("bar", "GET", "00036261720c002dc87da0144c635e"); // Redis 7.4's version: read here, not by 7.0
    }

    /** Redis 6's ziplists (version 9), which Redis 7 still restores: a hash, a sorted set, a quicklist. */
    @Test
    void redisSixZiplistsRestore()
    {
        restores("big 3000 f1 v1 n -7", "HGETALL",
            "0d22220000001d0000000600000266310402763104016e03fef9030362696705c0b80bff090011c741f89ec07081");
        restores("b -2 a 1.5 c 100000", "ZRANGE",
            "0c21210000001b000000060000016203fefe0301610303312e3505016303f0a08601ff09003db2424f129d789e");
        restores("a 5 " + "y".repeat(70) + " -100000 1099511627776", "LRANGE", "0e024059590000000f00000003000001" +
            "6103f6024046" + "79".repeat(70) + "ff1a1a0000000f000000020000f06079fe05e00000000000010000ff09004e6b50f5" +
            "a6001389");
    }

    /** Errors in Redis's order and words; a refused RESTORE changes nothing. */
    @Test
    void refusalsAsRedisRefuses()
    {
        client.run("SET", "taken", "v");
        final byte[] payload = bytes(client.run("DUMP", "taken"));
        client.expect("ERR syntax error", "RESTORE", "k", "0", payload, "NOPE");
        client.expect("ERR syntax error", "RESTORE", "k", "0", payload, "IDLETIME");
        client.expect("ERR syntax error", "RESTORE", "k", "0", payload, "IDLETIME", "1", "FREQ", "1");
        client.expect("ERR Invalid IDLETIME value, must be >= 0", "RESTORE", "k", "0", payload, "IDLETIME", "-1");
        client.expect("ERR Invalid FREQ value, must be >= 0 and <= 255", "RESTORE", "k", "0", payload, "FREQ", "256");
        client.expect("ERR value is not an integer or out of range", "RESTORE", "k", "0", payload, "FREQ", "x");
        client.expect("BUSYKEY Target key name already exists.", "RESTORE", "taken", "x", "junk");
        client.expect("ERR value is not an integer or out of range", "RESTORE", "k", "x", payload);
        client.expect("ERR Invalid TTL value, must be >= 0", "RESTORE", "k", "-1", payload);
        client.expect("ERR DUMP payload version or checksum are wrong", "RESTORE", "k", "0", "short");
        final byte[] flipped = payload.clone();
        flipped[1] ^= 1;
        client.expect("ERR DUMP payload version or checksum are wrong", "RESTORE", "k", "0", flipped);
        // version 13, newer than Redis 7.4's, sealed correctly
        client.expect("ERR DUMP payload version or checksum are wrong", "RESTORE", "k", "0",
            hex("00036261720d004417c0d3e9d38ad7"));
        for (final String bad : new String[] {"02000a003ace39009b8939e8", "0202016101610a0057be762fc2d6523a",
            "0f000a006e521f0d81d680cb", "05010161000000000000f87f0a00f0f929a906545927", "020501610a001ae272106a4409b9"})
        {
            // an empty set, a duplicate member, a stream cut short, a NaN score, a set cut short
            client.expect("ERR Bad data format", "RESTORE", "k", "0", hex(bad));
        }
        client.expect("0", "EXISTS", "k");
        client.expect("v", "GET", "taken");
        client.expect("ERR wrong number of arguments for 'restore' command", "RESTORE", "k", "0");
    }

    /**
     * Bytes from a stranger: Redis's payloads with bytes changed and sealed again (so the value is read) are restored
     * or refused as "Bad data format", never a failure of the command or an allocation a count asked for.
     */
    @Test
    void changedPayloadsAreRestoredOrRefused()
    {
        final Random random = new Random(42);
        int restored = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] p = changed(random, TO_CHANGE[i % TO_CHANGE.length]);
            final String reply = StoreClient.text(client.run("RESTORE", "m", "0", p, "REPLACE"));
            assertTrue(reply.equals("OK") || reply.equals("ERR Bad data format"), i + ": " + reply);
            restored += reply.equals("OK") ? 1 : 0;
        }
        assertTrue(restored > 1000 && restored < 19_000, restored + " restored"); // both ways taken
    }

    /** A script of a log written before DUMP and RESTORE calls them as unknown commands, as its build did. */
    @Test
    void aScriptOfAnOlderLogDoesNotRestore()
    {
        client.run("SET", "s", "v");
        client.expect("v", "EVAL", "redis.call('RESTORE', 'c', 0, redis.call('DUMP', KEYS[1])); " +
            "return redis.call('GET', 'c')", "1", "s");
        client.store.versions().writing(1, (byte)14);
        assertTrue(StoreClient.text(client.run("EVAL", "return redis.call('DUMP', KEYS[1])", "1", "s"))
            .startsWith("ERR Unknown Redis command called from script"));
        client.store.versions().written();
    }

    private void restores(final String expected, final String read, final String payload)
    {
        client.run("DEL", "r");
        client.expect("OK", "RESTORE", "r", "0", hex(payload));
        client.expect(expected, switch (read)
        {
            case "ZRANGE" -> new Object[] {read, "r", "0", "-1", "WITHSCORES"};
            case "LRANGE" -> new Object[] {read, "r", "0", "-1"};
            case "SMEMBERS" -> new Object[] {"SORT", "r", "ALPHA"}; // in order
            default -> new Object[] {read, "r"};
        });
    }

    private String contents(final String type, final String key)
    {
        return StoreClient.text(switch (type)
        {
            case "string" -> client.run("GET", key);
            case "list" -> client.run("LRANGE", key, "0", "-1");
            case "set" -> client.run("SORT", key, "ALPHA");
            case "hash" -> client.run("HGETALL", key);
            default -> client.run("ZRANGE", key, "0", "-1", "WITHSCORES");
        });
    }

    /** Payload {@code hex} with 1 to 3 of its bytes before the seal changed, and sealed again: its value is read. */
    static byte[] changed(final Random random, final String hex)
    {
        final byte[] p = hex(hex);
        for (int changes = 1 + random.nextInt(3); changes > 0; changes--)
        {
            p[random.nextInt(p.length - 10)] = (byte)random.nextInt(256);
        }
        final long crc = Crc64.of(p, 0, p.length - 8);
        for (int b = 0; b < 8; b++)
        {
            p[p.length - 8 + b] = (byte)(crc >>> 8 * b);
        }
        return p;
    }

    static byte[] bytes(final Reply reply)
    {
        return ((Reply.Bulk)reply).bytes();
    }

    static byte[] hex(final String hex)
    {
        return HexFormat.of().parseHex(hex);
    }
}

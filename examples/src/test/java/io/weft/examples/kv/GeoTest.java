package io.weft.examples.kv;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GEO commands with Redis's replies: every reply here but the version gate and the RESP3 bytes was asked of
 * redis-server 7.0.15 too, which answers them alike (positions to the last of their 17 decimals, distances to the
 * fourth, the order of unsorted results: the order of the cells a search reads).
 */
@Timeout(10)
class GeoTest
{
    private final StoreClient client = new StoreClient();

    @BeforeEach
    void sicily()
    {
        client.expect("4", "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
            "Catania", "12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2");
    }

    /** Positions are their cells' centres; GEOHASH spells the standard geohash; GEODIST in each unit. */
    @Test
    void positionsHashesAndDistances()
    {
        client.expect("13.36138933897018433 38.11555639549629859 15.08726745843887329 37.50266842333162032 nil",
            "GEOPOS", "Sicily", "Palermo", "Catania", "nx");
        client.expect("sqc8b49rny0 sqdtr74hyu0 nil", "GEOHASH", "Sicily", "Palermo", "Catania", "nx");
        client.expect("166.2742", "GEODIST", "Sicily", "Palermo", "Catania", "km");
        client.expect("166274.1516", "GEODIST", "Sicily", "Palermo", "Catania");
        client.expect("1275023.2491", "GEODIST", "Sicily", "edge1", "edge2", "ft");
        client.expect("nil", "GEODIST", "Sicily", "Palermo", "nx");
        client.expect("nil", "GEODIST", "nokey", "a", "b");
        client.expect("1", "GEOADD", "Sicily", "180", "85.05112878", "corner"); // at the edges of the range
        client.expect("180 85.0511287799999991", "GEOPOS", "Sicily", "corner");
        client.expect("bp05b5048p0", "GEOHASH", "Sicily", "corner");
        client.expect("3479099956230698", "ZSCORE", "Sicily", "Palermo"); // a sorted set: the score is the cell
    }

    /** Circles and boxes around a position or a member, sorted or in the order found, with what was asked. */
    @Test
    void searches()
    {
        client.expect("Palermo Catania", "GEORADIUS", "Sicily", "15", "37", "200", "km");
        client.expect("Catania Palermo", "GEORADIUS", "Sicily", "15", "37", "200", "km", "ASC");
        client.expect("Palermo 190.4424 3479099956230698 13.36138933897018433 38.11555639549629859 Catania 56.4413 " +
            "3479447370796909 15.08726745843887329 37.50266842333162032", "GEORADIUS_RO", "Sicily", "15", "37", "200",
            "km", "WITHDIST", "WITHCOORD", "WITHHASH");
        // unsorted: cell by cell, as Redis reads them
        client.expect("Palermo edge1 Catania edge2", "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400",
            "400", "km");
        client.expect("edge1 279.7405 edge2 279.7403 Palermo 190.4424 Catania 56.4413", "GEOSEARCH", "Sicily",
            "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "DESC", "WITHDIST");
        client.expect("Palermo 3479099956230698 edge1 3479273021651468", "GEOSEARCH", "Sicily", "FROMMEMBER",
            "Palermo", "BYRADIUS", "500", "km", "COUNT", "2", "WITHHASH");
        client.expect("Palermo", "GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km", "COUNT",
            "1", "ANY");
        client.expect("Catania 0.0000", "GEORADIUSBYMEMBER", "Sicily", "Catania", "100", "mi", "WITHDIST");
        client.expect("Palermo 4454.7332 edge1 4506.4666 Catania 4449.6961 edge2 4659.1422", "GEOSEARCH", "Sicily",
            "FROMLONLAT", "0", "0", "BYRADIUS", "20000", "km", "WITHDIST");
        client.expect("", "GEOSEARCH", "Sicily", "BYRADIUS", "1", "km", "FROMLONLAT", "15", "37");
        client.expect("", "GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km");
    }

    /** STORE keeps scores, STOREDIST distances; nothing found, or no source, deletes the destination. */
    @Test
    void storesReplaceTheirDestination()
    {
        client.run("SET", "d", "a string");
        client.expect("2", "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d");
        client.expect("Palermo 3479099956230698 Catania 3479447370796909", "ZRANGE", "d", "0", "-1", "WITHSCORES");
        client.expect("2", "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km",
            "STOREDIST");
        client.expect("Catania Palermo", "ZRANGE", "d", "0", "-1");
        client.expect("190.4424", "EVAL", "return string.format('%.4f', redis.call('ZSCORE', KEYS[1], 'Palermo'))",
            "1", "d");
        client.expect("0", "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km");
        client.expect("0", "EXISTS", "d");
        client.run("SET", "d", "a string");
        client.expect("0", "GEORADIUSBYMEMBER", "nokey", "x", "1", "km", "STOREDIST", "d");
        client.expect("0", "EXISTS", "d");
    }

    /** Arguments refused as Redis refuses them, in its order, and nothing of a refused GEOADD added. */
    @Test
    void refusals()
    {
        client.expect("ERR invalid longitude,latitude pair 200.000000,10.000000", "GEOADD", "Sicily", "1", "2", "a",
            "200", "10", "b");
        client.expect("ERR invalid longitude,latitude pair inf,10.000000", "GEOADD", "Sicily", "inf", "10", "b");
        client.expect("ERR value is not a valid float", "GEOADD", "Sicily", " 1", "10", "b");
        client.expect("nil", "ZSCORE", "Sicily", "a");
        client.expect("1", "GEOADD", "Sicily", "0x10", "10", "hex"); // C's strtod reads hexadecimal
        client.expect("ERR syntax error", "GEOADD", "Sicily", "NX", "XX", "1", "2", "a");
        client.expect("ERR syntax error", "GEOADD", "Sicily", "1", "2", "a", "3");
        client.expect("ERR wrong number of arguments for 'geoadd' command", "GEOADD", "Sicily", "1", "2");
        client.expect("ERR value is not a valid float", "GEOADD", "Sicily", "GT", "1", "2");
        client.expect("1", "GEOADD", "Sicily", "CH", "1", "2", "Palermo"); // moved: changed
        client.expect("ERR unsupported unit provided. please use M, KM, FT, MI", "GEODIST", "Sicily", "a", "b", "yd");
        client.expect("ERR syntax error", "GEODIST", "Sicily", "a", "b", "km", "x");
        client.expect("ERR radius cannot be negative", "GEORADIUS", "Sicily", "15", "37", "-1", "km");
        client.expect("ERR need numeric radius", "GEORADIUS", "Sicily", "15", "37", "x", "km");
        client.expect("ERR COUNT must be > 0", "GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT", "0");
        client.expect("ERR the ANY argument requires COUNT argument", "GEORADIUS", "Sicily", "15", "37", "1", "km",
            "ANY");
        client.expect("ERR syntax error", "GEORADIUS_RO", "Sicily", "15", "37", "1", "km", "STORE", "d");
        client.expect("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
            "GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "d", "WITHDIST");
        client.expect("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
            "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "WITHHASH");
        client.expect("ERR could not decode requested zset member", "GEORADIUSBYMEMBER", "Sicily", "nx", "1", "km");
        client.expect("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geoSearch", "geoSearch",
            "Sicily", "BYBOX", "1", "1", "km", "ASC");
        client.expect("ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH", "GEOSEARCH", "Sicily",
            "FROMLONLAT", "15", "37", "ASC", "WITHDIST");
        client.expect("ERR syntax error", "GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMLONLAT", "1", "2",
            "BYRADIUS", "1", "km");
        client.expect("ERR height or width cannot be negative", "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37",
            "BYBOX", "-1", "1", "km");
        client.run("SET", "s", "x");
        client.expect(Keyspace.WRONG_TYPE, "GEOPOS", "s", "a");
        client.expect(Keyspace.WRONG_TYPE, "GEORADIUS", "s", "200", "37", "1", "km"); // the type before the position
        client.expect("ERR syntax error", "GEOSEARCH", "Sicily", "FROMLONLAT", "1", "2", "BYRADIUS", "1");
        client.expect("ERR wrong number of arguments for 'geosearch' command", "GEOSEARCH", "Sicily", "FROMLONLAT",
            "1", "2", "BYRADIUS");
    }

    /** Positions are RESP3 doubles in Redis's 17 decimals; a log's script from before GEO calls it unknown. */
    @Test
    void resp3AndScripts()
    {
        final Reply pos = client.run("GEOPOS", "Sicily", "Palermo");
        assertEquals("*1\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n", written(pos, true));
        assertEquals("*1\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n",
            written(pos, false));
        assertEquals("*1\r\n*-1\r\n", written(client.run("GEOPOS", "Sicily", "nx"), false));
        client.expect("13.36138933897018433", "EVAL", "return redis.call('GEOPOS', KEYS[1], 'Palermo')[1][1]", "1",
            "Sicily");
        client.store.versions().writing(1, (byte)12); // a log's script of the build before GEO: unknown
        assertTrue(StoreClient.text(client.run("EVAL", "return redis.call('GEOADD', KEYS[1], 1, 2, 'x')", "1",
            "Sicily")).startsWith("ERR Unknown Redis command called from script"));
        client.store.versions().written();
        client.expect("nil", "ZSCORE", "Sicily", "x");
    }

    private static String written(final Reply reply, final boolean resp3)
    {
        final io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.buffer();
        RespWriter.write(out, reply, resp3);
        return out.toString(StandardCharsets.ISO_8859_1);
    }
}

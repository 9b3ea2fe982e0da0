package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.math.BigDecimal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Numbers read as Redis reads them with C's strtod: hexadecimal too, the range checked for arguments, not for a score
 * range's bounds; INCRBYFLOAT's and HINCRBYFLOAT's summed as Redis's long double sums them (64 significant bits, which
 * shows past 2^64 and in decimals a long double cannot hold). Every reply here but an older batch's was also asked of
 * redis-server 7.0.15, which answers them alike.
 */
@Timeout(10)
class StrtodTest
{
    private final StoreClient client = new StoreClient();

    @Test
    void argumentsTakeHexadecimalWithinADoublesRange()
    {
        client.expect("1", "ZADD", "z", "0x10", "a");
        client.expect("18", "ZINCRBY", "z", "0x1p1", "a");
        client.expect("2", "ZADD", "z", "0X1.8P1", "c", "-0x.8", "d");
        client.expect("3", "ZSCORE", "z", "c");
        client.expect("-0.5", "ZSCORE", "z", "d");
        client.expect("1", "ZADD", "z", "0x10.8p0", "g");
        client.expect("16.5", "ZSCORE", "z", "g");
        for (final String bad : new String[] {"0x", "0x1p99999", "0x1p-99999", "1e-400", "0x1g", " 1", "0x1p0d"})
        {
            client.expect("ERR value is not a valid float", "ZADD", "z", bad, "e");
        }
        client.expect("1", "ZADD", "z", "0x0p-99999", "zero"); // all its digits 0: 0, not out of range
        client.run("SET", "f", "1.5");
        client.expect("17.5", "INCRBYFLOAT", "f", "0x10");
        // strtold's range: a long double holds what a double cannot
        client.expect("17.5", "INCRBYFLOAT", "f", "0X57p-1093");
        client.expect("ERR value is not a valid float", "INCRBYFLOAT", "f", "0x1p-99999");
        client.run("SET", "f", "1.5");
        client.expect("47947437592793237.5", "INCRBYFLOAT", "f", "0Xaa57f0c19Bd094"); // 56 bits, kept whole
        client.expect("3", "HINCRBYFLOAT", "h", "x", "0x1.8p1");
        client.expect("1", "GEOADD", "gz", "0x10", "0x1p3", "m");
        client.expect("16.00000172853469849 7.99999947522560007", "GEOPOS", "gz", "m");
        client.expect("ERR invalid longitude,latitude pair -0.000000,100.000000", "GEOADD", "gz", "-0", "100", "m");
    }

    @Test
    void scoreBoundsAreReadAfterWhiteSpaceAndOutOfRangeIsInfiniteOrZero()
    {
        client.run("ZADD", "z", "-1", "neg", "0", "zero", "1", "one", "1e300", "big");
        client.expect("neg zero one big", "ZRANGEBYSCORE", "z", "(-0Xd.26p99999", "+inf");
        client.expect("one big", "ZRANGEBYSCORE", "z", "(+2.4e-324", "+inf");
        client.expect("zero one big", "ZRANGEBYSCORE", "z", " 0", "1e400");
        client.expect("one big", "ZRANGEBYSCORE", "z", "(", "inf"); // nothing at all: 0
        client.expect("zero", "ZRANGEBYSCORE", "z", "", "0");
        client.expect("ERR min or max is not a float", "ZRANGEBYSCORE", "z", "0", "nan");
        client.expect("ERR min or max is not a float", "ZRANGEBYSCORE", "z", "0", "1 ");
    }

    /** A log's batch from before KvWire 14 applies its writes as its build did: no hexadecimal, bounds as scores. */
    @Test
    void anOlderLogsBatchRefusesHexadecimalAsItsBuildDid()
    {
        client.run("ZADD", "z", "1", "one");
        client.run("SET", "f", "0x10");
        client.store.versions().writing(1, (byte)13);
        client.expect("ERR value is not a valid float", "ZADD", "z", "0x10", "m");
        client.expect("ERR value is not a valid float", "ZINCRBY", "z", "0x1", "one");
        client.expect("ERR value is not a valid float", "INCRBYFLOAT", "f", "1");
        client.expect("ERR value is not a valid float", "HINCRBYFLOAT", "h", "x", "0x1");
        client.expect("ERR weight value is not a float", "ZUNIONSTORE", "u", "1", "z", "WEIGHTS", "0x2");
        client.expect("ERR min or max is not a float", "ZREMRANGEBYSCORE", "z", "(", "inf");
        client.expect("ERR min or max is not a float", "ZREMRANGEBYSCORE", "z", " 0", "inf");
        client.store.versions().written();
        client.expect("one 1", "ZRANGE", "z", "0", "-1", "WITHSCORES");
        client.store.versions().writing(2, KvWire.VERSION); // this build's batch reads the stored 0x10
        client.expect("17", "INCRBYFLOAT", "f", "1");
        client.expect("1", "ZREMRANGEBYSCORE", "z", "(", "inf");
        client.store.versions().written();
    }

    @Test
    void readChecksTheRangeOnlyWhenAsked()
    {
        assertEquals(Double.POSITIVE_INFINITY, Strtod.read("1e400", false));
        assertTrue(Double.isNaN(Strtod.read("1e400", true)));
        assertEquals(0, Strtod.read("1e-400", false));
        assertTrue(Double.isNaN(Strtod.read("nan", false)));
        assertEquals(-24, Strtod.read("-0x1.8p4", true));
        assertEquals(0, Strtod.afterSpace(new byte[0], true));
        assertTrue(Double.isNaN(Strtod.afterSpace(" ".getBytes(), true)));
    }

    @Test
    void sumsRoundToSixtyFourBits()
    {
        client.expect("1", "HSET", "h", "f", "1e20");
        client.expect("100000000000000000000", "HINCRBYFLOAT", "h", "f", "0.5");
        client.run("SET", "f", "1.5");
        client.expect("538087476230186893312", "INCRBYFLOAT", "f", "538087476230186893312");
        client.run("SET", "f", "100000000000000000000");
        client.expect("100000000000000000000", "INCRBYFLOAT", "f", "0.1");
        client.run("SET", "f", "1e19");
        client.expect("10000000000000000002", "INCRBYFLOAT", "f", "1.5");
        client.run("SET", "f", "12345678901234567.891");
        client.expect("12345678901234567.890625", "INCRBYFLOAT", "f", "0");
        client.run("SET", "f", "0.1");
        client.expect("0.3", "INCRBYFLOAT", "f", "0.2"); // what a long double errs by, 17 decimals do not show
        client.run("SET", "f", "1e-20");
        client.expect("0", "INCRBYFLOAT", "f", "1e-20");
    }

    /** A log's batch of KvWire 13 or older sums as its build did: to 40 digits. */
    @Test
    void anOlderLogsBatchSumsAsItsBuildDid()
    {
        client.run("SET", "f", "1.5");
        client.store.versions().writing(1, (byte)13);
        client.expect("538087476230186893313.5", "INCRBYFLOAT", "f", "538087476230186893312");
        client.store.versions().written();
    }

    @Test
    void roundsToTheNearestLongDouble()
    {
        assertEquals(new BigDecimal("0.1000000000000000000013552527156068805425093160010874271392822265625"),
            LongDouble.round(new BigDecimal("0.1")));
        assertEquals(new BigDecimal("-36893488147419103232"), LongDouble.round(new BigDecimal("-36893488147419103231")));
        assertEquals(new BigDecimal("18446744073709551615"), LongDouble.round(new BigDecimal("18446744073709551615")));
        assertEquals(new BigDecimal("18446744073709551614"), LongDouble.round(new BigDecimal("18446744073709551614.5")));
        assertEquals(new BigDecimal("9223372036854775807.5"), LongDouble.round(new BigDecimal("9223372036854775807.5")));
        assertEquals(BigDecimal.ZERO, LongDouble.round(BigDecimal.ZERO));
    }
}

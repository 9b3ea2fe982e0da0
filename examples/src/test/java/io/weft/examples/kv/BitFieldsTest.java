package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * BITFIELD and BITFIELD_RO with Redis's replies (an array's items joined by spaces here): every case of the first
 * five tests was asked of redis-server 7.0.15 too, in this order, which answers them alike.
 */
@Timeout(30)
class BitFieldsTest
{
    private static final String TYPE_ERROR =
        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    private static final String OFFSET_ERROR = "ERR bit offset is not an integer or out of range";

    private final StoreClient client = new StoreClient();

    @Test
    void fieldsOfAnyWidthAtAnyOffsetReadAsSignedOrUnsigned()
    {
        client.expect("0 255 -1 15 -1", "BITFIELD", "k", "SET", "u8", "0", "255", "GET", "u8", "0", "GET", "i8", "0",
            "GET", "u4", "4", "GET", "i4", "4");
        client.expect("0 254 -2 0 15", "BITFIELD", "k", "SET", "i8", "#1", "-2", "GET", "u8", "8", "GET", "i8", "#1",
            "SET", "u4", "#5", "15", "GET", "u8", "16");
        client.expect("-546457279004672 9223372036854775807 -1", "BITFIELD", "k", "SET", "i64", "0", "-1", "GET", "u63",
            "0", "GET", "i64", "0");
        client.expect("8", "STRLEN", "k");
        client.expect("255 -1", "BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i16", "4");
        client.expect("", "BITFIELD_RO", "k");
    }

    @Test
    void overflowsWrapSaturateOrFailAsRedisDecidesThem()
    {
        client.expect("1 0 127 127", "BITFIELD", "k", "INCRBY", "u8", "0", "1", "INCRBY", "u8", "0", "-1", "INCRBY",
            "i8", "8", "-129", "GET", "u16", "0");
        client.expect("255 -128 nil 255", "BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300", "INCRBY",
            "i8", "8", "-300", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1", "GET", "u8", "0");
        client.expect("-36028797018963968 -9223372036854775808 9223372036854775807", "BITFIELD", "k", "SET", "i64", "0",
            "-1", "INCRBY", "i64", "0", "-9223372036854775807", "INCRBY", "i64", "0", "-1");
        client.expect("9223372036854775806 9223372036854775805", "BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i64",
            "0", "-1", "OVERFLOW", "WRAP", "INCRBY", "i64", "0", "-1");
        // Redis's test wraps max - value: a SET of the lowest long saturates an i8 at its top, 127
        client.expect("127 127", "BITFIELD", "k", "OVERFLOW", "SAT", "SET", "i8", "0", "-9223372036854775808", "GET",
            "i8", "0");
        // an unsigned field reads a negative SET as a large number: above its top
        client.expect("7 7 7", "BITFIELD", "k", "SET", "u3", "5", "-1", "OVERFLOW", "SAT", "SET", "u3", "5", "-1",
            "GET", "u3", "5");
    }

    @Test
    void aMissingKeyReadsAsZerosAndAWriteGrowsItEvenIfItFails()
    {
        client.expect("0 0", "BITFIELD", "new", "GET", "u8", "0", "GET", "i64", "100");
        client.expect("0", "EXISTS", "new");
        client.expect("nil", "BITFIELD", "new", "OVERFLOW", "FAIL", "SET", "u8", "100", "256");
        client.expect("14", "STRLEN", "new");
        client.expect("", "BITFIELD", "new");
        client.run("SET", "ttl", "x", "EX", "100");
        client.expect("120", "BITFIELD", "ttl", "SET", "u8", "0", "1"); // "x"
        client.expect("100", "TTL", "ttl"); // a field written keeps the key's expiry, as SETBIT does
    }

    @Test
    void everyArgumentIsCheckedBeforeAnythingRuns()
    {
        client.run("SET", "k", "a");
        client.expect(TYPE_ERROR, "BITFIELD", "k", "GET", "u64", "0");
        client.expect(TYPE_ERROR, "BITFIELD", "k", "GET", "i65", "0");
        client.expect(TYPE_ERROR, "BITFIELD", "k", "GET", "I8", "0");
        client.expect(OFFSET_ERROR, "BITFIELD", "k", "GET", "i8", "-1");
        client.expect(OFFSET_ERROR, "BITFIELD", "k", "GET", "i8", "#-1");
        client.expect(OFFSET_ERROR, "BITFIELD", "k", "GET", "i8", "x");
        client.expect("ERR value is not an integer or out of range", "BITFIELD", "k", "SET", "i8", "0", "x");
        client.expect("ERR Invalid OVERFLOW type specified", "BITFIELD", "k", "OVERFLOW", "NO", "GET", "i8", "0");
        client.expect("ERR syntax error", "BITFIELD", "k", "GET", "i8");
        client.expect("ERR syntax error", "BITFIELD", "k", "FOO", "i8", "0");
        client.expect("ERR syntax error", "BITFIELD", "k", "GET", "i8", "0", "SET", "u8", "0");
        client.expect(TYPE_ERROR, "BITFIELD", "k", "GET", "u8", "0", "SET", "u8", "0", "1", "GET", "u64", "0");
        client.expect("a", "GET", "k"); // the SET before the bad type did not run
        client.expect("ERR BITFIELD_RO only supports the GET subcommand", "BITFIELD_RO", "k", "SET", "u8", "0", "1");
    }

    @Test
    void aKeyOfAnotherTypeIsRefusedAfterTheArguments()
    {
        client.run("RPUSH", "l", "x");
        client.expect(Keyspace.WRONG_TYPE, "BITFIELD", "l", "GET", "u8", "0");
        client.expect("ERR BITFIELD_RO only supports the GET subcommand", "BITFIELD_RO", "l", "SET", "u8", "0", "1");
        client.expect(TYPE_ERROR, "BITFIELD", "l", "GET", "u99", "0");
    }

    @Test
    void aFieldMustEndWithinTheLongestValueAnEditMakes()
    {
        final String lastByte = Long.toString((ValueEdits.MAX_LENGTH - 1) << 3);
        client.expect("0", "BITFIELD", "big", "SET", "u8", lastByte, "255");
        client.expect(Long.toString(ValueEdits.MAX_LENGTH), "STRLEN", "big");
        final String oneBitFurther = Long.toString(((ValueEdits.MAX_LENGTH - 1) << 3) + 1);
        client.expect(OFFSET_ERROR, "BITFIELD", "big", "SET", "u8", oneBitFurther, "1");
        client.expect(OFFSET_ERROR, "BITFIELD", "big", "GET", "u8", Long.toString(ValueEdits.MAX_LENGTH << 3));
        client.expect(OFFSET_ERROR, "BITFIELD", "big", "GET", "i64", "#" + Long.MAX_VALUE / 2);
    }
}

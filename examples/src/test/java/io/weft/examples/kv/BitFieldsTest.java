package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    private final KvStore store = new KvStore();

    private Reply run(final String... words)
    {
        final List<byte[]> args = new ArrayList<>();
        for (final String w : words)
        {
            args.add(w.getBytes(StandardCharsets.UTF_8));
        }
        return store.apply(args, 1_000_000);
    }

    private static String text(final Reply r)
    {
        return switch (r)
        {
            case Reply.Int i -> Long.toString(i.value());
            case Reply.Error e -> e.text();
            case Reply.Bulk b -> b.bytes() == null ? "nil" : new String(b.bytes(), StandardCharsets.ISO_8859_1);
            case Reply.Array a -> a.items().stream().map(BitFieldsTest::text).collect(Collectors.joining(" "));
            default -> r.toString();
        };
    }

    private void expect(final String expected, final String... words)
    {
        assertEquals(expected, text(run(words)), String.join(" ", words));
    }

    @Test
    void fieldsOfAnyWidthAtAnyOffsetReadAsSignedOrUnsigned()
    {
        expect("0 255 -1 15 -1", "BITFIELD", "k", "SET", "u8", "0", "255", "GET", "u8", "0", "GET", "i8", "0", "GET",
            "u4", "4", "GET", "i4", "4");
        expect("0 254 -2 0 15", "BITFIELD", "k", "SET", "i8", "#1", "-2", "GET", "u8", "8", "GET", "i8", "#1",
            "SET", "u4", "#5", "15", "GET", "u8", "16");
        expect("-546457279004672 9223372036854775807 -1", "BITFIELD", "k", "SET", "i64", "0", "-1", "GET", "u63",
            "0", "GET", "i64", "0");
        expect("8", "STRLEN", "k");
        expect("255 -1", "BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i16", "4");
        expect("", "BITFIELD_RO", "k");
    }

    @Test
    void overflowsWrapSaturateOrFailAsRedisDecidesThem()
    {
        expect("1 0 127 127", "BITFIELD", "k", "INCRBY", "u8", "0", "1", "INCRBY", "u8", "0", "-1", "INCRBY",
            "i8", "8", "-129", "GET", "u16", "0");
        expect("255 -128 nil 255", "BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300", "INCRBY", "i8",
            "8", "-300", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1", "GET", "u8", "0");
        expect("-36028797018963968 -9223372036854775808 9223372036854775807", "BITFIELD", "k", "SET", "i64", "0",
            "-1", "INCRBY", "i64", "0", "-9223372036854775807", "INCRBY", "i64", "0", "-1");
        expect("9223372036854775806 9223372036854775805", "BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i64", "0",
            "-1", "OVERFLOW", "WRAP", "INCRBY", "i64", "0", "-1");
        // Redis's test wraps max - value: a SET of the lowest long saturates an i8 at its top, 127
        expect("127 127", "BITFIELD", "k", "OVERFLOW", "SAT", "SET", "i8", "0", "-9223372036854775808", "GET", "i8",
            "0");
        // an unsigned field reads a negative SET as a large number: above its top
        expect("7 7 7", "BITFIELD", "k", "SET", "u3", "5", "-1", "OVERFLOW", "SAT", "SET", "u3", "5", "-1", "GET",
            "u3", "5");
    }

    @Test
    void aMissingKeyReadsAsZerosAndAWriteGrowsItEvenIfItFails()
    {
        expect("0 0", "BITFIELD", "new", "GET", "u8", "0", "GET", "i64", "100");
        expect("0", "EXISTS", "new");
        expect("nil", "BITFIELD", "new", "OVERFLOW", "FAIL", "SET", "u8", "100", "256");
        expect("14", "STRLEN", "new");
        expect("", "BITFIELD", "new");
        run("SET", "ttl", "x", "EX", "100");
        expect("120", "BITFIELD", "ttl", "SET", "u8", "0", "1"); // "x"
        expect("100", "TTL", "ttl"); // a field written keeps the key's expiry, as SETBIT does
    }

    @Test
    void everyArgumentIsCheckedBeforeAnythingRuns()
    {
        run("SET", "k", "a");
        expect(TYPE_ERROR, "BITFIELD", "k", "GET", "u64", "0");
        expect(TYPE_ERROR, "BITFIELD", "k", "GET", "i65", "0");
        expect(TYPE_ERROR, "BITFIELD", "k", "GET", "I8", "0");
        expect(OFFSET_ERROR, "BITFIELD", "k", "GET", "i8", "-1");
        expect(OFFSET_ERROR, "BITFIELD", "k", "GET", "i8", "#-1");
        expect(OFFSET_ERROR, "BITFIELD", "k", "GET", "i8", "x");
        expect("ERR value is not an integer or out of range", "BITFIELD", "k", "SET", "i8", "0", "x");
        expect("ERR Invalid OVERFLOW type specified", "BITFIELD", "k", "OVERFLOW", "NO", "GET", "i8", "0");
        expect("ERR syntax error", "BITFIELD", "k", "GET", "i8");
        expect("ERR syntax error", "BITFIELD", "k", "FOO", "i8", "0");
        expect("ERR syntax error", "BITFIELD", "k", "GET", "i8", "0", "SET", "u8", "0");
        expect(TYPE_ERROR, "BITFIELD", "k", "GET", "u8", "0", "SET", "u8", "0", "1", "GET", "u64", "0");
        expect("a", "GET", "k"); // the SET before the bad type did not run
        expect("ERR BITFIELD_RO only supports the GET subcommand", "BITFIELD_RO", "k", "SET", "u8", "0", "1");
    }

    @Test
    void aKeyOfAnotherTypeIsRefusedAfterTheArguments()
    {
        run("RPUSH", "l", "x");
        expect(Keyspace.WRONG_TYPE, "BITFIELD", "l", "GET", "u8", "0");
        expect("ERR BITFIELD_RO only supports the GET subcommand", "BITFIELD_RO", "l", "SET", "u8", "0", "1");
        expect(TYPE_ERROR, "BITFIELD", "l", "GET", "u99", "0");
    }

    @Test
    void aFieldMustEndWithinTheLongestValueAnEditMakes()
    {
        final String lastByte = Long.toString((ValueEdits.MAX_LENGTH - 1) << 3);
        expect("0", "BITFIELD", "big", "SET", "u8", lastByte, "255");
        expect(Long.toString(ValueEdits.MAX_LENGTH), "STRLEN", "big");
        final String oneBitFurther = Long.toString(((ValueEdits.MAX_LENGTH - 1) << 3) + 1);
        expect(OFFSET_ERROR, "BITFIELD", "big", "SET", "u8", oneBitFurther, "1");
        expect(OFFSET_ERROR, "BITFIELD", "big", "GET", "u8", Long.toString(ValueEdits.MAX_LENGTH << 3));
        expect(OFFSET_ERROR, "BITFIELD", "big", "GET", "i64", "#" + Long.MAX_VALUE / 2);
    }
}

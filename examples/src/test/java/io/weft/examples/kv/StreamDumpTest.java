package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HexFormat;
import java.util.Random;
import java.util.function.Consumer;

import static io.weft.examples.kv.DumpPayloadTest.bytes;
import static io.weft.examples.kv.DumpPayloadTest.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DUMP and RESTORE of streams ({@link StreamDump}). The hexadecimal payloads and the XINFO replies here are
 * redis-server 7.0.15's, {@code rdbcompression no} unless said; Redis 5.0's and 7.2's forms were made from
 * {@link #SMALL} by a converter (5.0's then restored by redis-server 7.0.15 for its reply); refused payloads are
 * built here from their parts.
 */
@Timeout(20)
class StreamDumpTest
{
    /** XADD 1-1 f1 v1 f2 v2, 5-0 other 12, 5-1 f1 -7 f2 (70 z): a 12-bit string, an integer, other fields. */
    private static final String PLAIN = "13011000000000000000010000000000000001408f8f00000019000301000102018266" +
        "31038266320300010201000100018276310382763203050100010401dfff020101856f74686572060c010601020104010001dff9" +
        "02e046" + "7a".repeat(70) + "480501ff0305010101000003000a003a0247324450e643";
    /**
     * XADD 1-1 f1 v1 f2 v2, 1-2 f1 x f2 y, 5-0 other 12, 5-1 f1 -7 f2 z, XDEL 1-2, XGROUP CREATE g 0, XREADGROUP of
     * alice (2) and bob (1), XGROUP CREATE h $ and CREATECONSUMER carol, XSETID 9-0 ENTRIESADDED 10 MAXDELETEDID 3-0:
     * a deleted entry left in its node, groups, pending entries, consumers, the counters of XSETID.
     */
    private static final String SMALL = "130110000000000000000100000000000000014057570000001f000301010102018266" +
        "310382663203000102010001000182763103827632030501030100010101817802817902050100010401dfff020101856f746865" +
        "72060c010601020104010001dff902817a020501ff030900010103000a0201670501040300000000000000010000000000000001" +
        "afbb074da20100000100000000000000050000000000000000afbb074da20100000100000000000000050000000000000001afbb" +
        "074da2010000010205616c696365afbb074da2010000020000000000000001000000000000000100000000000000050000000000" +
        "00000003626f62afbb074da201000001000000000000000500000000000000010168050181ffffffffffffffff0001056361726f" +
        "6cafbb074da2010000000a000df67149ac7df380";
    /** {@link #SMALL} in Redis 5.0's form (type 15, RDB 9): no counters of deletions and reads. */
    private static final String SMALL_15 = "0f0110000000000000000100000000000000014057570000001f000301010102018266" +
        "310382663203000102010001000182763103827632030501030100010101817802817902050100010401dfff020101856f746865" +
        "72060c010601020104010001dff902817a020501ff03090002016705010300000000000000010000000000000001afbb074da201" +
        "00000100000000000000050000000000000000afbb074da20100000100000000000000050000000000000001afbb074da2010000" +
        "010205616c696365afbb074da201000002000000000000000100000000000000010000000000000005000000000000000003626f" +
        "62afbb074da20100000100000000000000050000000000000001016805010001056361726f6cafbb074da2010000000900e6ee41" +
        "54656ba929";
    /** {@link #SMALL} in Redis 7.2's form (type 21, RDB 11): each consumer's active time after its seen time. */
    private static final String SMALL_21 = "150110000000000000000100000000000000014057570000001f000301010102018266" +
        "310382663203000102010001000182763103827632030501030100010101817802817902050100010401dfff020101856f746865" +
        "72060c010601020104010001dff902817a020501ff030900010103000a0201670501040300000000000000010000000000000001" +
        "afbb074da20100000100000000000000050000000000000000afbb074da20100000100000000000000050000000000000001afbb" +
        "074da2010000010205616c696365afbb074da2010000b4bb074da201000002000000000000000100000000000000010000000000" +
        "000005000000000000000003626f62afbb074da2010000b4bb074da2010000010000000000000005000000000000000101680501" +
        "81ffffffffffffffff0001056361726f6cafbb074da2010000b4bb074da2010000000b0077565959b619a993";
    /** XADD 1-0 f v to 120-0 f v, {@code rdbcompression yes}: two nodes (100 entries, 20), LZF-compressed. */
    private static final String BIG_LZF = "13021000000000000000010000000000000000c3420e445e115e040000f90164010001" +
        "0101816602000102200a05000181760204200a0001e0010a4017a0150003e001150004e0010a0005e0010a0006e0010a0007e001" +
        "0a0008e0010a0009e0010a000ae0010a000be0010a000ce0010a000de0010a000ee0010a000fe0010a0010e0010a0011e0010a00" +
        "12e0010a0013e0010a0014e0010a0015e0010a0016e0010a0017e0010a0018e0010a0019e0010a001ae0010a001be0010a001ce0" +
        "010a001de0010a001ee0010a001fe0010a0020e0010a0021e0010a0022e0010a0023e0010a0024e0010a0025e0010a0026e0010a" +
        "0027e0010a0028e0010a0029e0010a002ae0010a002be0010a002ce0010a002de0010a002ee0010a002fe0010a0030e0010a0031" +
        "e0010a0032e0010a0033e0010a0034e0010a0035e0010a0036e0010a0037e0010a0038e0010a0039e0010a003ae0010a003be001" +
        "0a003ce0010a003de0010a003ee0010a003fe0010a0040e0010a0041e0010a0042e0010a0043e0010a0044e0010a0045e0010a00" +
        "46e0010a0047e0010a0048e0010a0049e0010a004ae0010a004be0010a004ce0010a004de0010a004ee0010a004fe0010a0050e0" +
        "010a0051e0010a0052e0010a0053e0010a0054e0010a0055e0010a0056e0010a0057e0010a0058e0010a0059e0010a005ae0010a" +
        "005be0010a005ce0010a005de0010a005ee0010a005fe0010a0060e0010a0061e0010a0062e0010a0063a00a0101ff1000000000" +
        "000000650000000000000000c3407e40ee11ee0000006900140100010101816602000102200a05000181760204200a0001e0010a" +
        "4017a0150003e001150004e0010a0005e0010a0006e0010a0007e0010a0008e0010a0009e0010a000ae0010a000be0010a000ce0" +
        "010a000de0010a000ee0010a000fe0010a0010e0010a0011e0010a0012e0010a0013a00a0101ff4078407800010000004078000a" +
        "00ae263b7ed13bff20";
    /** When Redis delivered SMALL's entries and saw its consumers. */
    private static final String T = "1796588682159";
    /** The groups of SMALL as XINFO STREAM FULL shows them, after the entries read and lag of group g; @ is T. */
    private static final String GROUPS = " pel-count 3 pending 1-1 alice @ 1 5-0 alice @ 1 5-1 bob @ 1 consumers " +
        "name alice seen-time @ pel-count 2 pending 1-1 @ 1 5-0 @ 1 name bob seen-time @ pel-count 1 pending 5-1 @ 1" +
        " name h last-delivered-id 5-1 entries-read nil lag nil pel-count 0 pending  consumers name carol seen-time @" +
        " pel-count 0 pending ";
    private static final String ENTRIES = " recorded-first-entry-id 1-1 entries 1-1 f1 v1 f2 v2 5-0 other 12 5-1 " +
        "f1 -7 f2 z groups name g last-delivered-id 5-1 entries-read ";
    /** redis-server 7.0.15's XINFO STREAM FULL of SMALL, its tree's sizes aside (estimated here). */
    private static final String SMALL_FULL = ("length 3 last-generated-id 9-0 max-deleted-entry-id 3-0 " +
        "entries-added 10" + ENTRIES + "4 lag 6" + GROUPS).replace("@", T);
    /** The same of SMALL_15 restored there: the counters of deletions as Redis 7 works them out, g's reads unknown. */
    private static final String SMALL_15_FULL = ("length 3 last-generated-id 9-0 max-deleted-entry-id 0-0 " +
        "entries-added 3" + ENTRIES + "nil lag nil" + GROUPS).replace("@", T);

    private final StoreClient client = new StoreClient();

    /** A stream of XADDs alone DUMPs as redis-server 7.0.15 DUMPs it uncompressed, byte for byte, nodes and all. */
    @Test
    void xaddsDumpAsRedisDumpsThem()
    {
        client.run("XADD", "s", "1-1", "f1", "v1", "f2", "v2");
        client.run("XADD", "s", "5-0", "other", "12");
        client.run("XADD", "s", "5-1", "f1", "-7", "f2", "z".repeat(70));
        assertEquals(PLAIN, HexFormat.of().formatHex(bytes(client.run("DUMP", "s"))));
        for (int i = 1; i <= 120; i++)
        {
            client.run("XADD", "big", i + "-0", "f", "v");
        }
        final byte[] big = bytes(client.run("DUMP", "big"));
        // redis-server's uncompressed payload of it: 1418 bytes, sealed with this version and CRC
        assertEquals(1418, big.length);
        assertEquals("0a00f49231771f5232c8", HexFormat.of().formatHex(big, big.length - 10, big.length));
        client.expect("OK", "RESTORE", "lzf", "0", hex(BIG_LZF));
        assertArrayEquals(big, bytes(client.run("DUMP", "lzf")));
        client.expect("OK", "RESTORE", "plain", "0", hex(PLAIN));
        assertEquals(full("s"), full("plain"));
    }

    /** redis-server's payload restores to the stream Redis holds; this store's payload of it reads back the same. */
    @Test
    void redisPayloadRestoresWhole()
    {
        client.expect("OK", "RESTORE", "s", "0", hex(SMALL));
        assertEquals(SMALL_FULL, full("s"));
        client.expect("OK", "RESTORE", "t", "0", bytes(client.run("DUMP", "s")));
        assertEquals(SMALL_FULL, full("t"));
        client.expect("ERR The ID specified in XADD is equal or smaller than the target stream top item", "XADD", "t",
            "8-0", "f", "v");
        client.expect("9-1", "XADD", "t", "9-*", "f", "v");
        client.expect("1-1 f1 v1 f2 v2", "XCLAIM", "t", "g", "carol", "0", "1-1");
        client.expect("1", "XACK", "t", "g", "5-1");
        client.expect("t 9-1 f v", "EVAL", "return redis.call('XREADGROUP', 'GROUP', 'g', 'dave', 'STREAMS', " +
            "KEYS[1], '>')", "1", "t");
        client.expect("1", "DEL", "s");
    }

    /** Redis 5.0's form, whose counters Redis 7 works out on loading, and Redis 7.2's, with active times. */
    @Test
    void olderAndNewerFormsRestore()
    {
        client.expect("OK", "RESTORE", "s15", "0", hex(SMALL_15));
        assertEquals(SMALL_15_FULL, full("s15"));
        client.expect("OK", "RESTORE", "s21", "0", hex(SMALL_21)); // redis-server 7.0 refuses RDB 11
        assertEquals(SMALL_FULL, full("s21"));
        client.expect("OK", "RESTORE", "empty", "0", payload(out ->
        {
            out.length(0); // no nodes: a stream whose entries all went
            counters(out, 0, 7);
            out.length(0);
        }));
        client.expect("0 7-1", "EVAL", "return {redis.call('XLEN', KEYS[1]), redis.call('XADD', KEYS[1], '7-*', " +
            "'f', 'v')}", "1", "empty");
    }

    /**
     * A payload that is no stream XADD and XREADGROUP could have built (which Redis takes unless its deep
     * sanitisation is on) is "Bad data format", and leaves the store as it was.
     */
    @Test
    void inconsistentStreamsAreRefused()
    {
        client.expect("OK", "RESTORE", "ok", "0", oneEntry(5, 1, 5, "", null));
        client.expect("5-0 f v", "XRANGE", "ok", "-", "+");
        refused(payload(out ->
        {
            oneNode(out, 5, 2L, 0L, 1L, "f", 0L, 2L, 0L, 0L, "v", 4L, 2L, -1L, 0L, "w", 4L); // 5-0, then 4-0
            counters(out, 2, 5);
            out.length(0);
        }));
        refused(oneEntry(5, 1, 4, "", null)); // the last ID below the last entry's
        refused(oneEntry(5, 2, 5, "", null)); // a length not the entries'
        refused(payload(out ->
        {
            oneNode(out, 5, 1L, 0L, 1L, "f", 0L, 2L, 0L, 0L, "v", 5L); // a wrong lp-count
            counters(out, 1, 5);
            out.length(0);
        }));
        refused(payload(out ->
        {
            oneNode(out, 5, 2L, 0L, 1L, "f", 0L, 2L, 0L, 0L, "v", 4L); // a master count of 2 over 1 entry
            counters(out, 1, 5);
            out.length(0);
        }));
        refused(payload(out ->
        {
            oneNode(out, 5, 1L, 0L, 1L, "f", 0L, 6L, 0L, 0L, "v", 4L); // a flag Redis has not
            counters(out, 1, 5);
            out.length(0);
        }));
        refused(oneEntry(5, 1, 5, "pending", null)); // a pending entry of no consumer
        refused(oneEntry(5, 1, 5, "", "c")); // a consumer's pending entry not the group's
        refused(oneEntry(5, 1, 5, "pending", "c c")); // two consumers of one name
        refused(oneEntry(5, 1, 5, "twice", "c")); // two groups of one name
        client.expect("0", "EXISTS", "k");
    }

    /** A log's batch of a build before streams' payloads answers DUMP and RESTORE of a stream as that build did. */
    @Test
    void anOlderBatchRefusesStreams()
    {
        client.run("XADD", "s", "1-1", "f", "v");
        final byte[] payload = bytes(client.run("DUMP", "s"));
        client.store.versions().writing(1, (byte)(StreamDump.SINCE - 1));
        client.expect(DumpPayload.NO_STREAM, "DUMP", "s");
        client.expect("ERR Bad data format", "RESTORE", "k", "0", payload);
        client.store.versions().written();
        client.store.versions().writing(2, StreamDump.SINCE);
        client.expect("OK", "RESTORE", "k", "0", payload);
        client.store.versions().written();
    }

    /**
     * Bytes from a stranger: Redis's stream payloads with bytes changed and sealed again are restored or refused as
     * "Bad data format", never a failure of the command; a stream restored so DUMPs and restores again alike.
     */
    @Test
    void changedPayloadsAreRestoredOrRefused()
    {
        final Random random = new Random(7);
        final String[] sources = {SMALL, SMALL_15, SMALL_21, BIG_LZF, PLAIN};
        int restored = 0;
        for (int i = 0; i < 10_000; i++)
        {
            final byte[] p = DumpPayloadTest.changed(random, sources[i % sources.length]);
            final String reply = StoreClient.text(client.run("RESTORE", "m", "0", p, "REPLACE"));
            assertTrue(reply.equals("OK") || reply.equals("ERR Bad data format"), i + ": " + reply);
            if (reply.equals("OK") && "stream".equals(StoreClient.text(client.run("TYPE", "m"))))
            {
                client.expect("OK", "RESTORE", "again", "0", bytes(client.run("DUMP", "m")), "REPLACE");
                assertEquals(full("m"), full("again"), "payload " + i);
                restored++;
            }
        }
        assertTrue(restored > 500 && restored < 9_500, restored + " restored"); // both ways taken
    }

    private void refused(final byte[] payload)
    {
        client.expect("ERR Bad data format", "RESTORE", "k", "0", payload);
    }

    private String full(final String key)
    {
        return StoreClient.text(client.run("XINFO", "STREAM", key, "FULL")).replaceAll(
            "radix-tree-keys \\d+ radix-tree-nodes \\d+ ", "");
    }

    /**
     * A stream of entry {@code ms}-0 {f v}, length {@code length}, last ID {@code last}-0, and a group g whose PEL
     * holds that entry ({@code "pending"}, twice over two groups g for {@code "twice"}, none for "") and whose
     * consumers ({@code consumers}, names by spaces, or none) each own that entry.
     */
    private static byte[] oneEntry(final long ms, final long length, final long last, final String pel,
        final String consumers)
    {
        return payload(out ->
        {
            oneNode(out, ms, 1L, 0L, 1L, "f", 0L, 2L, 0L, 0L, "v", 4L);
            counters(out, length, last);
            final int groups = pel.equals("twice") ? 2 : pel.isEmpty() && consumers == null ? 0 : 1;
            out.length(groups);
            for (int g = 0; g < groups; g++)
            {
                out.string(StoreClient.bytes("g"));
                out.length(ms);
                out.length(0);
                out.length(1); // entries read
                out.length(pel.isEmpty() ? 0 : 1);
                if (!pel.isEmpty())
                {
                    out.writeBytes(rawId(ms));
                    out.littleEndian(100, 8);
                    out.length(1);
                }
                final String[] names = consumers == null ? new String[0] : consumers.split(" ");
                out.length(names.length);
                for (final String name : names)
                {
                    out.string(StoreClient.bytes(name));
                    out.littleEndian(100, 8);
                    out.length(1);
                    out.writeBytes(rawId(ms));
                }
            }
        });
    }

    /** A stream payload (type 19) of what {@code parts} write, sealed with version 10. */
    private static byte[] payload(final Consumer<RdbWriter> parts)
    {
        final RdbWriter out = new RdbWriter();
        out.write(19);
        parts.accept(out);
        return out.seal(10);
    }

    /** One node, of master ID {@code ms}-0, whose listpack holds {@code elements}: longs and strings. */
    private static void oneNode(final RdbWriter out, final long ms, final Object... elements)
    {
        out.length(1);
        out.string(rawId(ms));
        final ListpackWriter lp = new ListpackWriter();
        for (final Object e : elements)
        {
            if (e instanceof Long v)
            {
                lp.add(v);
            }
            else
            {
                lp.add(StoreClient.bytes((String)e));
            }
        }
        out.string(lp.toByteArray());
    }

    /** The length, last ID {@code last}-0, first ID 0-0, greatest ID deleted 0-0 and entries added. */
    private static void counters(final RdbWriter out, final long length, final long last)
    {
        out.length(length);
        out.length(last);
        out.length(0);
        for (int i = 0; i < 4; i++)
        {
            out.length(0);
        }
        out.length(length);
    }

    private static byte[] rawId(final long ms)
    {
        return StreamDump.rawId(new StreamId(ms, 0));
    }
}

package io.weft.examples.kv;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The store's messages in the subgroup {@value KvReplica#SUBGROUP}, by named offsets. Every message starts with a
 * header of {@value #HEADER} bytes: version, kind, origin member id, then two longs and an int whose meaning depends
 * on the kind. A batch carries its sequence, its sender's clock reading and its count of writes, then each write as
 * its argument count and its arguments (length, bytes); only its origin member keeps its reads. RECOVER carries a
 * log position, the first position the log holds a batch for and the view of its round; CATCHUP a position, then a
 * whole batch after the header; RECOVERED a position.
 */
public final class KvWire
{
    public static final int HEADER = 4 + 4 + 8 + 8 + 4;
    /**
     * 2 since EXEC's write may carry watched keys (2026-12-01), which a member of version 1 took for a malformed write:
     * it would have applied nothing where the others applied the transaction; 3 since hashes and sets (HSET, SADD,
     * ...), which a member of version 2 answered as unknown commands where the others applied them; 4 since WATCH's
     * buckets are by a mix of the key's hash ({@link KeyVersions}), by which a member of version 3 would decide EXECs
     * otherwise (a log's batches of older versions replay with their own buckets); 5 since lists (LPUSH, ...), which a
     * member of version 4 answered as unknown commands where the others applied them; 6 since sorted sets (ZADD, ...),
     * likewise; 7 since EVAL; 8 since ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, ZRANGESTORE and ZMPOP; 9 since LMPOP,
     * BLMPOP, HRANDFIELD (in scripts) and EXPIRE with several conditions, which version 8 refused (its batches replay
     * EXPIRE so); 10 since SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP; 11 since BITFIELD, BITFIELD_RO, PFADD, PFCOUNT,
     * PFMERGE, LCS, SUBSTR and RANDOMKEY; 12 since SORT and SORT_RO; 13 since GEOADD, GEOPOS, GEOHASH, GEODIST,
     * GEOSEARCH, GEOSEARCHSTORE and the GEORADIUS family; 14 since hexadecimal numbers in scores, increments and
     * weights, score bounds read as Redis reads them and INCRBYFLOAT's sums in a long double ({@link Strtod#SINCE}); 15
     * since DUMP and RESTORE ({@link DumpPayload}); 16 since SELECT, MOVE and SWAPDB in transactions and scripts
     * ({@link OneDatabase}); 17 since a number a script passes to a command is written as Redis 7.0 writes it
     * ({@link ScriptRuntime#NUMBERS_SINCE}); 18 since a script's string.format formats as Lua 5.1 does
     * ({@link LuaFormat#LUA51_SINCE}); 19 since tonumber reads as Lua 5.1 does ({@link Lua51Number#TONUMBER_SINCE});
     * 20 since scripts have math.log and its kin and ASCII-only string.upper and lower ({@link Lua51Library#SINCE});
     * 21 since string.find, match, gmatch, gsub and rep are Lua 5.1's ({@link Lua51Strings#SINCE}), and so are what
     * pcall returns for an error ({@link Lua51Errors#SINCE}), table.concat, insert and maxn
     * ({@link Lua51Table#SINCE}), math.max and math.min ({@link Lua51Library#EXTREMES_SINCE}); 22 since streams (XADD,
     * XRANGE, ...: {@link StreamCommands#SINCE}); 23 since SPUBLISH ({@link PubSub#SHARD_SINCE}); 24 since DUMP and
     * RESTORE of streams ({@link StreamDump#SINCE}) and a script's XREAD with BLOCK meets the errors before BLOCK
     * first ({@link StreamReads#SCRIPT_ORDER_SINCE}); 25 since a command's error reaches a script marked
     * {@code ignore_error_stats_update} ({@link ScriptRuntime#COUNTED_ERRORS_SINCE}); 26 since a script's call of a
     * command a connection answers is refused saying why ({@link ScriptRuntime#NOT_ALLOWED_SINCE}); 27 since scripts
     * have Redis's {@code struct} library ({@link LuaStruct#SINCE}); 28 since they have Lua 5.1's {@code loadstring},
     * {@code table.foreach} and their kin ({@link Lua51Base#SINCE}).
     * A script of a log's batch calls only the commands of its version ({@link Commands#inScriptsAt}). A member stops
     * serving at a message of another version (see {@link KvReplica}): the members of a group run one build of the
     * store.
     */
    static final byte VERSION = 28;

    /** A member's commands: the writes apply at every member, the reads at their origin only. */
    static final byte BATCH = 0;
    /** Cold start: a member's log position and the first position its log holds a batch for. */
    static final byte RECOVER = 1;
    /** Cold start: the batch of a position some member lacks, sent by the lowest-id member whose log holds it. */
    static final byte CATCHUP = 2;
    /** Cold start: the member has reached the highest position reported. */
    static final byte RECOVERED = 3;

    static final int KIND_OFFSET = 1;
    static final int ORIGIN_OFFSET = 4;
    /** A batch's sequence; the position of RECOVER, CATCHUP and RECOVERED. */
    static final int SEQ_OFFSET = 8;
    /** A batch's clock reading; RECOVER's first position held. */
    static final int NOW_OFFSET = 16;
    /** A batch's count of writes. */
    static final int WRITES_OFFSET = 24;
    /** RECOVER's round: the view it reports in. */
    static final int ROUND_OFFSET = 24;

    private KvWire()
    {
    }

    /** A RECOVER, CATCHUP or RECOVERED message; CATCHUP carries {@code batch} after the header. */
    static byte[] message(final byte kind, final int origin, final long position, final long second, final byte[] batch)
    {
        final ByteBuffer out = ByteBuffer.allocate(HEADER + (batch == null ? 0 : batch.length));
        out.put(VERSION).put(kind).putShort((short)0).putInt(origin).putLong(position).putLong(second).putInt(0);
        if (batch != null)
        {
            out.put(batch);
        }
        return out.array();
    }

    /** A RECOVER: a member's log {@code position} and {@code firstBatch} held, for the round of view {@code round}. */
    static byte[] recover(final int origin, final long position, final long firstBatch, final long round)
    {
        final byte[] m = message(RECOVER, origin, position, firstBatch, null);
        ByteBuffer.wrap(m).putInt(ROUND_OFFSET, Math.toIntExact(round));
        return m;
    }

    /** Writes a batch from {@code out}'s position on: the header, then the arguments of each write. */
    public static void encodeBatch(final ByteBuffer out, final int origin, final long seq, final long now,
        final List<List<byte[]>> writes)
    {
        out.put(VERSION).put(BATCH).putShort((short)0).putInt(origin).putLong(seq).putLong(now).putInt(writes.size());
        for (final List<byte[]> args : writes)
        {
            out.putInt(args.size());
            for (final byte[] a : args)
            {
                out.putInt(a.length).put(a);
            }
        }
    }
}

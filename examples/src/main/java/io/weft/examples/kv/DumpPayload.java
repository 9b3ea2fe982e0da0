package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * DUMP key and RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]: a value in Redis's
 * serialization, sealed with an RDB version and a CRC-64, so that values move between this store and redis-server in
 * both directions (tools that copy keys with DUMP and RESTORE). DUMP writes the plain forms that every Redis reads (a
 * string's bytes; a list, set or hash of strings; a sorted set with binary scores) and a stream as Redis 7.0 writes
 * one ({@link StreamDump}), at Redis 7.0's RDB version; RESTORE reads every form Redis 5.0 to 7.4 writes for these
 * types (listpacks, ziplists, intsets, quicklists, integers and LZF-compressed strings), where redis-server 7.0
 * refuses the newer versions' payloads. Modules' types are "Bad data format", as is an empty value (a stream aside), a
 * duplicate member or field, or a NaN score. IDLETIME and FREQ are checked as Redis checks them, then unused: the
 * store keeps no access times.
 */
final class DumpPayload
{
    /** The RDB version DUMP writes: Redis 7.0's, which every Redis from 7.0 on restores. */
    private static final int VERSION = 10;
    /** The newest RDB version RESTORE reads: Redis 7.4's, whose forms of these types are 7.0's and older ones. */
    static final int NEWEST = 12;
    /** The version and the CRC after the value. */
    private static final int SEAL = 10;

    /**
     * The value types of RDB that this store reads, by their numbers: the plain forms (DUMP writes all but ZSET),
     * then the packed ones, Redis's for small values (a blob, read as a string, of entries).
     */
    private enum Type
    {
        STRING(0), LIST(1), SET(2), ZSET(3), HASH(4), ZSET_2(5), LIST_ZIPLIST(10), SET_INTSET(11), ZSET_ZIPLIST(12),
        HASH_ZIPLIST(13), LIST_QUICKLIST(14), STREAM_LISTPACKS(15), HASH_LISTPACK(16), ZSET_LISTPACK(17),
        LIST_QUICKLIST_2(18), STREAM_LISTPACKS_2(19), SET_LISTPACK(20), STREAM_LISTPACKS_3(21);

        private static final Type[] BY_NUMBER = new Type[22];

        static
        {
            for (final Type t : values())
            {
                BY_NUMBER[t.number] = t;
            }
        }

        final int number;

        Type(final int number)
        {
            this.number = number;
        }

        /** The type numbered {@code number}, null for another (a module's type, Redis 2.4's zipmap, ...). */
        static Type of(final int number)
        {
            return number < BY_NUMBER.length ? BY_NUMBER[number] : null;
        }
    }

    /** A quicklist node (RDB 10 on) of one item as it is, not in a listpack. */
    private static final int PLAIN_NODE = 1;
    private static final int PACKED_NODE = 2;

    /** DUMP of a stream in a log's batch of a build before {@link StreamDump#SINCE}, as that build answered it. */
    static final String NO_STREAM = "ERR DUMP of a stream is not supported by this store (no RDB stream encoding)";

    private DumpPayload()
    {
    }

    /** Runs DUMP (an ordered read) or RESTORE (a write) on the delivery thread, at clock reading {@code now}. */
    static Reply apply(final Keyspace map, final String cmd, final List<byte[]> args, final long now)
    {
        if (!Commands.fitsArity(cmd, args.size()))
        {
            return Reply.wrongArity(cmd);
        }
        if (cmd.equals("DUMP"))
        {
            final Object stored = map.liveStored(args.get(1), now);
            final boolean older = stored instanceof StreamValue && map.versions.wire() < StreamDump.SINCE;
            return older ? Reply.error(NO_STREAM) : new Reply.Bulk(stored == null ? null : payload(stored));
        }
        try
        {
            return restore(map, args, now);
        }
        catch (final RdbReader.Malformed ex)
        {
            return Reply.error(ex.getMessage());
        }
    }

    /** {@code stored}, a value as the map keeps it (its expiry aside), as DUMP's payload. */
    private static byte[] payload(final Object stored)
    {
        final RdbWriter out = new RdbWriter();
        write(out, null, stored);
        return out.seal(VERSION);
    }

    /**
     * Writes {@code stored}, a value as the map keeps it (its expiry aside), in RDB's serialization: its type, then
     * {@code key} if not null (an RDB file's entry, {@link RdbFile}), then the value.
     */
    static void write(final RdbWriter out, final byte[] key, final Object stored)
    {
        if (Stored.isString(stored))
        {
            out.write(Type.STRING.number);
            keyOf(out, key);
            out.string(Stored.value(stored));
        }
        else if (stored instanceof Aggregate a)
        {
            final List<Map.Entry<Key, byte[]>> fields = a.fields().sorted();
            out.write((a.set() ? Type.SET : Type.HASH).number);
            keyOf(out, key);
            out.length(fields.size());
            for (final Map.Entry<Key, byte[]> field : fields)
            {
                out.string(field.getKey().bytes());
                if (!a.set())
                {
                    out.string(field.getValue());
                }
            }
        }
        else if (stored instanceof ListValue l)
        {
            out.write(Type.LIST.number);
            keyOf(out, key);
            out.length(l.items().size());
            for (int i = 0; i < l.items().size(); i++)
            {
                out.string(l.items().get(i));
            }
        }
        else if (stored instanceof StreamValue s)
        {
            out.write(Type.STREAM_LISTPACKS_2.number); // Redis 7.0's
            keyOf(out, key);
            StreamDump.write(out, s.entries());
        }
        else
        {
            final ZSetValue.Members members = ((ZSetValue)stored).members();
            out.write(Type.ZSET_2.number);
            keyOf(out, key);
            out.length(members.size());
            for (int rank = 0; rank < members.size(); rank++)
            {
                final ZSetValue.Node node = members.at(rank);
                out.string(node.member);
                out.littleEndian(Double.doubleToRawLongBits(node.score), 8);
            }
        }
    }

    private static void keyOf(final RdbWriter out, final byte[] key)
    {
        if (key != null)
        {
            out.string(key);
        }
    }

    /** RESTORE's checks in Redis's order: options, the key, the TTL, the seal, the value. */
    private static Reply restore(final Keyspace map, final List<byte[]> args, final long now)
    {
        boolean replace = false;
        boolean absolute = false;
        long idle = -1;
        long frequency = -1;
        for (int i = 4; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            final boolean more = i + 1 < args.size();
            if (option.equals("REPLACE") || option.equals("ABSTTL"))
            {
                replace |= option.equals("REPLACE");
                absolute |= option.equals("ABSTTL");
            }
            else if (option.equals("IDLETIME") && more && frequency == -1)
            {
                idle = ValueEdits.integer(args.get(++i));
                if (idle < 0)
                {
                    return Reply.error("ERR Invalid IDLETIME value, must be >= 0");
                }
            }
            else if (option.equals("FREQ") && more && idle == -1)
            {
                frequency = ValueEdits.integer(args.get(++i));
                if (frequency < 0 || frequency > 255)
                {
                    return Reply.error("ERR Invalid FREQ value, must be >= 0 and <= 255");
                }
            }
            else
            {
                return Reply.error("ERR syntax error");
            }
        }
        final Key key = new Key(args.get(1));
        final boolean exists = map.liveStored(key, now) != null;
        if (exists && !replace)
        {
            return Reply.error("BUSYKEY Target key name already exists.");
        }
        final long ttl = ValueEdits.integer(args.get(2));
        if (ttl < 0)
        {
            return Reply.error("ERR Invalid TTL value, must be >= 0");
        }
        final byte[] payload = args.get(3);
        if (!sealed(payload))
        {
            return Reply.error("ERR DUMP payload version or checksum are wrong");
        }
        final Object value = value(new RdbReader(payload, 0, payload.length - SEAL), map); // bytes after it: unread
        if (exists)
        {
            map.remove(key);
        }
        final long at = ttl == 0 ? 0 : absolute ? ttl : ttl + now; // wraps as Redis's sum does: expired then
        if (ttl == 0 || at > now)
        {
            map.store(key, Stored.withExpiry(value, at));
        }
        return Reply.OK;
    }

    /** Whether {@code p} ends in an RDB version this store reads and the CRC-64 of the bytes before the CRC. */
    private static boolean sealed(final byte[] p)
    {
        if (p.length < SEAL)
        {
            return false;
        }
        final RdbReader seal = new RdbReader(p, p.length - SEAL, p.length);
        final long version = seal.littleEndian(2);
        final long crc = seal.littleEndian(8);
        return version <= NEWEST && Crc64.of(p, 0, p.length - 8) == crc;
    }

    /** The value {@code r} holds, by its type byte; Malformed if it is none this store keeps. */
    private static Object value(final RdbReader r, final Keyspace map)
    {
        return value(Type.of(r.u8()), r, map);
    }

    /**
     * Reads the value of RDB type {@code type} that {@code r} holds next, checked as RESTORE checks it (an RDB file's
     * entry, {@link RdbImport}), made in {@code scratch}, a map of the reader's own; Malformed if it is none this
     * store keeps.
     */
    static void check(final int type, final RdbReader r, final Keyspace scratch)
    {
        value(Type.of(type), r, scratch);
    }

    private static Object value(final Type type, final RdbReader r, final Keyspace map)
    {
        return switch (type)
        {
            case STRING -> r.string();
            case LIST -> list(map, strings(r, r.count()));
            case LIST_ZIPLIST -> list(map, RdbReader.ziplist(r.string()));
            case LIST_QUICKLIST, LIST_QUICKLIST_2 -> list(map, quicklist(r, type == Type.LIST_QUICKLIST_2));
            case SET -> fields(map, true, strings(r, r.count()));
            case SET_INTSET -> fields(map, true, RdbReader.intset(r.string()));
            case SET_LISTPACK -> fields(map, true, RdbReader.listpack(r.string()));
            case HASH -> fields(map, false, strings(r, 2L * r.count()));
            case HASH_ZIPLIST -> fields(map, false, RdbReader.ziplist(r.string()));
            case HASH_LISTPACK -> fields(map, false, RdbReader.listpack(r.string()));
            case ZSET, ZSET_2 -> zset(map, r, type == Type.ZSET_2);
            case ZSET_ZIPLIST -> zset(map, RdbReader.ziplist(r.string()));
            case ZSET_LISTPACK -> zset(map, RdbReader.listpack(r.string()));
            case STREAM_LISTPACKS, STREAM_LISTPACKS_2, STREAM_LISTPACKS_3 -> StreamDump.read(r, type.number, map);
            case null -> throw RdbReader.MALFORMED;
        };
    }

    private static List<byte[]> strings(final RdbReader r, final long count)
    {
        final List<byte[]> strings = new ArrayList<>();
        for (long i = 0; i < count; i++)
        {
            strings.add(r.string());
        }
        return strings;
    }

    /** A quicklist's items: its nodes' ziplists (before RDB 10), or listpacks and single plain items. */
    private static List<byte[]> quicklist(final RdbReader r, final boolean containers)
    {
        final int nodes = r.count();
        final List<byte[]> items = new ArrayList<>();
        for (int i = 0; i < nodes; i++)
        {
            final int container = containers ? r.count() : PACKED_NODE;
            if (container == PLAIN_NODE)
            {
                items.add(r.string());
            }
            else if (container == PACKED_NODE)
            {
                items.addAll(containers ? RdbReader.listpack(r.string()) : RdbReader.ziplist(r.string()));
            }
            else
            {
                throw RdbReader.MALFORMED;
            }
        }
        return items;
    }

    private static ListValue list(final Keyspace map, final List<byte[]> items)
    {
        nonEmpty(items);
        final ListValue list = map.writableList(null);
        for (final byte[] item : items)
        {
            list.items().addLast(item);
        }
        return list;
    }

    /** A set of {@code entries}, or a hash of them as fields and values in turn. */
    private static Aggregate fields(final Keyspace map, final boolean set, final List<byte[]> entries)
    {
        nonEmpty(entries);
        if (!set && entries.size() % 2 != 0)
        {
            throw RdbReader.MALFORMED;
        }
        final Aggregate a = map.empty(set);
        for (int i = 0; i < entries.size(); i += set ? 1 : 2)
        {
            if (a.fields().put(new Key(entries.get(i)), set ? Aggregate.MEMBER : entries.get(i + 1)) != null)
            {
                throw RdbReader.MALFORMED; // a duplicate, which Redis refuses too
            }
        }
        return a;
    }

    /** A sorted set saved member by member, its scores as binary doubles (ZSET_2) or as text. */
    private static ZSetValue zset(final Keyspace map, final RdbReader r, final boolean binary)
    {
        final int count = r.count();
        final List<byte[]> members = new ArrayList<>();
        final List<Double> scores = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            members.add(r.string());
            scores.add(binary ? r.binaryDouble() : r.textDouble());
        }
        return zset(map, members, scores);
    }

    /** A sorted set packed as members and scores in turn, a score an integer or a number's text. */
    private static ZSetValue zset(final Keyspace map, final List<byte[]> entries)
    {
        if (entries.size() % 2 != 0)
        {
            throw RdbReader.MALFORMED;
        }
        final List<byte[]> members = new ArrayList<>();
        final List<Double> scores = new ArrayList<>();
        for (int i = 0; i < entries.size(); i += 2)
        {
            members.add(entries.get(i));
            scores.add(RdbReader.score(entries.get(i + 1)));
        }
        return zset(map, members, scores);
    }

    private static ZSetValue zset(final Keyspace map, final List<byte[]> members, final List<Double> scores)
    {
        nonEmpty(members);
        final ZSetValue z = map.writableZSet(null);
        for (int i = 0; i < members.size(); i++)
        {
            if (scores.get(i).isNaN() || z.members().get(members.get(i)) != null)
            {
                throw RdbReader.MALFORMED;
            }
            z.members().put(members.get(i), scores.get(i));
        }
        return z;
    }

    private static void nonEmpty(final List<byte[]> entries)
    {
        if (entries.isEmpty())
        {
            throw RdbReader.MALFORMED; // Redis refuses an empty value too
        }
    }
}

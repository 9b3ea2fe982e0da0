package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A stream in Redis's RDB serialization, for DUMP and RESTORE ({@link DumpPayload}): its entries in nodes, each a
 * listpack led by a master entry (the node's count of entries, of deleted ones, and the fields its entries are coded
 * against) under a key of the master ID (16 bytes, big-endian), each entry's ID a difference from it; then the
 * stream's length and counters, then each consumer group with its pending entries and its consumers.
 * <p>
 * DUMP writes Redis 7.0's form (type 19) with its nodes as Redis fills them at its defaults (100 entries, 4,096
 * bytes), so a stream built by XADDs alone is the payload redis-server writes for it with {@code rdbcompression no}.
 * RESTORE reads Redis 5.0's form too (type 15: without the counters of deletions and reads, which it works out as
 * Redis 7 does) and Redis 7.2's (type 21: a consumer's time last active besides last seen, unused here). Redis trusts
 * much of a payload unless its deep sanitisation is on; here a payload whose entries are out of order or past the
 * stream's last ID, whose counts are not its entries', or whose pending entries are not each one consumer's is "Bad
 * data format": the stream restored holds as XADD and XREADGROUP would have built it.
 */
final class StreamDump
{
    /** The KvWire version since which DUMP and RESTORE take streams; a log's older batch refuses them, as it did. */
    static final byte SINCE = 24;
    /** The RDB types of streams but 7.0's (19, which DUMP writes): Redis 5.0's and 7.2's (active times). */
    private static final int LISTPACKS = 15;
    private static final int LISTPACKS_3 = 21;
    /** Redis's defaults of stream-node-max-entries and stream-node-max-bytes. */
    private static final int NODE_ENTRIES = 100;
    private static final int NODE_BYTES = 4096;
    /** An entry's flags: deleted (a tombstone, which Redis leaves in its node), fields as the master entry's. */
    private static final int DELETED = 1;
    private static final int SAME_FIELDS = 2;
    private static final int ID_BYTES = 16;

    private StreamDump()
    {
    }

    /** Writes stream {@code s}, after its type byte: Redis 7.0's (19). */
    static void write(final RdbWriter out, final StreamValue.Entries s)
    {
        final List<Node> nodes = new ArrayList<>();
        Node node = null;
        for (final Map.Entry<StreamId, byte[][]> e : s.all())
        {
            if (node == null || node.full(e.getValue()))
            {
                node = new Node(e.getKey(), e.getValue());
                nodes.add(node);
            }
            node.add(e.getKey(), e.getValue());
        }
        out.length(nodes.size());
        for (final Node n : nodes)
        {
            out.string(rawId(n.master));
            out.string(n.toByteArray());
        }
        out.length(s.size());
        writeId(out, s.lastId());
        writeId(out, s.size() == 0 ? StreamId.MIN : s.firstId());
        writeId(out, s.maxDeletedId());
        out.length(s.entriesAdded());
        out.length(s.groups.size());
        for (final Map.Entry<byte[], ConsumerGroup> e : s.groups.entrySet())
        {
            final ConsumerGroup g = e.getValue();
            out.string(e.getKey());
            writeId(out, g.lastId);
            out.length(g.entriesRead);
            out.length(g.pending.size());
            for (final Map.Entry<StreamId, ConsumerGroup.Pending> p : g.pending.entrySet())
            {
                out.writeBytes(rawId(p.getKey()));
                out.littleEndian(p.getValue().deliveryTime, 8);
                out.length(p.getValue().deliveries);
            }
            out.length(g.consumers.size());
            for (final ConsumerGroup.Consumer c : g.consumers.values())
            {
                out.string(c.name);
                out.littleEndian(c.seenTime, 8);
                out.length(c.pending.size());
                c.pending.keySet().forEach(id -> out.writeBytes(rawId(id)));
            }
        }
    }

    /** A node being filled, as Redis's streamAppendItem fills its last one. */
    private static final class Node
    {
        final StreamId master;
        final byte[][] masterEntry;
        final ListpackWriter lp = new ListpackWriter();
        int count;

        Node(final StreamId master, final byte[][] masterEntry)
        {
            this.master = master;
            this.masterEntry = masterEntry;
            lp.add(0); // the count, at most 100: a one-byte integer, set in place at the end
            lp.add(0); // deleted
            lp.add(masterEntry.length / 2);
            for (int i = 0; i < masterEntry.length; i += 2)
            {
                lp.add(masterEntry[i]);
            }
            lp.add(0); // the master entry's end
        }

        /** Whether Redis would start a new node for an entry of {@code fieldsAndValues}. */
        boolean full(final byte[][] fieldsAndValues)
        {
            long bytes = 0;
            for (final byte[] b : fieldsAndValues)
            {
                bytes += b.length;
            }
            return lp.size() + bytes >= NODE_BYTES || count >= NODE_ENTRIES;
        }

        void add(final StreamId id, final byte[][] fieldsAndValues)
        {
            final int fields = fieldsAndValues.length / 2;
            boolean same = fields == masterEntry.length / 2;
            for (int i = 0; same && i < fieldsAndValues.length; i += 2)
            {
                same = Arrays.equals(fieldsAndValues[i], masterEntry[i]);
            }
            lp.add(same ? SAME_FIELDS : 0);
            lp.add(id.ms() - master.ms());
            lp.add(id.seq() - master.seq());
            if (!same)
            {
                lp.add(fields);
            }
            for (int i = 0; i < fieldsAndValues.length; i += 2)
            {
                if (!same)
                {
                    lp.add(fieldsAndValues[i]);
                }
                lp.add(fieldsAndValues[i + 1]);
            }
            lp.add(same ? fields + 3 : 2L * fields + 4); // lp-count: the entry's elements but itself
            count++;
        }

        byte[] toByteArray()
        {
            final byte[] bytes = lp.toByteArray();
            bytes[ListpackWriter.HEADER] = (byte)count;
            return bytes;
        }
    }

    /**
     * The stream after type byte {@code type} of {@code r}, made in {@code map}; {@link RdbReader#MALFORMED} if it is
     * no stream's, or if the batch applying it is of a build before {@link #SINCE}.
     */
    static StreamValue read(final RdbReader r, final int type, final Keyspace map)
    {
        if (map.versions.wire() < SINCE)
        {
            throw RdbReader.MALFORMED;
        }
        final StreamValue stream = map.writableStream(null);
        final StreamValue.Entries s = stream.entries();
        for (int nodes = r.count(); nodes > 0; nodes--)
        {
            final byte[] key = r.string();
            check(key.length == ID_BYTES);
            node(s, readRawId(new RdbReader(key, 0, ID_BYTES)), new Items(RdbReader.listpack(r.string())));
        }
        check(r.length() == s.size());
        final StreamId last = readId(r);
        check(s.size() == 0 || s.lastEntryId().compareTo(last) <= 0);
        if (type == LISTPACKS)
        {
            s.counters(last, StreamId.MIN, s.size());
        }
        else
        {
            readId(r); // the first entry's ID, which this store reads off its entries
            s.counters(last, readId(r), r.length());
        }
        for (int groups = r.count(); groups > 0; groups--)
        {
            final byte[] name = r.string();
            final StreamId lastRead = readId(r);
            final long entriesRead = type == LISTPACKS ? s.entriesUpTo(lastRead) : r.length();
            check(entriesRead >= ConsumerGroup.UNKNOWN);
            final ConsumerGroup g = new ConsumerGroup(lastRead, entriesRead);
            for (int pending = r.count(); pending > 0; pending--)
            {
                final StreamId id = readRawId(r);
                check(g.pending.put(id, new ConsumerGroup.Pending(null, r.littleEndian(8), r.length())) == null);
            }
            for (int consumers = r.count(); consumers > 0; consumers--)
            {
                final byte[] consumerName = r.string();
                check(!g.consumers.containsKey(consumerName));
                final ConsumerGroup.Consumer c = g.consumer(consumerName, r.littleEndian(8), false);
                if (type == LISTPACKS_3)
                {
                    r.littleEndian(8); // active time: Redis 7.2's, of which this store (as 7.0) keeps none
                }
                for (int owned = r.count(); owned > 0; owned--)
                {
                    final StreamId id = readRawId(r);
                    final ConsumerGroup.Pending p = g.pending.get(id);
                    check(p != null && p.consumer == null);
                    p.consumer = c;
                    c.pending.put(id, p);
                }
            }
            for (final ConsumerGroup.Pending p : g.pending.values())
            {
                check(p.consumer != null);
            }
            check(s.groups.put(name, g) == null);
        }
        return stream;
    }

    /** A node's entries, checked as Redis's deep sanitisation checks them, the live ones added to {@code s}. */
    private static void node(final StreamValue.Entries s, final StreamId master, final Items lp)
    {
        final long live = lp.integer();
        final long deleted = lp.integer();
        final byte[][] masterFields = new byte[lp.count()][];
        for (int i = 0; i < masterFields.length; i++)
        {
            masterFields[i] = lp.next();
        }
        check(lp.integer() == 0 && live >= 0 && deleted >= 0 && live + deleted > 0);
        long liveSeen = 0;
        long deletedSeen = 0;
        while (lp.more())
        {
            final long flags = lp.integer();
            check((flags & ~(DELETED | SAME_FIELDS)) == 0);
            final StreamId id = new StreamId(master.ms() + lp.integer(), master.seq() + lp.integer());
            final boolean same = (flags & SAME_FIELDS) != 0;
            final int fields = same ? masterFields.length : lp.count();
            check(fields > 0);
            final byte[][] fieldsAndValues = new byte[2 * fields][];
            for (int i = 0; i < fields; i++)
            {
                fieldsAndValues[2 * i] = same ? masterFields[i] : lp.next();
                fieldsAndValues[2 * i + 1] = lp.next();
            }
            check(lp.integer() == (same ? fields + 3 : 2L * fields + 4));
            if ((flags & DELETED) != 0)
            {
                deletedSeen++;
            }
            else
            {
                check(s.size() == 0 || s.lastEntryId().compareTo(id) < 0);
                s.load(id, fieldsAndValues);
                liveSeen++;
            }
        }
        check(liveSeen == live && deletedSeen == deleted);
    }

    /** A listpack's elements in turn. */
    private static final class Items
    {
        private final List<byte[]> elements;
        private int at;

        Items(final List<byte[]> elements)
        {
            this.elements = elements;
        }

        boolean more()
        {
            return at < elements.size();
        }

        byte[] next()
        {
            check(more());
            return elements.get(at++);
        }

        /** The next element as an integer, as lpGetIntegerIfValid reads one (a string in an integer's form too). */
        long integer()
        {
            final byte[] e = next();
            check(ValueEdits.isInteger(e));
            return ValueEdits.integer(e);
        }

        /** A count of elements to follow, never past those left. */
        int count()
        {
            final long n = integer();
            check(n >= 0 && n <= elements.size() - at);
            return (int)n;
        }
    }

    /** An ID as two lengths: milliseconds, then sequence (the stream's and groups' counters). */
    private static void writeId(final RdbWriter out, final StreamId id)
    {
        out.length(id.ms());
        out.length(id.seq());
    }

    /** An ID as {@link #writeId} writes it: two lengths. */
    private static StreamId readId(final RdbReader r)
    {
        return new StreamId(r.length(), r.length());
    }

    /** An ID as Redis keys its trees: milliseconds, then sequence, each 8 bytes big-endian. */
    static byte[] rawId(final StreamId id)
    {
        final RdbWriter out = new RdbWriter();
        out.bigEndian(id.ms(), 8);
        out.bigEndian(id.seq(), 8);
        return out.toByteArray();
    }

    /** An ID as {@link #rawId} writes it. */
    private static StreamId readRawId(final RdbReader r)
    {
        return new StreamId(r.bigEndian(8), r.bigEndian(8));
    }

    private static void check(final boolean holds)
    {
        if (!holds)
        {
            throw RdbReader.MALFORMED;
        }
    }
}

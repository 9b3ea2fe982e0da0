package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * Redis 7.0's consumer groups of streams ({@link ConsumerGroup}): XGROUP CREATE, SETID, DESTROY, CREATECONSUMER and
 * DELCONSUMER, XREADGROUP (BLOCK waits at its origin, {@link BlockedClients}), XACK, XCLAIM and XAUTOCLAIM ({@link
 * StreamClaims}) (writes, on the delivery thread only), and XPENDING (a read through the group), with Redis's
 * arguments, answers and errors. Delivery and idle times are the batch's clock readings, so every member keeps the
 * same pending entries with the same times; an idle time is measured against the clock of the batch that reads it.
 *
 * @param map the store's keys and values.
 */
record StreamGroupCommands(Keyspace map)
{
    private static final String NO_KEY = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE " +
        "you may want to use the MKSTREAM option to create an empty stream automatically.";

    /** Runs {@code cmd}, a consumer group's command, whose arity was checked. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        return switch (cmd)
        {
            case "XGROUP" -> group(args, now);
            case "XREADGROUP" -> read(args, now);
            case "XACK" -> acknowledge(args, now);
            case "XPENDING" -> pending(args, now);
            case "XCLAIM" -> new StreamClaims(map).claim(args, now);
            default -> new StreamClaims(map).autoClaim(args, now);
        };
    }

    /** The group {@code name} of the stream at {@code key}, or Redis's NOGROUP error naming both (XREADGROUP's too). */
    static ConsumerGroup existing(final StreamValue s, final byte[] key, final byte[] name, final String where)
    {
        final ConsumerGroup group = s == null ? null : s.entries().groups.get(name);
        if (group == null)
        {
            throw new KvStore.SyntaxError("NOGROUP No such key '" + Commands.text(key) + "' or consumer group '" +
                Commands.text(name) + "'" + where);
        }
        return group;
    }

    /** XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER key group ...; HELP is a member's. */
    private Reply group(final List<byte[]> args, final long now)
    {
        final String sub = Commands.word(args.get(1));
        boolean makeStream = false;
        long entriesRead = ConsumerGroup.UNKNOWN;
        for (int i = 5; sub.equals("CREATE") && i < args.size(); i++)
        {
            if (Commands.is(args.get(i), "MKSTREAM"))
            {
                makeStream = true;
            }
            else if (Commands.is(args.get(i), "ENTRIESREAD") && i + 1 < args.size())
            {
                entriesRead = entriesRead(args.get(++i));
            }
            else
            {
                return syntax(args);
            }
        }
        final Key key = new Key(args.get(2));
        final StreamValue live = map.stream(key, now);
        final byte[] name = args.get(3);
        if (live == null && !makeStream)
        {
            return Reply.error(NO_KEY);
        }
        final boolean known = live != null && live.entries().groups.containsKey(name);
        if (!known && (sub.equals("SETID") || sub.equals("CREATECONSUMER") || sub.equals("DELCONSUMER")))
        {
            return Reply.error("NOGROUP No such consumer group '" + Commands.text(name) + "' for key name '" +
                Commands.text(args.get(2)) + "'");
        }
        return switch (sub)
        {
            case "CREATE" -> args.size() > 8 ? syntax(args) : create(key, live, name, args.get(4), entriesRead);
            case "SETID" -> args.size() != 5 && args.size() != 7 ? syntax(args) : setId(key, live, name, args);
            case "DESTROY" -> args.size() != 4 ? syntax(args) : destroy(key, live, name);
            case "CREATECONSUMER" -> args.size() != 5 ? syntax(args) : changeConsumer(key, live, name, args, now, true);
            case "DELCONSUMER" -> args.size() != 5 ? syntax(args) : changeConsumer(key, live, name, args, now, false);
            default -> syntax(args);
        };
    }

    private static Reply syntax(final List<byte[]> args)
    {
        return Reply.error("ERR unknown subcommand or wrong number of arguments for '" + Commands.text(args.get(1)) +
            "'. Try XGROUP HELP.");
    }

    private static long entriesRead(final byte[] word)
    {
        final long n = ValueEdits.integer(word);
        if (n < 0 && n != ConsumerGroup.UNKNOWN)
        {
            throw new KvStore.SyntaxError("ERR value for ENTRIESREAD must be positive or -1");
        }
        return n;
    }

    private Reply create(final Key key, final StreamValue live, final byte[] name, final byte[] from, final long read)
    {
        final StreamId id = isWord(from, '$') ? (live == null ? StreamId.MIN : live.entries().lastId()) :
            StreamId.parse(from, 0, true);
        if (live != null && live.entries().groups.containsKey(name))
        {
            return Reply.error("BUSYGROUP Consumer Group name already exists");
        }
        final StreamValue s = map.writableStream(live);
        s.entries().groups.put(name, new ConsumerGroup(id, read));
        map.store(key, s);
        return Reply.OK;
    }

    private Reply setId(final Key key, final StreamValue live, final byte[] name, final List<byte[]> args)
    {
        final StreamId id = isWord(args.get(4), '$') ? live.entries().lastId() : StreamId.parse(args.get(4), 0, false);
        long read = ConsumerGroup.UNKNOWN;
        if (args.size() == 7)
        {
            if (!Commands.is(args.get(5), "ENTRIESREAD"))
            {
                return syntax(args);
            }
            read = entriesRead(args.get(6));
        }
        final StreamValue s = map.writableStream(live);
        final ConsumerGroup group = s.entries().groups.get(name);
        group.lastId = id;
        group.entriesRead = read;
        map.store(key, s);
        return Reply.OK;
    }

    private Reply destroy(final Key key, final StreamValue live, final byte[] name)
    {
        if (!live.entries().groups.containsKey(name))
        {
            return new Reply.Int(0);
        }
        final StreamValue s = map.writableStream(live);
        s.entries().groups.remove(name);
        map.store(key, s);
        return new Reply.Int(1);
    }

    /** CREATECONSUMER (1 if made, else 0) or DELCONSUMER (the count of its pending entries, which go with it). */
    private Reply changeConsumer(final Key key, final StreamValue live, final byte[] name, final List<byte[]> args,
        final long now, final boolean make)
    {
        final byte[] consumer = args.get(4);
        final boolean exists = live.entries().groups.get(name).consumers.containsKey(consumer);
        if (make == exists)
        {
            return new Reply.Int(0);
        }
        final StreamValue s = map.writableStream(live);
        final ConsumerGroup group = s.entries().groups.get(name);
        final long answer = make ? 1 : group.removeConsumer(consumer);
        if (make)
        {
            group.consumer(consumer, now, false);
        }
        map.store(key, s);
        return new Reply.Int(answer);
    }

    /**
     * XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]:
     * with {@code >}, the entries after the group's last ID, each then pending for the consumer (unless NOACK); with
     * an ID, the consumer's pending entries after it (a deleted one as its ID and nil), each delivered once more. Nil
     * if no stream answers.
     */
    private Reply read(final List<byte[]> args, final long now)
    {
        final StreamReads r = StreamReads.parse(args, true);
        final List<StreamId> after = new ArrayList<>(r.streams);
        for (int i = 0; i < r.streams; i++)
        {
            final StreamValue s = map.stream(new Key(r.key(args, i)), now);
            existing(s, r.key(args, i), r.group, " in XREADGROUP with GROUP option");
            final byte[] word = r.id(args, i);
            if (isWord(word, '$'))
            {
                return Reply.error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the " +
                    "history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ " +
                    "ID would just return an empty result set.");
            }
            after.add(isWord(word, '>') ? null : StreamId.parse(word, 0, true));
        }
        final List<Reply> served = new ArrayList<>();
        for (int i = 0; i < r.streams; i++)
        {
            final Key key = new Key(r.key(args, i));
            final StreamValue live = map.stream(key, now);
            final StreamId last = live.entries().lastEntryId();
            final StreamId delivered = live.entries().groups.get(r.group).lastId;
            if (after.get(i) == null && (last == null || last.compareTo(delivered) <= 0))
            {
                continue; // nothing new for the group
            }
            final StreamValue s = map.writableStream(live);
            final ConsumerGroup group = s.entries().groups.get(r.group);
            final ConsumerGroup.Consumer consumer = group.consumer(r.consumer, now, true);
            served.add(new Reply.Bulk(r.key(args, i)));
            served.add(after.get(i) == null ? deliverNew(s.entries(), group, consumer, r, now) :
                history(s.entries(), consumer, after.get(i), r.count, now));
            map.store(key, s);
        }
        return served.isEmpty() ? Reply.NIL_ARRAY : new Reply.Pairs(served);
    }

    /** The entries after the group's last ID, up to the count, delivered to {@code consumer}: pending unless NOACK. */
    private static Reply deliverNew(final StreamValue.Entries entries, final ConsumerGroup group,
        final ConsumerGroup.Consumer consumer, final StreamReads r, final long now)
    {
        final Map<StreamId, byte[][]> range = entries.range(group.lastId.next(), StreamId.MAX, false);
        final List<Reply> replies = new ArrayList<>();
        for (final Map.Entry<StreamId, byte[][]> e : range.entrySet())
        {
            if (r.count != 0 && replies.size() == r.count)
            {
                break;
            }
            final StreamId id = e.getKey();
            if (group.entriesRead != ConsumerGroup.UNKNOWN && !entries.deletedFrom(id))
            {
                group.entriesRead++;
            }
            else
            {
                group.entriesRead = entries.entriesUpTo(id);
            }
            group.lastId = id;
            if (!r.noAck)
            {
                group.deliver(id, consumer, now);
            }
            replies.add(StreamCommands.entry(id, e.getValue()));
        }
        return new Reply.Array(replies);
    }

    /** The consumer's pending entries after {@code from}, up to {@code count} (0: all), each delivered again. */
    private static Reply history(final StreamValue.Entries entries, final ConsumerGroup.Consumer consumer,
        final StreamId from, final long count, final long now)
    {
        final List<Reply> replies = new ArrayList<>();
        for (final Map.Entry<StreamId, ConsumerGroup.Pending> e : consumer.pending.tailMap(from, false).entrySet())
        {
            if (count != 0 && replies.size() == count)
            {
                break;
            }
            final byte[][] fields = entries.get(e.getKey());
            if (fields != null)
            {
                e.getValue().deliveryTime = now;
                e.getValue().deliveries++;
            }
            replies.add(StreamCommands.entry(e.getKey(), fields));
        }
        return new Reply.Array(replies);
    }

    /** XACK key group id [id ...]: how many of the IDs were pending (0 with no such key or group). */
    private Reply acknowledge(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final StreamValue live = map.stream(key, now);
        if (live == null || !live.entries().groups.containsKey(args.get(2)))
        {
            return new Reply.Int(0);
        }
        final List<StreamId> ids = ids(args, 3, args.size());
        final StreamValue s = map.writableStream(live);
        final ConsumerGroup group = s.entries().groups.get(args.get(2));
        int acknowledged = 0;
        for (final StreamId id : ids)
        {
            acknowledged += group.acknowledge(id) ? 1 : 0;
        }
        if (acknowledged > 0)
        {
            map.store(key, s);
        }
        return new Reply.Int(acknowledged);
    }

    private static List<StreamId> ids(final List<byte[]> args, final int from, final int to)
    {
        final List<StreamId> ids = new ArrayList<>(to - from);
        for (int i = from; i < to; i++)
        {
            ids.add(StreamId.parse(args.get(i), 0, true));
        }
        return ids;
    }

    /**
     * XPENDING key group: the count of pending entries, the first and last, and each consumer with its count; XPENDING
     * key group [IDLE min-idle-time] start end count [consumer]: the pending entries in the interval (of the
     * consumer), each its ID, consumer, milliseconds since its last delivery and count of deliveries.
     */
    private Reply pending(final List<byte[]> args, final long now)
    {
        final int n = args.size();
        if (n != 3 && (n < 6 || n > 9))
        {
            return Reply.error("ERR syntax error");
        }
        long minIdle = 0;
        int at = 3;
        if (n >= 6 && Commands.is(args.get(3), "IDLE"))
        {
            minIdle = ValueEdits.integer(args.get(4));
            if (n < 8)
            {
                return Reply.error("ERR syntax error");
            }
            at = 5;
        }
        long count = n >= 6 ? Math.max(0, ValueEdits.integer(args.get(at + 2))) : 0;
        final StreamId start = n >= 6 ? StreamCommands.interval(args.get(at), true) : null;
        final StreamId end = n >= 6 ? StreamCommands.interval(args.get(at + 1), false) : null;
        final StreamValue s = map.stream(new Key(args.get(1)), now);
        final ConsumerGroup group = existing(s, args.get(1), args.get(2), "");
        if (n == 3)
        {
            return summary(group);
        }
        final ConsumerGroup.Consumer only = at + 3 < n ? group.consumers.get(args.get(at + 3)) : null;
        if (at + 3 < n && only == null)
        {
            return new Reply.Array(List.of());
        }
        final NavigableMap<StreamId, ConsumerGroup.Pending> pel = only != null ? only.pending : group.pending;
        final Map<StreamId, ConsumerGroup.Pending> inRange = start.compareTo(end) > 0 ? Map.of() :
            pel.subMap(start, true, end, true);
        final List<Reply> replies = new ArrayList<>();
        for (final Map.Entry<StreamId, ConsumerGroup.Pending> e : inRange.entrySet())
        {
            if (count == 0)
            {
                break;
            }
            final ConsumerGroup.Pending p = e.getValue();
            if (minIdle != 0 && now - p.deliveryTime < minIdle)
            {
                continue;
            }
            count--;
            replies.add(new Reply.Array(List.of(new Reply.Bulk(e.getKey().bytes()), new Reply.Bulk(p.consumer.name),
                new Reply.Int(Math.max(0, now - p.deliveryTime)), new Reply.Int(p.deliveries))));
        }
        return new Reply.Array(replies);
    }

    private static Reply summary(final ConsumerGroup group)
    {
        if (group.pending.isEmpty())
        {
            return new Reply.Array(List.of(new Reply.Int(0), Reply.NIL, Reply.NIL, Reply.NIL_ARRAY));
        }
        final List<Reply> consumers = new ArrayList<>();
        for (final ConsumerGroup.Consumer c : group.consumers.values())
        {
            if (!c.pending.isEmpty())
            {
                consumers.add(new Reply.Array(List.of(new Reply.Bulk(c.name),
                    Reply.Bulk.of(Integer.toString(c.pending.size())))));
            }
        }
        return new Reply.Array(List.of(new Reply.Int(group.pending.size()),
            new Reply.Bulk(group.pending.firstKey().bytes()), new Reply.Bulk(group.pending.lastKey().bytes()),
            new Reply.Array(consumers)));
    }

    private static boolean isWord(final byte[] word, final char c)
    {
        return word.length == 1 && word[0] == c;
    }
}

package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * XINFO STREAM [FULL [COUNT count]], GROUPS and CONSUMERS (a read through the group): a stream's counters, first and
 * last entries, groups with their lag, and consumers, as Redis 7.0 answers them, a map in RESP3. Redis's
 * radix-tree-keys and radix-tree-nodes count its listpack nodes, which this store keeps not: here they are what Redis
 * has for small entries (a node per 100 entries, and one node more).
 */
final class StreamInfo
{
    /** Redis's stream-node-max-entries: the entries a node of Redis's holds, for radix-tree-keys. */
    private static final int NODE_ENTRIES = 100;

    private StreamInfo()
    {
    }

    /** Runs XINFO {@code args}, whose subcommand and arity were checked; HELP is answered before. */
    static Reply apply(final Keyspace map, final List<byte[]> args, final long now)
    {
        final StreamValue s = map.stream(new Key(args.get(2)), now);
        if (s == null)
        {
            return Reply.error("ERR no such key");
        }
        final StreamValue.Entries entries = s.entries();
        return switch (Commands.word(args.get(1)))
        {
            case "CONSUMERS" -> consumers(entries, args, now);
            case "GROUPS" -> groups(entries);
            default -> stream(entries, args);
        };
    }

    private static Reply consumers(final StreamValue.Entries entries, final List<byte[]> args, final long now)
    {
        final ConsumerGroup group = entries.groups.get(args.get(3));
        if (group == null)
        {
            return Reply.error("NOGROUP No such consumer group '" + Commands.text(args.get(3)) + "' for key name '" +
                Commands.text(args.get(2)) + "'");
        }
        final List<Reply> replies = new ArrayList<>();
        for (final ConsumerGroup.Consumer c : group.consumers.values())
        {
            replies.add(new Reply.Map(List.of(Reply.Bulk.of("name"), new Reply.Bulk(c.name), Reply.Bulk.of("pending"),
                new Reply.Int(c.pending.size()), Reply.Bulk.of("idle"), new Reply.Int(Math.max(0, now - c.seenTime)))));
        }
        return new Reply.Array(replies);
    }

    private static Reply groups(final StreamValue.Entries entries)
    {
        final List<Reply> replies = new ArrayList<>();
        for (final Map.Entry<byte[], ConsumerGroup> e : entries.groups.entrySet())
        {
            final ConsumerGroup g = e.getValue();
            replies.add(new Reply.Map(List.of(Reply.Bulk.of("name"), new Reply.Bulk(e.getKey()),
                Reply.Bulk.of("consumers"), new Reply.Int(g.consumers.size()), Reply.Bulk.of("pending"),
                new Reply.Int(g.pending.size()), Reply.Bulk.of("last-delivered-id"), new Reply.Bulk(g.lastId.bytes()),
                Reply.Bulk.of("entries-read"), g.entriesRead == ConsumerGroup.UNKNOWN ? Reply.NIL :
                    new Reply.Int(g.entriesRead), Reply.Bulk.of("lag"), lag(entries, g))));
        }
        return new Reply.Array(replies);
    }

    /** Redis's streamReplyWithCGLag: entries added that the group has not read, nil where that cannot be told. */
    private static Reply lag(final StreamValue.Entries entries, final ConsumerGroup g)
    {
        if (entries.entriesAdded() == 0)
        {
            return new Reply.Int(0);
        }
        if (g.entriesRead != ConsumerGroup.UNKNOWN && !entries.deletedFrom(g.lastId))
        {
            return new Reply.Int(entries.entriesAdded() - g.entriesRead);
        }
        final long read = entries.entriesUpTo(g.lastId);
        return read == ConsumerGroup.UNKNOWN ? Reply.NIL : new Reply.Int(entries.entriesAdded() - read);
    }

    /** XINFO STREAM key [FULL [COUNT count]] (COUNT 10 unless given; 0 or less: all). */
    private static Reply stream(final StreamValue.Entries entries, final List<byte[]> args)
    {
        final int n = args.size();
        if (n > 3 && (n != 4 && n != 6 || !Commands.is(args.get(3), "FULL") || n == 6 &&
            !Commands.is(args.get(4), "COUNT")))
        {
            return Reply.error("ERR unknown subcommand or wrong number of arguments for '" +
                Commands.text(args.get(1)) + "'. Try XINFO HELP.");
        }
        final long count = n == 6 ? ValueEdits.integer(args.get(5)) : 10;
        final long most = count <= 0 ? Long.MAX_VALUE : count;
        final int nodes = (entries.size() + NODE_ENTRIES - 1) / NODE_ENTRIES;
        final StreamId first = entries.firstId();
        final List<Reply> info = new ArrayList<>(List.of(Reply.Bulk.of("length"), new Reply.Int(entries.size()),
            Reply.Bulk.of("radix-tree-keys"), new Reply.Int(nodes), Reply.Bulk.of("radix-tree-nodes"),
            new Reply.Int(nodes + 1), Reply.Bulk.of("last-generated-id"), new Reply.Bulk(entries.lastId().bytes()),
            Reply.Bulk.of("max-deleted-entry-id"), new Reply.Bulk(entries.maxDeletedId().bytes()),
            Reply.Bulk.of("entries-added"), new Reply.Int(entries.entriesAdded()),
            Reply.Bulk.of("recorded-first-entry-id"), new Reply.Bulk((first == null ? StreamId.MIN : first).bytes())));
        if (n == 3)
        {
            final StreamId last = entries.lastEntryId();
            info.addAll(List.of(Reply.Bulk.of("groups"), new Reply.Int(entries.groups.size()),
                Reply.Bulk.of("first-entry"), first == null ? Reply.NIL :
                    StreamCommands.entry(first, entries.get(first)), Reply.Bulk.of("last-entry"),
                last == null ? Reply.NIL : StreamCommands.entry(last, entries.get(last))));
            return new Reply.Map(info);
        }
        info.add(Reply.Bulk.of("entries"));
        info.add(StreamCommands.entries(entries.range(StreamId.MIN, StreamId.MAX, false), most));
        final List<Reply> groups = new ArrayList<>();
        for (final Map.Entry<byte[], ConsumerGroup> e : entries.groups.entrySet())
        {
            groups.add(fullGroup(entries, e.getKey(), e.getValue(), most));
        }
        info.add(Reply.Bulk.of("groups"));
        info.add(new Reply.Array(groups));
        return new Reply.Map(info);
    }

    private static Reply fullGroup(final StreamValue.Entries entries, final byte[] name, final ConsumerGroup g,
        final long most)
    {
        final List<Reply> pending = new ArrayList<>();
        for (final Map.Entry<StreamId, ConsumerGroup.Pending> p : g.pending.entrySet())
        {
            if (pending.size() == most)
            {
                break;
            }
            pending.add(new Reply.Array(List.of(new Reply.Bulk(p.getKey().bytes()),
                new Reply.Bulk(p.getValue().consumer.name), new Reply.Int(p.getValue().deliveryTime),
                new Reply.Int(p.getValue().deliveries))));
        }
        final List<Reply> consumers = new ArrayList<>();
        for (final ConsumerGroup.Consumer c : g.consumers.values())
        {
            final List<Reply> own = new ArrayList<>();
            for (final Map.Entry<StreamId, ConsumerGroup.Pending> p : c.pending.entrySet())
            {
                if (own.size() == most)
                {
                    break;
                }
                own.add(new Reply.Array(List.of(new Reply.Bulk(p.getKey().bytes()),
                    new Reply.Int(p.getValue().deliveryTime), new Reply.Int(p.getValue().deliveries))));
            }
            consumers.add(new Reply.Map(List.of(Reply.Bulk.of("name"), new Reply.Bulk(c.name),
                Reply.Bulk.of("seen-time"), new Reply.Int(c.seenTime), Reply.Bulk.of("pel-count"),
                new Reply.Int(c.pending.size()), Reply.Bulk.of("pending"), new Reply.Array(own))));
        }
        return new Reply.Map(List.of(Reply.Bulk.of("name"), new Reply.Bulk(name), Reply.Bulk.of("last-delivered-id"),
            new Reply.Bulk(g.lastId.bytes()), Reply.Bulk.of("entries-read"), g.entriesRead == ConsumerGroup.UNKNOWN ?
                Reply.NIL : new Reply.Int(g.entriesRead), Reply.Bulk.of("lag"), lag(entries, g),
            Reply.Bulk.of("pel-count"), new Reply.Int(g.pending.size()), Reply.Bulk.of("pending"),
            new Reply.Array(pending), Reply.Bulk.of("consumers"), new Reply.Array(consumers)));
    }
}

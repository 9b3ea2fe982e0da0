package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;

/**
 * XCLAIM and XAUTOCLAIM (writes, on the delivery thread only): pending entries of a consumer group given to another
 * consumer, as Redis 7.0 gives them, idle times measured against the batch's clock reading.
 *
 * @param map the store's keys and values.
 */
record StreamClaims(Keyspace map)
{
    /**
     * XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT count] [FORCE] [JUSTID]
     * [LASTID id]: the pending entries idle that long given to the consumer (FORCE: made pending), each as its entry
     * (JUSTID: its ID); one no longer in the stream leaves the group's pending entries.
     */
    Reply claim(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final StreamValue live = map.stream(key, now);
        StreamGroupCommands.existing(live, args.get(1), args.get(2), "");
        final long minIdle = Math.max(0, integer(args.get(4), "ERR Invalid min-idle-time argument for XCLAIM"));
        int j = 5;
        final List<StreamId> ids = new ArrayList<>();
        for (; j < args.size(); j++)
        {
            try
            {
                ids.add(StreamId.parse(args.get(j), 0, true));
            }
            catch (final KvStore.SyntaxError ex)
            {
                break; // the options follow
            }
        }
        final Claim options = Claim.parse(args, j, now);
        final StreamValue s = map.writableStream(live);
        final ConsumerGroup group = s.entries().groups.get(args.get(2));
        boolean changed = false; // a change not stored would be lost where a cut made s a copy
        if (options.lastId().compareTo(group.lastId) > 0)
        {
            group.lastId = options.lastId();
            changed = true;
        }
        final long deliveryTime = options.time() < 0 || options.time() > now ? now : options.time();
        ConsumerGroup.Consumer consumer = null;
        final List<Reply> replies = new ArrayList<>();
        for (final StreamId id : ids)
        {
            ConsumerGroup.Pending p = group.pending.get(id);
            if (!s.entries().has(id))
            {
                changed |= group.acknowledge(id);
                continue;
            }
            if (options.force() && p == null)
            {
                p = new ConsumerGroup.Pending(null, 0, 0);
                group.pending.put(id, p);
            }
            if (p == null || p.consumer != null && minIdle != 0 && now - p.deliveryTime < minIdle)
            {
                continue;
            }
            consumer = consumer != null ? consumer : group.consumer(args.get(3), now, true);
            p.deliveryTime = deliveryTime;
            p.deliveries = options.retries() >= 0 ? options.retries() : options.justId() ? p.deliveries :
                p.deliveries + 1;
            group.transfer(id, p, consumer);
            replies.add(options.justId() ? new Reply.Bulk(id.bytes()) :
                StreamCommands.entry(id, s.entries().get(id)));
            changed = true;
        }
        if (changed)
        {
            map.store(key, s);
        }
        return new Reply.Array(replies);
    }

    /** XCLAIM's options after its IDs. */
    private record Claim(long time, long retries, boolean force, boolean justId, StreamId lastId)
    {
        static Claim parse(final List<byte[]> args, final int from, final long now)
        {
            long time = -1;
            long retries = -1;
            boolean force = false;
            boolean justId = false;
            StreamId lastId = StreamId.MIN;
            for (int j = from; j < args.size(); j++)
            {
                final boolean more = j < args.size() - 1;
                final byte[] word = args.get(j);
                if (Commands.is(word, "FORCE"))
                {
                    force = true;
                }
                else if (Commands.is(word, "JUSTID"))
                {
                    justId = true;
                }
                else if (more && Commands.is(word, "IDLE"))
                {
                    time = now - integer(args.get(++j), "ERR Invalid IDLE option argument for XCLAIM");
                }
                else if (more && Commands.is(word, "TIME"))
                {
                    time = integer(args.get(++j), "ERR Invalid TIME option argument for XCLAIM");
                }
                else if (more && Commands.is(word, "RETRYCOUNT"))
                {
                    retries = integer(args.get(++j), "ERR Invalid RETRYCOUNT option argument for XCLAIM");
                }
                else if (more && Commands.is(word, "LASTID"))
                {
                    lastId = StreamId.parse(args.get(++j), 0, true);
                }
                else
                {
                    throw new KvStore.SyntaxError("ERR Unrecognized XCLAIM option '" + Commands.text(word) + "'");
                }
            }
            return new Claim(time, retries, force, justId, lastId);
        }
    }

    /**
     * XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]: up to count pending entries from start
     * on, idle that long, given to the consumer; the ID to start from next (0-0 at the end), the entries (JUSTID:
     * their IDs), and the IDs no longer in the stream, which leave the pending entries.
     */
    Reply autoClaim(final List<byte[]> args, final long now)
    {
        final long minIdle = Math.max(0, integer(args.get(4), "ERR Invalid min-idle-time argument for XAUTOCLAIM"));
        final StreamId start = StreamCommands.interval(args.get(5), true);
        long count = 100;
        boolean justId = false;
        for (int j = 6; j < args.size(); j++)
        {
            if (j < args.size() - 1 && Commands.is(args.get(j), "COUNT"))
            {
                count = integer(args.get(++j), "ERR COUNT must be > 0");
                if (count < 1 || count > Long.MAX_VALUE / 16)
                {
                    return Reply.error("ERR COUNT must be > 0");
                }
            }
            else if (Commands.is(args.get(j), "JUSTID"))
            {
                justId = true;
            }
            else
            {
                return Reply.error("ERR syntax error");
            }
        }
        final Key key = new Key(args.get(1));
        final StreamValue live = map.stream(key, now);
        StreamGroupCommands.existing(live, args.get(1), args.get(2), "");
        final StreamValue s = map.writableStream(live);
        final ConsumerGroup group = s.entries().groups.get(args.get(2));
        long attempts = count * 10;
        ConsumerGroup.Consumer consumer = null;
        final List<Reply> claimed = new ArrayList<>();
        final List<Reply> deleted = new ArrayList<>();
        StreamId next = group.pending.ceilingKey(start);
        while (attempts-- > 0 && count > 0 && next != null)
        {
            final StreamId id = next;
            next = group.pending.higherKey(id);
            final ConsumerGroup.Pending p = group.pending.get(id);
            if (!s.entries().has(id))
            {
                group.acknowledge(id);
                deleted.add(new Reply.Bulk(id.bytes()));
                count--;
                continue;
            }
            if (minIdle != 0 && now - p.deliveryTime < minIdle)
            {
                continue;
            }
            consumer = consumer != null ? consumer : group.consumer(args.get(3), now, true);
            p.deliveryTime = now;
            p.deliveries += justId ? 0 : 1;
            group.transfer(id, p, consumer);
            claimed.add(justId ? new Reply.Bulk(id.bytes()) : StreamCommands.entry(id, s.entries().get(id)));
            count--;
        }
        if (!claimed.isEmpty() || !deleted.isEmpty())
        {
            map.store(key, s);
        }
        return new Reply.Array(List.of(new Reply.Bulk((next == null ? StreamId.MIN : next).bytes()),
            new Reply.Array(claimed), new Reply.Array(deleted)));
    }

    /** An integer argument, or {@code error} for one that is not. */
    private static long integer(final byte[] word, final String error)
    {
        try
        {
            return ValueEdits.integer(word);
        }
        catch (final KvStore.SyntaxError ex)
        {
            throw new KvStore.SyntaxError(error);
        }
    }
}

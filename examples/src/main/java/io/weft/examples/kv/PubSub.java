package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A member's Redis pub/sub: the channels and patterns its clients subscribe to. PUBLISH travels through the group as a
 * write, so every member hands each message to its own subscribers, on its delivery thread, in the group's order: the
 * subscribers of every member see the messages of every publisher in one order. PUBLISH's reply counts the
 * subscribers of the member it was sent to, as a Redis Cluster node does. Shard channels (SSUBSCRIBE, SPUBLISH) are
 * channels of their own, as in Redis: neither PUBLISH nor a pattern reaches them. Subscribed and unsubscribed on a
 * connection's event loop, read by the delivery thread: concurrent sets.
 */
final class PubSub
{
    /** The KvWire version since which scripts may call SPUBLISH. */
    static final byte SHARD_SINCE = 23;

    /** What a subscription names, with the words of its commands' confirmations and of its messages. */
    enum Kind
    {
        CHANNEL("subscribe", "unsubscribe", "message"),
        PATTERN("psubscribe", "punsubscribe", "pmessage"),
        SHARD("ssubscribe", "sunsubscribe", "smessage");

        final String subscribed;
        final String unsubscribed;
        final byte[] message;

        Kind(final String subscribed, final String unsubscribed, final String message)
        {
            this.subscribed = subscribed;
            this.unsubscribed = unsubscribed;
            this.message = message.getBytes(StandardCharsets.US_ASCII);
        }

        /** The kind of a (un)subscribe command, upper case. */
        static Kind of(final String command)
        {
            return command.startsWith("P") ? PATTERN : command.startsWith("SS") || command.startsWith("SUNS") ?
                SHARD : CHANNEL;
        }
    }

    /** A subscribed connection. */
    interface Subscriber
    {
        /** The delivery thread, never blocking: {@code push} is due to the client. */
        void push(Reply.Push push);
    }

    private final Map<Key, Set<Subscriber>> channels = new ConcurrentHashMap<>();
    private final Map<Key, Set<Subscriber>> patterns = new ConcurrentHashMap<>();
    private final Map<Key, Set<Subscriber>> shards = new ConcurrentHashMap<>();

    /** The event loop: {@code s} receives what is published to the channel {@code name} (or what it matches). */
    void subscribe(final Key name, final Kind kind, final Subscriber s)
    {
        of(kind).computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet()).add(s);
    }

    void unsubscribe(final Key name, final Kind kind, final Subscriber s)
    {
        of(kind).computeIfPresent(name, (k, set) ->
        {
            set.remove(s);
            return set.isEmpty() ? null : set;
        });
    }

    /**
     * The delivery thread: hands {@code message} to the subscribers of {@code channel} and of the patterns it
     * matches, or, if {@code shard} (SPUBLISH), to those of the shard channel alone; returns how many.
     */
    int publish(final byte[] channel, final byte[] message, final boolean shard)
    {
        if (shard)
        {
            return hand(shards, Kind.SHARD, channel, message);
        }
        int receivers = hand(channels, Kind.CHANNEL, channel, message);
        for (final Map.Entry<Key, Set<Subscriber>> e : patterns.entrySet())
        {
            final byte[] pattern = e.getKey().bytes();
            if (Glob.matches(pattern, channel))
            {
                final Reply.Push push = new Reply.Push(List.of(new Reply.Bulk(Kind.PATTERN.message),
                    new Reply.Bulk(pattern), new Reply.Bulk(channel), new Reply.Bulk(message)));
                for (final Subscriber s : e.getValue())
                {
                    s.push(push);
                    receivers++;
                }
            }
        }
        return receivers;
    }

    private static int hand(final Map<Key, Set<Subscriber>> subscribed, final Kind kind, final byte[] channel,
        final byte[] message)
    {
        final Set<Subscriber> direct = subscribed.get(new Key(channel));
        if (direct == null)
        {
            return 0;
        }
        final Reply.Push push = new Reply.Push(List.of(new Reply.Bulk(kind.message), new Reply.Bulk(channel),
            new Reply.Bulk(message)));
        int receivers = 0;
        for (final Subscriber s : direct)
        {
            s.push(push);
            receivers++;
        }
        return receivers;
    }

    /**
     * PUBSUB CHANNELS or SHARDCHANNELS [pattern]: the channels (of {@code kind}) with a subscriber here, matching
     * {@code pattern} if not null.
     */
    List<Reply> channels(final byte[] pattern, final Kind kind)
    {
        final List<Reply> names = new ArrayList<>();
        for (final Key k : of(kind).keySet())
        {
            if (pattern == null || Glob.matches(pattern, k.bytes()))
            {
                names.add(new Reply.Bulk(k.bytes()));
            }
        }
        return names;
    }

    /** Subscribers of {@code channel} (of {@code kind}) here, not counting patterns, as PUBSUB NUMSUB counts them. */
    int subscribers(final byte[] channel, final Kind kind)
    {
        final Set<Subscriber> set = of(kind).get(new Key(channel));
        return set == null ? 0 : set.size();
    }

    /** Channels, patterns or shard channels (of {@code kind}) with a subscriber here (PUBSUB NUMPAT, INFO). */
    int count(final Kind kind)
    {
        return of(kind).size();
    }

    private Map<Key, Set<Subscriber>> of(final Kind kind)
    {
        return kind == Kind.CHANNEL ? channels : kind == Kind.PATTERN ? patterns : shards;
    }
}

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
 * subscribers of the member it was sent to, as a Redis Cluster node does. Subscribed and unsubscribed on a
 * connection's event loop, read by the delivery thread: concurrent sets.
 */
final class PubSub
{
    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PMESSAGE = "pmessage".getBytes(StandardCharsets.US_ASCII);

    /** A subscribed connection. */
    interface Subscriber
    {
        /** The delivery thread, never blocking: {@code push} is due to the client. */
        void push(Reply.Push push);
    }

    private final Map<Key, Set<Subscriber>> channels = new ConcurrentHashMap<>();
    private final Map<Key, Set<Subscriber>> patterns = new ConcurrentHashMap<>();

    /** The event loop: {@code s} receives what is published to {@code channel} (or matches {@code pattern}). */
    void subscribe(final Key name, final boolean pattern, final Subscriber s)
    {
        (pattern ? patterns : channels).computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet()).add(s);
    }

    void unsubscribe(final Key name, final boolean pattern, final Subscriber s)
    {
        (pattern ? patterns : channels).computeIfPresent(name, (k, set) ->
        {
            set.remove(s);
            return set.isEmpty() ? null : set;
        });
    }

    /** The delivery thread: hands {@code message} to the subscribers of {@code channel}; returns how many. */
    int publish(final byte[] channel, final byte[] message)
    {
        int receivers = 0;
        final Set<Subscriber> direct = channels.get(new Key(channel));
        if (direct != null)
        {
            final Reply.Push push = new Reply.Push(List.of(new Reply.Bulk(MESSAGE), new Reply.Bulk(channel),
                new Reply.Bulk(message)));
            for (final Subscriber s : direct)
            {
                s.push(push);
                receivers++;
            }
        }
        for (final Map.Entry<Key, Set<Subscriber>> e : patterns.entrySet())
        {
            final byte[] pattern = e.getKey().bytes();
            if (Glob.matches(pattern, channel))
            {
                final Reply.Push push = new Reply.Push(List.of(new Reply.Bulk(PMESSAGE), new Reply.Bulk(pattern),
                    new Reply.Bulk(channel), new Reply.Bulk(message)));
                for (final Subscriber s : e.getValue())
                {
                    s.push(push);
                    receivers++;
                }
            }
        }
        return receivers;
    }

    /** PUBSUB CHANNELS [pattern]: the channels with a subscriber here, matching {@code pattern} if not null. */
    List<Reply> channels(final byte[] pattern)
    {
        final List<Reply> names = new ArrayList<>();
        for (final Key k : channels.keySet())
        {
            if (pattern == null || Glob.matches(pattern, k.bytes()))
            {
                names.add(new Reply.Bulk(k.bytes()));
            }
        }
        return names;
    }

    /** Subscribers of {@code channel} here (not counting patterns), as PUBSUB NUMSUB counts them. */
    int subscribers(final byte[] channel)
    {
        final Set<Subscriber> set = channels.get(new Key(channel));
        return set == null ? 0 : set.size();
    }

    /** Patterns with a subscriber here (PUBSUB NUMPAT). */
    int patterns()
    {
        return patterns.size();
    }
}

package io.weft.examples.kv;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A connection's channels, patterns and shard channels ({@link PubSub}): SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE and their
 * UNSUBSCRIBEs answered as Redis answers them, one confirmation a name (counting the channels and patterns, or the
 * shard channels), and the messages published to them handed to the connection's event loop in the order the
 * delivery thread publishes them. A client that does not read its messages is disconnected once
 * {@value #LIMIT} bytes of them wait (Redis's {@code client-output-buffer-limit pubsub 32mb}): the delivery thread
 * never waits for a subscriber, and no subscriber can fill the member's heap.
 */
final class Subscriptions implements PubSub.Subscriber
{
    static final long LIMIT = 32L << 20;
    private static final Logger LOG = LoggerFactory.getLogger(Subscriptions.class);
    private static final byte[] PONG = "pong".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EMPTY = {};

    private final PubSub hub;
    private final Executor loop;
    private final Consumer<Reply.Push> deliver;
    private final Runnable overLimit;
    /** The event loop's: this connection's channels, patterns and shard channels, in the order subscribed. */
    private final Set<Key> channels = new LinkedHashSet<>();
    private final Set<Key> patterns = new LinkedHashSet<>();
    private final Set<Key> shards = new LinkedHashSet<>();
    /** Bytes of messages handed on and not written to the socket yet (any thread). */
    private final AtomicLong waiting = new AtomicLong();
    private final AtomicBoolean dropped = new AtomicBoolean();

    /**
     * @param deliver   the event loop: a message for the client, in order.
     * @param overLimit the event loop: the client left {@value #LIMIT} bytes of messages unread; told once.
     */
    Subscriptions(final PubSub hub, final Executor loop, final Consumer<Reply.Push> deliver, final Runnable overLimit)
    {
        this.hub = hub;
        this.loop = loop;
        this.deliver = deliver;
        this.overLimit = overLimit;
    }

    /** The {@code overLimit} of client {@code client} at {@code address}: logs why, then {@code close}s it. */
    static Runnable closing(final long client, final Object address, final Runnable close)
    {
        return () ->
        {
            LOG.warn("client {} at {}: a subscriber that leaves {} MiB of messages unread; closing the connection",
                client, address, LIMIT >> 20);
            close.run();
        };
    }

    /** The bytes a message takes while it waits, about. */
    static long size(final Reply.Push push)
    {
        long n = 32;
        for (final Reply item : push.items())
        {
            n += item instanceof Reply.Bulk b && b.bytes() != null ? b.bytes().length : 8;
        }
        return n;
    }

    @Override
    public void push(final Reply.Push push)
    {
        if (dropped.get())
        {
            return; // its connection is closing
        }
        try
        {
            if (waiting.addAndGet(size(push)) <= LIMIT)
            {
                loop.execute(() -> deliverIfSubscribed(push));
            }
            else if (dropped.compareAndSet(false, true))
            {
                loop.execute(overLimit);
            }
        }
        catch (final RejectedExecutionException ex)
        {
            dropped.set(true); // the server is closing: its connections go, and the other subscribers get theirs
        }
    }

    /**
     * The event loop: hands {@code push} on unless its channel or pattern was left since it was published, so that no
     * message of a channel follows UNSUBSCRIBE's confirmation (as in Redis, whose messages before it come before it).
     */
    private void deliverIfSubscribed(final Reply.Push push)
    {
        final PubSub.Kind kind = push.items().size() == 4 ? PubSub.Kind.PATTERN : // pmessage, pattern, channel, message
            Arrays.equals(((Reply.Bulk)push.items().getFirst()).bytes(), PubSub.Kind.SHARD.message) ?
            PubSub.Kind.SHARD : PubSub.Kind.CHANNEL;
        if (of(kind).contains(new Key(((Reply.Bulk)push.items().get(1)).bytes())))
        {
            deliver.accept(push);
        }
        else
        {
            written(push); // never written: it waits no more
        }
    }

    /** The event loop: a message was written to the socket. */
    void written(final Reply.Push push)
    {
        waiting.addAndGet(-size(push));
    }

    /** The channels subscribed. */
    int channels()
    {
        return channels.size();
    }

    /** The patterns subscribed. */
    int patterns()
    {
        return patterns.size();
    }

    /** The shard channels subscribed. */
    int shards()
    {
        return shards.size();
    }

    /** Whether anything is subscribed (RESP2 then takes the pub/sub commands only). */
    boolean active()
    {
        return !channels.isEmpty() || !patterns.isEmpty() || !shards.isEmpty();
    }

    /** SUBSCRIBE, PSUBSCRIBE or SSUBSCRIBE name [name ...]. */
    Reply subscribe(final List<byte[]> args)
    {
        final PubSub.Kind kind = PubSub.Kind.of(Commands.word(args.getFirst()));
        final List<Reply> confirmations = new ArrayList<>();
        for (final byte[] name : args.subList(1, args.size()))
        {
            final Key key = new Key(name);
            if (of(kind).add(key))
            {
                hub.subscribe(key, kind, this);
            }
            confirmations.add(confirmation(kind.subscribed, name, kind));
        }
        return new Reply.Several(confirmations);
    }

    /** UNSUBSCRIBE, PUNSUBSCRIBE or SUNSUBSCRIBE [name ...]: the names given, or every one subscribed. */
    Reply unsubscribe(final List<byte[]> args)
    {
        final PubSub.Kind kind = PubSub.Kind.of(Commands.word(args.getFirst()));
        final Set<Key> own = of(kind);
        final List<Key> names = new ArrayList<>();
        if (args.size() > 1)
        {
            args.subList(1, args.size()).forEach(a -> names.add(new Key(a)));
        }
        else
        {
            names.addAll(own);
        }
        if (names.isEmpty())
        {
            return new Reply.Several(List.of(confirmation(kind.unsubscribed, null, kind)));
        }
        final List<Reply> confirmations = new ArrayList<>();
        for (final Key key : names)
        {
            if (own.remove(key))
            {
                hub.unsubscribe(key, kind, this);
            }
            confirmations.add(confirmation(kind.unsubscribed, key.bytes(), kind));
        }
        return new Reply.Several(confirmations);
    }

    /** The event loop: RESET, or the connection closed. */
    void unsubscribeAll()
    {
        for (final PubSub.Kind kind : PubSub.Kind.values())
        {
            of(kind).forEach(k -> hub.unsubscribe(k, kind, this));
            of(kind).clear();
        }
    }

    private Set<Key> of(final PubSub.Kind kind)
    {
        return kind == PubSub.Kind.CHANNEL ? channels : kind == PubSub.Kind.PATTERN ? patterns : shards;
    }

    /** A confirmation counts the channels and patterns, or, of a shard channel, the shard channels (Redis 7.0). */
    private Reply confirmation(final String word, final byte[] name, final PubSub.Kind kind)
    {
        return new Reply.Push(List.of(Reply.Bulk.of(word), new Reply.Bulk(name),
            new Reply.Int(kind == PubSub.Kind.SHARD ? shards.size() : channels.size() + patterns.size())));
    }

    /** PING while subscribed in RESP2: {@code pong} and the argument, an array. */
    static Reply ping(final List<byte[]> args)
    {
        return args.size() > 2 ? Reply.wrongArity("ping") :
            new Reply.Array(List.of(new Reply.Bulk(PONG), new Reply.Bulk(args.size() == 2 ? args.get(1) : EMPTY)));
    }

    /**
     * PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT | SHARDCHANNELS [pattern] | SHARDNUMSUB [channel
     * ...]: this member's subscriptions. Their arity is checked before ({@link Subcommands}).
     */
    Reply pubsub(final List<byte[]> args)
    {
        return switch (Commands.word(args.get(1)))
        {
            case "CHANNELS", "SHARDCHANNELS" -> args.size() > 3 ? Subcommands.syntaxError("PUBSUB", args) :
                new Reply.Array(hub.channels(args.size() == 3 ? args.get(2) : null, kindOf(args)));
            case "NUMSUB", "SHARDNUMSUB" ->
            {
                final List<Reply> counts = new ArrayList<>();
                for (final byte[] channel : args.subList(2, args.size()))
                {
                    counts.add(new Reply.Bulk(channel));
                    counts.add(new Reply.Int(hub.subscribers(channel, kindOf(args))));
                }
                yield new Reply.Array(counts);
            }
            case "NUMPAT" -> new Reply.Int(hub.count(PubSub.Kind.PATTERN));
            case "HELP" -> Subcommands.help("PUBSUB");
            default -> Subcommands.unsupported("PUBSUB", args);
        };
    }

    private static PubSub.Kind kindOf(final List<byte[]> pubsub)
    {
        return Commands.word(pubsub.get(1)).startsWith("SHARD") ? PubSub.Kind.SHARD : PubSub.Kind.CHANNEL;
    }
}

package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.weft.examples.kv.StoreClient.args;
import static io.weft.examples.kv.StoreClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class KvPubSubTest
{
    private final PubSub hub = new PubSub();
    private final List<Reply.Push> received = new ArrayList<>();
    private int overLimit;
    private final Subscriptions client = new Subscriptions(hub, Runnable::run, received::add, () -> overLimit++);

    /** Channels and patterns are confirmed with the connection's count, published to, listed and left as Redis does. */
    @Test
    void aSubscriberReceivesWhatIsPublishedToItsChannelsAndPatterns()
    {
        same(new Reply.Several(List.of(confirm("subscribe", "a", 1), confirm("subscribe", "b", 2))),
            client.subscribe(args("SUBSCRIBE", "a", "b")));
        same(new Reply.Several(List.of(confirm("psubscribe", "n*", 3))),
            client.subscribe(args("PSUBSCRIBE", "n*")));
        final KvStore store = new KvStore();
        final PubSub own = store.pubSub;
        own.subscribe(new Key(bytes("a")), PubSub.Kind.CHANNEL, client);
        same(new Reply.Int(1), store.apply(args("PUBLISH", "a", "via the store"), 0));
        assertEquals(1, hub.publish(bytes("a"), bytes("x"), false));
        assertEquals(1, hub.publish(bytes("news"), bytes("y"), false));
        assertEquals(0, hub.publish(bytes("other"), bytes("z"), false));
        assertEquals(render(List.of(push("message", "a", "via the store"), push("message", "a", "x"),
            push("pmessage", "n*", "news", "y"))), render(received));

        same(new Reply.Array(List.of(bulk("a"), bulk("b"))), client.pubsub(args("PUBSUB", "CHANNELS")));
        same(new Reply.Array(List.of(bulk("b"))), client.pubsub(args("PUBSUB", "channels", "b*")));
        same(new Reply.Array(List.of(bulk("a"), new Reply.Int(1), bulk("zz"), new Reply.Int(0))),
            client.pubsub(args("PUBSUB", "NUMSUB", "a", "zz")));
        same(new Reply.Int(1), client.pubsub(args("PUBSUB", "NUMPAT")));

        same(new Reply.Several(List.of(confirm("unsubscribe", "a", 2), confirm("unsubscribe", "b", 1))),
            client.unsubscribe(args("UNSUBSCRIBE")));
        assertEquals(0, hub.publish(bytes("a"), bytes("gone"), false));
        same(new Reply.Several(List.of(confirm("punsubscribe", "n*", 0))),
            client.unsubscribe(args("PUNSUBSCRIBE")));
        same(new Reply.Several(List.of(new Reply.Push(List.of(bulk("unsubscribe"), Reply.NIL, new Reply.Int(0))))),
            client.unsubscribe(args("UNSUBSCRIBE")));
        assertEquals(0, hub.publish(bytes("news"), bytes("gone"), false));
        same(new Reply.Array(List.of()), client.pubsub(args("PUBSUB", "SHARDCHANNELS")));
        same(new Reply.Array(List.of(bulk("a"), new Reply.Int(0))), client.pubsub(args("PUBSUB", "SHARDNUMSUB", "a")));
        assertEquals(0, hub.publish(bytes("a"), bytes("not a shard channel's"), true));
        same(Reply.error("ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP."),
            client.pubsub(args("PUBSUB", "channels", "a", "b")));
    }

    /**
     * Shard channels are channels of their own, counted apart in their confirmations, as redis-server 7.0.15 answers:
     * neither PUBLISH nor a pattern reaches them, and SPUBLISH reaches only them.
     */
    @Test
    void shardChannelsAreApartFromChannelsAndPatterns()
    {
        same(new Reply.Several(List.of(confirm("ssubscribe", "s1", 1), confirm("ssubscribe", "s2", 2))),
            client.subscribe(args("SSUBSCRIBE", "s1", "s2")));
        same(new Reply.Several(List.of(confirm("subscribe", "c1", 1))), client.subscribe(args("subscribe", "c1")));
        same(new Reply.Several(List.of(confirm("psubscribe", "*", 2))), client.subscribe(args("PSUBSCRIBE", "*")));
        same(new Reply.Several(List.of(confirm("ssubscribe", "s3", 3))), client.subscribe(args("ssubscribe", "s3")));
        assertEquals(3, client.shards());
        final KvStore store = new KvStore();
        store.pubSub.subscribe(new Key(bytes("s1")), PubSub.Kind.SHARD, client);
        same(new Reply.Int(1), store.apply(args("SPUBLISH", "s1", "via the store"), 0));
        same(Reply.error("ERR wrong number of arguments for 'spublish' command"),
            store.apply(args("SPUBLISH", "s1"), 0));
        assertEquals(1, hub.publish(bytes("s1"), bytes("hello"), true));
        assertEquals(1, hub.publish(bytes("s1"), bytes("plain"), false), "the pattern's, not the shard channel's");
        assertEquals(0, hub.publish(bytes("c1"), bytes("x"), true), "a channel is no shard channel");
        assertEquals(render(List.of(push("smessage", "s1", "via the store"), push("smessage", "s1", "hello"),
            push("pmessage", "*", "s1", "plain"))), render(received));

        assertEquals(List.of("s1", "s2", "s3"), sorted(client.pubsub(args("PUBSUB", "SHARDCHANNELS"))));
        assertEquals(List.of("s1", "s2"), sorted(client.pubsub(args("PUBSUB", "shardchannels", "s[12]"))));
        same(new Reply.Array(List.of(bulk("s1"), new Reply.Int(1), bulk("nope"), new Reply.Int(0))),
            client.pubsub(args("PUBSUB", "SHARDNUMSUB", "s1", "nope")));
        same(new Reply.Array(List.of(bulk("c1"))), client.pubsub(args("PUBSUB", "CHANNELS")));
        same(new Reply.Array(List.of(bulk("s1"), new Reply.Int(0))), client.pubsub(args("PUBSUB", "NUMSUB", "s1")));

        same(new Reply.Several(List.of(confirm("sunsubscribe", "s1", 2), confirm("sunsubscribe", "zz", 2))),
            client.unsubscribe(args("SUNSUBSCRIBE", "s1", "zz")));
        same(new Reply.Several(List.of(confirm("sunsubscribe", "s2", 1), confirm("sunsubscribe", "s3", 0))),
            client.unsubscribe(args("SUNSUBSCRIBE")));
        same(new Reply.Several(List.of(new Reply.Push(List.of(bulk("sunsubscribe"), Reply.NIL, new Reply.Int(0))))),
            client.unsubscribe(args("SUNSUBSCRIBE")));
        assertTrue(client.active(), "the channel and the pattern are left");
        same(new Reply.Several(List.of(confirm("unsubscribe", "c1", 1))), client.unsubscribe(args("UNSUBSCRIBE")));
        client.subscribe(args("SSUBSCRIBE", "s4"));
        client.unsubscribeAll();
        assertFalse(client.active());
        assertEquals(0, hub.publish(bytes("s4"), bytes("gone"), true));
    }

    /**
     * A script publishes to shard channels from KvWire {@value PubSub#SHARD_SINCE} on (a log's older batch replays
     * SPUBLISH as an unknown command) and may not subscribe, as Redis answers.
     */
    @Test
    void scriptsPublishToShardChannelsFromTheirVersion()
    {
        client.subscribe(args("SSUBSCRIBE", "s"));
        final KvStore store = new KvStore();
        store.pubSub.subscribe(new Key(bytes("s")), PubSub.Kind.SHARD, client);
        same(new Reply.Int(1), store.apply(args("EVAL", "return redis.call('spublish', 's', 'm')", "0"), 0));
        assertEquals(render(List.of(push("smessage", "s", "m"))), render(received));
        assertTrue(StoreClient.text(store.apply(args("EVAL", "return redis.pcall('SSUBSCRIBE', 's')", "0"), 0))
            .startsWith("ERR This Redis command is not allowed from script"));
        final KvStore older = new KvStore();
        older.versions().writing(1, (byte)(PubSub.SHARD_SINCE - 1));
        assertTrue(StoreClient.text(older.apply(args("EVAL", "return redis.call('SPUBLISH', 's', 'm')", "0"), 1))
            .startsWith("ERR Unknown Redis command called from script"));
    }

    /** A subscriber that leaves its messages unwritten is told off once past the limit; nothing more is queued. */
    @Test
    void aSubscriberThatDoesNotReadIsDroppedPastTheLimit()
    {
        client.subscribe(args("SUBSCRIBE", "big"));
        final byte[] mebibyte = new byte[1 << 20];
        for (int i = 0; i < 40; i++)
        {
            hub.publish(bytes("big"), mebibyte, false);
        }
        assertEquals(1, overLimit);
        assertEquals(31, received.size(), "32 MiB of messages and their headers");
        received.forEach(client::written); // written out: room again
        hub.publish(bytes("big"), mebibyte, false);
        assertEquals(31, received.size(), "a dropped subscriber gets nothing more; its connection is closing");
    }

    /** A message published before UNSUBSCRIBE but handed on after it does not follow the confirmation. */
    @Test
    void noMessageOfAChannelFollowsItsUnsubscribe()
    {
        final List<Runnable> loop = new ArrayList<>();
        final Subscriptions later = new Subscriptions(hub, loop::add, received::add, () -> overLimit++);
        later.subscribe(args("SUBSCRIBE", "c"));
        later.subscribe(args("PSUBSCRIBE", "c*"));
        hub.publish(bytes("c"), bytes("before"), false);
        later.unsubscribe(args("UNSUBSCRIBE", "c"));
        loop.forEach(Runnable::run); // the message's hand-over, after UNSUBSCRIBE on the event loop
        assertEquals(render(List.of(push("pmessage", "c*", "c", "before"))), render(received),
            "the pattern still holds; the channel's message is dropped");
        later.unsubscribe(args("PUNSUBSCRIBE"));
        hub.publish(bytes("c"), bytes("after"), false);
        assertEquals(2, loop.size(), "nobody subscribed any more: nothing more handed on");
    }

    /** A subscriber whose server is closing (its event loop refuses work) keeps no other from its message. */
    @Test
    void aSubscriberOfAClosingServerKeepsNoOtherFromItsMessages()
    {
        final Subscriptions closing = new Subscriptions(hub, task ->
        {
            throw new java.util.concurrent.RejectedExecutionException("event executor terminated");
        }, push -> { }, () -> { });
        closing.subscribe(args("SUBSCRIBE", "c"));
        client.subscribe(args("SUBSCRIBE", "c"));
        hub.publish(bytes("c"), bytes("m"), false);
        hub.publish(bytes("c"), bytes("n"), false);
        assertEquals(render(List.of(push("message", "c", "m"), push("message", "c", "n"))), render(received));
    }

    private static Reply confirm(final String kind, final String name, final long count)
    {
        return new Reply.Push(List.of(bulk(kind), bulk(name), new Reply.Int(count)));
    }

    private static Reply.Push push(final String... items)
    {
        return new Reply.Push(List.of(items).stream().map(i -> (Reply)bulk(i)).toList());
    }

    /** The names of a PUBSUB listing, sorted: a member lists them in its map's order, as Redis in its dict's. */
    private static List<String> sorted(final Reply listing)
    {
        return ((Reply.Array)listing).items().stream().map(StoreClient::text).sorted().toList();
    }

    private static Reply.Bulk bulk(final String s)
    {
        return Reply.Bulk.of(s);
    }

    private static void same(final Reply expected, final Reply actual)
    {
        assertEquals(render(List.of(expected)), render(List.of(actual)));
    }

    /** Replies as RESP3 text, which shows every type. */
    private static String render(final List<? extends Reply> replies)
    {
        final io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.buffer();
        replies.forEach(r -> RespWriter.write(out, r, true));
        return out.toString(StandardCharsets.UTF_8);
    }
}

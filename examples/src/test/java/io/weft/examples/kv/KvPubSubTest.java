package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.weft.examples.kv.StoreClient.args;
import static io.weft.examples.kv.StoreClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
            client.subscribe(args("SUBSCRIBE", "a", "b"), false));
        same(new Reply.Several(List.of(confirm("psubscribe", "n*", 3))),
            client.subscribe(args("PSUBSCRIBE", "n*"), true));
        final KvStore store = new KvStore();
        final PubSub own = store.pubSub;
        own.subscribe(new Key(bytes("a")), false, client);
        same(new Reply.Int(1), store.apply(args("PUBLISH", "a", "via the store"), 0));
        assertEquals(1, hub.publish(bytes("a"), bytes("x")));
        assertEquals(1, hub.publish(bytes("news"), bytes("y")));
        assertEquals(0, hub.publish(bytes("other"), bytes("z")));
        assertEquals(render(List.of(push("message", "a", "via the store"), push("message", "a", "x"),
            push("pmessage", "n*", "news", "y"))), render(received));

        same(new Reply.Array(List.of(bulk("a"), bulk("b"))), client.pubsub(args("PUBSUB", "CHANNELS")));
        same(new Reply.Array(List.of(bulk("b"))), client.pubsub(args("PUBSUB", "channels", "b*")));
        same(new Reply.Array(List.of(bulk("a"), new Reply.Int(1), bulk("zz"), new Reply.Int(0))),
            client.pubsub(args("PUBSUB", "NUMSUB", "a", "zz")));
        same(new Reply.Int(1), client.pubsub(args("PUBSUB", "NUMPAT")));

        same(new Reply.Several(List.of(confirm("unsubscribe", "a", 2), confirm("unsubscribe", "b", 1))),
            client.unsubscribe(args("UNSUBSCRIBE"), false));
        assertEquals(0, hub.publish(bytes("a"), bytes("gone")));
        same(new Reply.Several(List.of(confirm("punsubscribe", "n*", 0))),
            client.unsubscribe(args("PUNSUBSCRIBE"), true));
        same(new Reply.Several(List.of(new Reply.Push(List.of(bulk("unsubscribe"), Reply.NIL, new Reply.Int(0))))),
            client.unsubscribe(args("UNSUBSCRIBE"), false));
        assertEquals(0, hub.publish(bytes("news"), bytes("gone")));
        same(new Reply.Array(List.of()), client.pubsub(args("PUBSUB", "SHARDCHANNELS")));
        same(new Reply.Array(List.of(bulk("a"), new Reply.Int(0))), client.pubsub(args("PUBSUB", "SHARDNUMSUB", "a")));
        same(Reply.error("ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP."),
            client.pubsub(args("PUBSUB", "channels", "a", "b")));
    }

    /** A subscriber that leaves its messages unwritten is told off once past the limit; nothing more is queued. */
    @Test
    void aSubscriberThatDoesNotReadIsDroppedPastTheLimit()
    {
        client.subscribe(args("SUBSCRIBE", "big"), false);
        final byte[] mebibyte = new byte[1 << 20];
        for (int i = 0; i < 40; i++)
        {
            hub.publish(bytes("big"), mebibyte);
        }
        assertEquals(1, overLimit);
        assertEquals(31, received.size(), "32 MiB of messages and their headers");
        received.forEach(client::written); // written out: room again
        hub.publish(bytes("big"), mebibyte);
        assertEquals(31, received.size(), "a dropped subscriber gets nothing more; its connection is closing");
    }

    /** A message published before UNSUBSCRIBE but handed on after it does not follow the confirmation. */
    @Test
    void noMessageOfAChannelFollowsItsUnsubscribe()
    {
        final List<Runnable> loop = new ArrayList<>();
        final Subscriptions later = new Subscriptions(hub, loop::add, received::add, () -> overLimit++);
        later.subscribe(args("SUBSCRIBE", "c"), false);
        later.subscribe(args("PSUBSCRIBE", "c*"), true);
        hub.publish(bytes("c"), bytes("before"));
        later.unsubscribe(args("UNSUBSCRIBE", "c"), false);
        loop.forEach(Runnable::run); // the message's hand-over, after UNSUBSCRIBE on the event loop
        assertEquals(render(List.of(push("pmessage", "c*", "c", "before"))), render(received),
            "the pattern still holds; the channel's message is dropped");
        later.unsubscribe(args("PUNSUBSCRIBE"), true);
        hub.publish(bytes("c"), bytes("after"));
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
        closing.subscribe(args("SUBSCRIBE", "c"), false);
        client.subscribe(args("SUBSCRIBE", "c"), false);
        hub.publish(bytes("c"), bytes("m"));
        hub.publish(bytes("c"), bytes("n"));
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

package io.weft.examples.pubsub;

import io.weft.config.ConfigLoader;
import io.weft.config.WeftConfig;
import io.weft.dds.Codecs;
import io.weft.dds.DataWriter;
import io.weft.dds.DomainParticipant;
import io.weft.dds.Topic;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The smallest complete DDS program: run one copy per member of the domain file ({@code ./weft pubsub} starts
 * three). Each writes five greetings to the topic {@code greetings} (atomic multicast: every member reads all of
 * them in the same order) and prints every greeting it reads.
 *
 * <pre>
 *   java ... io.weft.examples.pubsub.PubSubExample domain.conf 0    # and 1, and 2, each in its own process
 * </pre>
 */
public final class PubSubExample
{
    /** A sample: plain data, encoded as JSON by Jackson. */
    public record Greeting(int from, int n, String text)
    {
    }

    private PubSubExample()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int me = Integer.parseInt(args[1]);
        final WeftConfig config = ConfigLoader.load(Path.of(args[0]), Map.of("weft.member.id", me));
        final int expected = 5 * config.group().size();
        final CountDownLatch read = new CountDownLatch(expected);
        try (DomainParticipant participant = DomainParticipant.builder(config).create())
        {
            final Topic<Greeting> greetings = participant.topic("greetings", Codecs.json(Greeting.class));
            participant.createReader(greetings, (greeting, info) ->
            {
                System.out.printf("member %d read #%d from member %d: %s%n", me, info.position(), greeting.from(),
                    greeting.text());
                read.countDown();
            });
            participant.enable(false); // the reader exists first: it reads from the first greeting on
            final DataWriter<Greeting> writer = participant.createWriter(greetings);
            for (int n = 0; n < 5; n++)
            {
                writer.write(new Greeting(me, n, "hello #" + n + " from member " + me));
            }
            final boolean all = read.await(30, TimeUnit.SECONDS);
            participant.finish(Duration.ofSeconds(10)); // the others still need this member until they read all
            System.out.printf("member %d: %s%n", me, all ? "read all " + expected + " greetings" :
                "read only " + (expected - read.getCount()) + " of " + expected + " greetings");
            System.exit(all ? 0 : 1);
        }
    }
}

package com.example.gettingstarted;

import io.weft.config.ConfigLoader;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.membership.Subgroup;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * One member of a three-member group: sends 1,000 messages to the subgroup "all", delivers everyone's 3,000 in the
 * group's one order, and prints a digest of that order: the same at every member.
 */
public final class ThreeMembers
{
    private static final int MESSAGES = 1000;

    public static void main(final String[] args) throws Exception
    {
        if (args.length != 2)
        {
            System.err.println("usage: java -jar getting-started.jar CONFIG MEMBER-ID");
            System.exit(2);
        }
        final int me = Integer.parseInt(args[1]);
        final WeftConfig config = ConfigLoader.load(Path.of(args[0]), Map.of("weft.member.id", me));
        final CRC32C order = new CRC32C();
        final long[] delivered = new long[1];
        final byte[] bytes = new byte[1024];
        try (Group group = Group.builder(config)
            .onDelivery("all", m -> // on the predicate thread, in the same order at every member
            {
                m.copyTo(bytes, 0); // the message is a view of its slot, valid during the callback
                order.update(m.senderId());
                order.update(bytes, 0, m.length());
                delivered[0]++;
            })
            .open()) // returns once every member is connected
        {
            final Subgroup all = group.subgroup("all");
            for (int i = 0; i < MESSAGES; i++)
            {
                all.send(("member " + me + " says " + i).getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10));
            }
            group.finish(Duration.ofSeconds(30)); // every member's messages delivered here, and the others done too
        }
        System.out.printf("member %d delivered %d messages, order digest %s%n", me, delivered[0],
            HexFormat.of().toHexDigits((int)order.getValue()));
    }
}

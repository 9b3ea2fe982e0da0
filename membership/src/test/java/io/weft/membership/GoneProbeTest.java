package io.weft.membership;

import io.weft.config.GroupConfig;
import io.weft.config.MemberAddress;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe against real sockets on loopback: a listening control port is alive, a refusing one is gone. */
@Timeout(30)
class GoneProbeTest
{
    @Test
    void aMemberWhoseControlPortRefusesIsGoneButAJoinerIsNeverProbed() throws Exception
    {
        final List<Integer> ports = TestGroups.freePorts(6);
        final GroupConfig table = new GroupConfig("probe", List.of(
            new MemberAddress(0, "127.0.0.1", ports.get(0), ports.get(1)),
            new MemberAddress(1, "127.0.0.1", ports.get(2), ports.get(3)),
            new MemberAddress(2, "127.0.0.1", ports.get(4), ports.get(5))));
        try (ServerSocket alive = new ServerSocket())
        {
            alive.bind(new InetSocketAddress("127.0.0.1", ports.get(1))); // member 0 listens, 1 and 2 do not
            final GoneProbe probe = new GoneProbe(table, new View(1, List.of(0, 1, 2), List.of(2), List.of(), List.of()));
            assertTrue(probe.test(1), "member 1's control port refuses: gone at the first ask");
            assertFalse(probe.test(1), "asked again within one interval: not probed again");
            for (int i = 0; i < 5; i++)
            {
                assertFalse(probe.test(0), "member 0 listens on its control port");
                assertFalse(probe.test(2), "member 2 joins in this view: never probed");
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(GoneProbe.INTERVAL_NANOS) + 10);
            }
        }
        assertTrue(GoneProbe.refuses(table.members().get(0)), "once member 0 closes its port, it refuses");
    }

    /**
     * open() refuses a view 0 only where a member of the group answers: another program on a member's control port (a
     * proxy that accepts every connection, which is how this host answered an address outside it) used to make a
     * member that started first refuse to start, telling it the group ran already.
     */
    @Test
    void onlyAMemberOfTheGroupAnswersThatItRuns() throws Exception
    {
        final List<Integer> ports = TestGroups.freePorts(2);
        final MemberAddress m = new MemberAddress(1, "127.0.0.1", ports.get(0), ports.get(1));
        for (final byte[] answer : List.of(new byte[0], "HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(),
            new byte[] {0x57, 0x46, 0x43, 0x54, ControlWire.VERSION, ControlWire.PROBED, 0, 0, 0, 5, 'o', 't', 'h', 'e',
                'r'}))
        {
            try (ServerSocket stranger = new ServerSocket())
            {
                stranger.bind(new InetSocketAddress("127.0.0.1", ports.get(1)));
                final Thread answering = Thread.ofPlatform().daemon(true).start(() ->
                {
                    try (java.net.Socket s = stranger.accept())
                    {
                        s.getOutputStream().write(answer); // nothing, an HTTP error, another group's answer
                        s.getInputStream().read(new byte[64]);
                    }
                    catch (final java.io.IOException ex)
                    {
                        // the probe is gone
                    }
                });
                assertFalse(GoneProbe.listens(m, "probe"), new String(answer) + " is no member of group probe");
                assertFalse(GoneProbe.refuses(m), "the port accepts: nothing proves the member gone");
                answering.join(5_000);
            }
        }
    }
}

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
}

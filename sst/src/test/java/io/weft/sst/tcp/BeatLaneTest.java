package io.weft.sst.tcp;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A beat alone, with no push on the connection, is a sign of life at its target and at no one else; a table that
 * is closed sends none. (Strangers' datagrams: TcpBadInputTest; beats on a stalled link: FailureDetectionTest.)
 */
@Timeout(60)
class BeatLaneTest
{
    private static final SstLayout LAYOUT = SstLayout.builder().counter("count").build();

    @Test
    void aBeatIsHeardByItsTargetWithoutAnyPush() throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.TCP, 3);
        try (Members ignored = new Members(config))
        {
            final Sst[] ssts = Async.openAll(config, member -> Sst.open(member, LAYOUT)).toArray(new Sst[0]);
            try
            {
                final long before0 = ssts[0].lastHeardNanos(1);
                final long before2 = ssts[2].lastHeardNanos(1);
                Await.until(() ->
                {
                    ssts[1].beat(new int[] {0});
                    return ssts[0].lastHeardNanos(1) != before0;
                }, "member 0 to hear member 1's beat");
                assertTrue(ssts[0].lastHeardNanos(1) > System.nanoTime() - TimeUnit.SECONDS.toNanos(20));
                assertEquals(before2, ssts[2].lastHeardNanos(1), "member 2 was not a target of the beat");
                assertEquals(-1, ssts[2].counter(1, LAYOUT.column("count")), "a beat never writes the table");
            }
            finally
            {
                for (final Sst s : ssts)
                {
                    s.close();
                }
            }
        }
    }
}

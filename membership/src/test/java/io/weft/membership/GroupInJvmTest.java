package io.weft.membership;

import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fast in-JVM coverage of the multicast; the multi-process proofs are in examples. */
@Timeout(120)
class GroupInJvmTest
{
    static List<Group> openAll(final WeftConfig config, final List<List<long[]>> logs) throws Exception
    {
        final List<GroupBuilder> builders = new ArrayList<>();
        for (int i = 0; i < config.group().size(); i++)
        {
            final List<long[]> log = new ArrayList<>();
            logs.add(log);
            builders.add(Group.builder(config.forMember(i)).onDelivery("all", m ->
            {
                synchronized (log)
                {
                    log.add(new long[] {m.senderId(), m.index(), m.seq(), m.byteAt(0),
                        ByteBuffer.wrap(m.bytes()).getLong() & 0x00ff_ffff_ffff_ffffL});
                }
            }));
        }
        return InJvmGroups.open(builders);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void threeSendersDeliverOneIdenticalOrder(final boolean spindle) throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .smc(spindle ? SmcConfig.SPINDLE : SmcConfig.BASELINE).build();
        final int perSender = 5000;
        final List<List<long[]>> logs = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            final List<Group> groups = openAll(config, logs);
            try
            {
                final List<Thread> senders = new ArrayList<>();
                for (final Group g : groups)
                {
                    senders.add(Thread.ofPlatform().start(() ->
                    {
                        final byte[] payload = new byte[8];
                        for (int i = 0; i < perSender; i++)
                        {
                            ByteBuffer.wrap(payload).putLong(i);
                            payload[0] = (byte)g.memberId();
                            // a waiting send parks while back-pressured: three spinning senders would starve the
                            // predicate threads on two cores (the baseline row took 37 s instead of 2)
                            if (g.subgroup("all").send(payload, Duration.ofSeconds(30)) < 0)
                            {
                                throw new IllegalStateException("member " + g.memberId() + ": message " + i +
                                    " back-pressured for 30 s");
                            }
                        }
                    }));
                }
                for (final Thread t : senders)
                {
                    t.join(60_000);
                }
                for (final List<long[]> log : logs)
                {
                    InJvmGroups.await(() ->
                    {
                        synchronized (log)
                        {
                            return log.size() >= 3 * perSender;
                        }
                    }, "all delivered: " + log.size());
                }
                for (int m = 1; m < 3; m++)
                {
                    assertEquals(logs.get(0).size(), logs.get(m).size());
                    for (int i = 0; i < logs.get(0).size(); i++)
                    {
                        final long[] a = logs.get(0).get(i);
                        final long[] b = logs.get(m).get(i);
                        assertTrue(java.util.Arrays.equals(a, b), "member " + m + " differs at " + i);
                    }
                }
                final long[] next = new long[3];
                final long[] lastIndex = {-1, -1, -1};
                for (final long[] e : logs.get(0))
                {
                    assertEquals(next[(int)e[0]]++, e[4], "FIFO per sender, nothing lost or repeated");
                    assertTrue(e[1] > lastIndex[(int)e[0]], "indices rise (nulls take indices too)");
                    lastIndex[(int)e[0]] = e[1];
                    assertEquals(e[0], e[3], "payload names its sender");
                }
                System.out.printf("spindle=%b writes=%d nulls=%d%n", spindle, groups.get(0).writesPosted(),
                    groups.get(0).subgroup("all").nullsSent());
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }
}

package io.weft.membership;

import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sends issued while the view changes either wait and go into the next view or fail fast with
 * {@link ViewChangeException}; either way every send that returned an index is delivered exactly once, in order,
 * and none that failed is. A member leaves abruptly (closed) while another streams as fast as it can.
 */
@Timeout(120)
class ViewChangeSendsTest
{
    @ParameterizedTest
    @EnumSource(ViewChangeSends.class)
    void sendsNeverVanishAcrossAViewChange(final ViewChangeSends mode) throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .membership(new MembershipConfig(List.of(), null, mode, Duration.ofSeconds(10))).build();
        final List<Long> received = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                final GroupBuilder b = Group.builder(config.forMember(i));
                if (i == 1)
                {
                    b.onDelivery("all", m ->
                    {
                        if (m.senderId() == 0)
                        {
                            synchronized (received)
                            {
                                received.add(ByteBuffer.wrap(m.bytes()).getLong());
                            }
                        }
                    });
                }
                builders.add(b);
            }
            final List<Group> groups = InJvmGroups.open(builders);
            final AtomicLong sentOk = new AtomicLong();
            final AtomicLong refused = new AtomicLong();
            final Thread sender = Thread.ofPlatform().start(() ->
            {
                final byte[] payload = new byte[8];
                final Subgroup all = groups.get(0).subgroup("all");
                while (!Thread.currentThread().isInterrupted())
                {
                    ByteBuffer.wrap(payload).putLong(sentOk.get());
                    try
                    {
                        if (all.send(payload, Duration.ofMillis(50)) >= 0)
                        {
                            sentOk.incrementAndGet();
                        }
                    }
                    catch (final ViewChangeException ex)
                    {
                        refused.incrementAndGet();
                    }
                }
            });
            try
            {
                InJvmGroups.await(() -> sentOk.get() > 2000, "streaming");
                groups.get(2).close(); // abrupt: the others see a failure and change view
                InJvmGroups.await(() -> groups.get(0).view().id() == 1 && groups.get(1).view().id() == 1, "view 1");
                final long at = sentOk.get();
                InJvmGroups.await(() -> sentOk.get() > at + 2000, "streaming in view 1");
            }
            finally
            {
                sender.interrupt();
                sender.join(10_000);
            }
            final long total = sentOk.get();
            InJvmGroups.await(() ->
            {
                synchronized (received)
                {
                    return received.size() >= total;
                }
            }, "member 1 delivered all " + total);
            synchronized (received)
            {
                assertEquals(total, received.size(), "exactly the successful sends are delivered");
                for (int i = 0; i < received.size(); i++)
                {
                    assertEquals(i, received.get(i), "in order, no gap, no duplicate");
                }
            }
            assertEquals(List.of(0, 1), groups.get(0).view().members());
            assertTrue(mode == ViewChangeSends.FAIL || refused.get() == 0, "wait mode never fails a send");
            System.out.printf("%s: %d sends delivered once each, %d refused with ViewChangeException%n", mode, total,
                refused.get());
            groups.get(0).close();
            groups.get(1).close();
        }
    }
}

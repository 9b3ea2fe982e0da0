package io.weft.membership;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admitting member cuts the application's state for a joiner on its membership thread. A cut that throws (here
 * for a join request the application cannot read) fails that join and nothing else: it used to stop the admitting
 * member, and a joiner that kept retrying then stopped one leader after another.
 */
@Timeout(120)
class FailedCaptureTest
{
    @Test
    void aCaptureThatThrowsFailsTheJoinNotTheLeader() throws Exception
    {
        final WeftConfig config = InJvmGroups.joinable(TransportKind.TCP, Duration.ofSeconds(10)).build();
        final AtomicLong delivered = new AtomicLong();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 2; i++)
            {
                builders.add(Group.builder(config.forMember(i)).stateTransfer(new Picky())
                    .onDelivery("all", m -> delivered.incrementAndGet()));
            }
            final List<Group> groups = new ArrayList<>(InJvmGroups.open(builders));
            try
            {
                final GroupJoinException ex = assertThrows(GroupJoinException.class, () ->
                    Group.builder(config.forMember(2)).stateTransfer(new Picky("version 9")).join());
                assertTrue(ex.getMessage().contains("could not receive its state"), ex.getMessage());
                for (int m = 0; m < 2; m++)
                {
                    final Group g = groups.get(m);
                    InJvmGroups.await(() -> g.view().members().equals(List.of(0, 1)) && g.view().id() == 2,
                        "member " + m + " goes on in view 2 [0, 1], the joiner admitted in view 1 removed");
                }
                final byte[] payload = new byte[8];
                for (int i = 0; i < 50; i++)
                {
                    assertTrue(groups.get(0).subgroup("all").send(payload, Duration.ofSeconds(20)) >= 0, "send " + i);
                }
                InJvmGroups.await(() -> delivered.get() == 100, "both members deliver 50: " + delivered);
                assertEquals(List.of(0, 1), groups.get(0).view().members(), "the leader is still a member");
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    /** A state whose capture reads the join request and refuses one it does not know. */
    private static final class Picky implements StateTransfer
    {
        private final byte[] request;

        Picky()
        {
            this("version 1");
        }

        Picky(final String request)
        {
            this.request = request.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public byte[] joinRequest()
        {
            return request;
        }

        @Override
        public byte[] snapshot(final byte[] joinRequest)
        {
            final String asked = new String(joinRequest, java.nio.charset.StandardCharsets.UTF_8);
            if (!asked.equals("version 1"))
            {
                throw new IllegalArgumentException("unknown join request '" + asked + "'");
            }
            return new byte[16];
        }

        @Override
        public byte[] snapshot()
        {
            return new byte[16];
        }

        @Override
        public void install(final byte[] state)
        {
        }
    }
}

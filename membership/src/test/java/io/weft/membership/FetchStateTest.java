package io.weft.membership;

import io.weft.config.MembershipConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member of the view fetches part of another member's state outside a view change ({@link Group#fetchState}), over
 * the authenticated control channel, in chunks; what cannot be served is refused with the reason, and the group goes
 * on.
 */
@Timeout(120)
class FetchStateTest
{
    private static final String SECRET = "fetch-state-test-secret";

    /** A state of 3 MiB and a bit (several chunks) per member, each byte from the member id and the request. */
    private static final class Numbered implements StateTransfer
    {
        private final int me;
        private final ConcurrentLinkedQueue<byte[]> installed = new ConcurrentLinkedQueue<>();

        Numbered(final int me)
        {
            this.me = me;
        }

        @Override
        public Snapshot captureNow(final byte[] request)
        {
            final String asked = new String(request, StandardCharsets.UTF_8);
            if (asked.equals("refuse"))
            {
                throw new IllegalStateException("member " + me + " serves no such request");
            }
            return out -> out.write(state(me, asked));
        }

        @Override
        public void install(final InputStream state) throws IOException
        {
            installed.add(state.readAllBytes());
        }

        @Override
        public byte[] snapshot()
        {
            return new byte[0];
        }

        @Override
        public void install(final byte[] state)
        {
            installed.add(state);
        }
    }

    private static byte[] state(final int member, final String request)
    {
        final byte[] b = new byte[(3 << 20) + 17];
        Arrays.fill(b, (byte)(member * 31 + request.hashCode()));
        b[b.length - 1] = (byte)request.length();
        return b;
    }

    @Test
    void aMemberFetchesAnothersStateAndWhatCannotBeServedIsRefused() throws Exception
    {
        final WeftConfig config = InJvmGroups.oneSubgroup(TransportKind.TCP, 3, SECRET).build();
        try (Members ignored = new Members(config))
        {
            final List<Numbered> states = List.of(new Numbered(0), new Numbered(1), new Numbered(2));
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                builders.add(Group.builder(config.forMember(i)).onDelivery("all", m -> { })
                    .stateTransfer(states.get(i)));
            }
            final List<Group> groups = InJvmGroups.open(builders);
            try
            {
                groups.get(1).fetchState(0, "logs".getBytes(StandardCharsets.UTF_8));
                groups.get(2).fetchState(1, "other".getBytes(StandardCharsets.UTF_8));
                assertEquals(1, states.get(1).installed.size());
                assertArrayEquals(state(0, "logs"), states.get(1).installed.peek(), "member 0's state for 'logs'");
                assertArrayEquals(state(1, "other"), states.get(2).installed.peek(), "member 1's state for 'other'");

                final IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> groups.get(1).fetchState(2, "refuse".getBytes(StandardCharsets.UTF_8)));
                assertTrue(refused.getMessage().contains("member 2 refused the fetch") &&
                    refused.getMessage().contains("member 2 serves no such request"), refused.getMessage());
                final IllegalStateException self = assertThrows(IllegalStateException.class,
                    () -> groups.get(1).fetchState(1, new byte[0]));
                assertTrue(self.getMessage().contains("not another member"), self.getMessage());

                assertEquals(0, groups.get(0).view().id(), "nothing changed the view");
                assertTrue(groups.get(2).subgroup("all").send(new byte[8], Duration.ofSeconds(20)) >= 0);
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }

    @Test
    void aFetcherWithAnotherSecretOrOutsideTheViewOrFromAStateThatServesNoFetchIsRefused() throws Exception
    {
        final WeftConfig.Builder builder = InJvmGroups.oneSubgroup(TransportKind.TCP, 3, SECRET);
        final WeftConfig config = builder.membership(new MembershipConfig(List.of(0, 1), SECRET, ViewChangeSends.WAIT,
            Duration.ofSeconds(10))).build(); // member 2 is in the address book, not in the view
        final WeftConfig impostor = builder.membership(new MembershipConfig(List.of(0, 1), "another-secret-of-16+",
            ViewChangeSends.WAIT, Duration.ofSeconds(10))).build();
        try (Members ignored = new Members(config))
        {
            final Numbered fetching = new Numbered(1);
            final List<Group> groups = InJvmGroups.open(List.of(
                Group.builder(config.forMember(0)).onDelivery("all", m -> { }).stateTransfer(StateTransfer.NONE),
                Group.builder(config.forMember(1)).onDelivery("all", m -> { }).stateTransfer(fetching)));
            try
            {
                final IllegalStateException secret = assertThrows(IllegalStateException.class,
                    () -> Joiner.fetch(impostor.forMember(1), 0, new byte[0], fetching::install));
                assertTrue(secret.getMessage().contains("secrets differ"), secret.getMessage());
                final IllegalStateException outside = assertThrows(IllegalStateException.class,
                    () -> Joiner.fetch(config.forMember(2), 0, new byte[0], fetching::install));
                assertTrue(outside.getMessage().contains("member 2 is not in view 0") &&
                    outside.getMessage().contains("only a member of the view fetches state"), outside.getMessage());
                final IllegalStateException optedOut = assertThrows(IllegalStateException.class,
                    () -> groups.get(1).fetchState(0, new byte[0]));
                assertTrue(optedOut.getMessage().contains("does not serve fetches"), optedOut.getMessage());
                assertEquals(0, fetching.installed.size(), "nothing installed");
                assertEquals(List.of(0, 1), groups.get(0).view().members(), "the group goes on");
                assertEquals(0, groups.get(0).view().id(), "in its first view");
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }
}

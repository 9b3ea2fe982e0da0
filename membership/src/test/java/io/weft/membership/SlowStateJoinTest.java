package io.weft.membership;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A joiner whose state takes longer to install than the members wait for its table to connect (the connect timeout)
 * still joins: it connects while it installs, and beats meanwhile. It used to connect only once the state was in, by
 * when the members had removed it as failed, and the join failed. Nothing is delivered to it before its state is in.
 */
@Timeout(120)
class SlowStateJoinTest
{
    private static final int STATE_BYTES = 3 << 20;
    private static final long PER_MIB_NANOS = 800_000_000L; // an application that rebuilds slowly: ~2.4 s in all

    /**
     * The group's deliveries wait for the joiner's install, so an installer that hangs must not hold it: once it has
     * asked for no bytes for a join timeout, the joiner's table closes, the others remove it and go on, and its join
     * fails with the reason when the installer returns.
     */
    @Test
    void anInstallerThatStopsReadingIsCutOffAndTheGroupGoesOn() throws Exception
    {
        final WeftConfig config = InJvmGroups.joinable(TransportKind.TCP, Duration.ofSeconds(2)).build();
        final CountDownLatch release = new CountDownLatch(1);
        final StateTransfer hung = new StateTransfer()
        {
            @Override
            public byte[] snapshot()
            {
                return new byte[3 << 20];
            }

            @Override
            public void install(final InputStream in) throws IOException
            {
                in.read(new byte[1 << 20]);
                try
                {
                    release.await(); // an installer stuck in its own code, asking for nothing more
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void install(final byte[] bytes)
            {
                throw new AssertionError("the stream install is used");
            }
        };
        final AtomicLong delivered = new AtomicLong();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 2; i++)
            {
                builders.add(Group.builder(config.forMember(i)).stateTransfer(hung)
                    .onDelivery("all", m -> delivered.incrementAndGet()));
            }
            final List<Group> groups = new ArrayList<>(InJvmGroups.open(builders));
            final CompletableFuture<Group> joining = CompletableFuture.supplyAsync(() ->
                Group.builder(config.forMember(2)).stateTransfer(hung).join());
            try
            {
                for (int m = 0; m < 2; m++)
                {
                    final Group g = groups.get(m);
                    InJvmGroups.await(() -> g.view().id() == 2 && g.view().members().equals(List.of(0, 1)),
                        "member " + m + " installs view 2 [0, 1], without the joiner admitted in view 1");
                }
                final byte[] payload = new byte[8];
                for (int i = 0; i < 50; i++)
                {
                    assertTrue(groups.get(0).subgroup("all").send(payload, Duration.ofSeconds(20)) >= 0, "send " + i);
                }
                InJvmGroups.await(() -> delivered.get() == 100, "both members deliver 50: " + delivered);
                release.countDown();
                final ExecutionException ex = assertThrows(ExecutionException.class,
                    () -> joining.get(30, TimeUnit.SECONDS));
                assertTrue(ex.getCause() instanceof IllegalStateException &&
                    ex.getCause().getMessage().contains("asked for no bytes"), String.valueOf(ex.getCause()));
            }
            finally
            {
                release.countDown();
                groups.forEach(Group::close);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"TCP", "SHM", "RDMA"})
    void aStateSlowerThanTheConnectTimeoutStillJoins(final TransportKind transport) throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(transport != TransportKind.RDMA ||
            io.weft.sst.rdma.RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
        final WeftConfig config = InJvmGroups.joinable(transport, Duration.ofSeconds(30))
            .connectTimeout(Duration.ofSeconds(1)).build();
        final byte[] state = new byte[STATE_BYTES];
        for (int i = 0; i < state.length; i++)
        {
            state[i] = (byte)(i * 31 + (i >>> 11));
        }
        final AtomicLong joinerDelivered = new AtomicLong();
        final long[] deliveredWhenInstalled = {-1};
        final byte[][] installed = new byte[1][];
        final StateTransfer slow = new StateTransfer()
        {
            @Override
            public byte[] snapshot()
            {
                return state;
            }

            @Override
            public void install(final InputStream in) throws IOException
            {
                final byte[] got = new byte[STATE_BYTES + 1];
                int length = 0;
                for (int n; (n = in.read(got, length, Math.min(1 << 20, got.length - length))) > 0; )
                {
                    length += n;
                    LockSupport.parkNanos(PER_MIB_NANOS * n / (1 << 20));
                }
                installed[0] = Arrays.copyOf(got, length);
                deliveredWhenInstalled[0] = joinerDelivered.get();
            }

            @Override
            public void install(final byte[] bytes)
            {
                throw new AssertionError("the stream install is used");
            }
        };
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < 2; i++)
            {
                builders.add(Group.builder(config.forMember(i)).stateTransfer(slow));
            }
            final List<Group> groups = new ArrayList<>(InJvmGroups.open(builders));
            try
            {
                final long started = System.nanoTime();
                groups.add(Group.builder(config.forMember(2)).stateTransfer(slow)
                    .onDelivery("all", m -> joinerDelivered.incrementAndGet()).join());
                final long tookMillis = (System.nanoTime() - started) / 1_000_000;
                assertTrue(tookMillis > config.transport().connectTimeout().toMillis(),
                    "the install outlasted the connect timeout, as the test means it to: " + tookMillis + " ms");
                assertArrayEquals(state, installed[0], "the joiner installed the whole state");
                assertEquals(0, deliveredWhenInstalled[0], "nothing was delivered before the state was in");

                final byte[] payload = new byte[8];
                for (int i = 0; i < 100; i++)
                {
                    assertTrue(groups.get(0).subgroup("all").send(payload, Duration.ofSeconds(20)) >= 0, "send " + i);
                }
                InJvmGroups.await(() -> joinerDelivered.get() == 100, "the joiner delivers 100: " + joinerDelivered);
                for (final Group g : groups)
                {
                    assertEquals(List.of(0, 1, 2), g.view().members(), "the joiner stayed in the view");
                    assertEquals(1, g.view().id(), "no view change removed it");
                }
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }
}

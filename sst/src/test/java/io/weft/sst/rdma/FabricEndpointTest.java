package io.weft.sst.rdma;

import io.weft.testkit.Await;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote CQ data over real libfabric providers: a write tells its target, in the target's own completion queue, that
 * its bytes landed, and the writer's own completions never pass for a peer's write. Two endpoints in one process; the
 * transport on top is tested in SstInJvmTest, PredicateWakeTest and RdmaTransportTest.
 */
@Timeout(60)
class FabricEndpointTest
{
    private static final long ROW = 4096;

    @BeforeEach
    void libfabric()
    {
        Assumptions.assumeTrue(RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm"})
    void aWriteTellsItsTargetThatItLandedAndNobodyElse(final String provider) throws Exception
    {
        final String node = provider.startsWith("shm") ? null : "127.0.0.1";
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment t0 = arena.allocate(2 * ROW, 4096);
            final MemorySegment t1 = arena.allocate(2 * ROW, 4096);
            final FabricEndpoint e0 = new FabricEndpoint(provider, node, t0, 2, ROW, 0, 0x5745_0000L);
            try (FabricEndpoint e1 = new FabricEndpoint(provider, node, t1, 2, ROW, 1, 0x5745_0100L))
            {
                e0.connect(1, e1.address());
                e1.connect(0, e0.address());
                assertTrue(e0.wakesTargets(), provider + " carries remote CQ data: " + e0.describe());

                // payload and guard in one write of member 0's row: its entry at the target says both landed
                t0.set(ValueLayout.JAVA_LONG, 0, 41);
                t0.set(ValueLayout.JAVA_LONG, 8, 1);
                final long remote = e1.virtualAddresses() ? t1.address() : 0;
                final List<Integer> failed = new CopyOnWriteArrayList<>();
                final AtomicBoolean posted = new AtomicBoolean();
                final AtomicBoolean writerWoken = new AtomicBoolean();
                final long[] seen = new long[2];
                Await.until(() ->
                {
                    if (!posted.get())
                    {
                        posted.set(e0.write(t0.address(), 16, 1, remote, e1.key(0))); // false: no room yet
                    }
                    writerWoken.compareAndSet(false, e0.progress(failed::add));
                    if (e1.progress(failed::add))
                    {
                        seen[0] = t1.get(ValueLayout.JAVA_LONG, 0);
                        seen[1] = t1.get(ValueLayout.JAVA_LONG, 8);
                        return true;
                    }
                    return false;
                }, "member 1 to learn from its completion queue that member 0's write landed");
                assertEquals(41, seen[0], "the payload was visible when its entry was reaped");
                assertEquals(1, seen[1], "the guard was visible when its entry was reaped");
                Await.until(() ->
                {
                    writerWoken.compareAndSet(false, e0.progress(failed::add));
                    e1.progress(failed::add);
                    return e0.completed(1) == e0.posted(1);
                }, "member 0's own completion");
                assertFalse(writerWoken.get(), "the writer's own completion passed for a peer's write");
                assertTrue(failed.isEmpty(), "failed ranks: " + failed);
            }
            finally
            {
                e0.close();
            }
        }
    }
}

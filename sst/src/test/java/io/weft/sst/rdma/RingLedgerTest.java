package io.weft.sst.rdma;

import io.weft.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a flush owes a target, over two real libfabric endpoints (tcp;ofi_rxm) in one process: the flushed writes stay
 * owed until their completions come back, which under manual progress needs the target to poll; a target that never
 * lets them complete fails at the stall bound instead of holding every later flush.
 */
@Timeout(60)
class RingLedgerTest
{
    private static final String PROVIDER = "tcp;ofi_rxm";
    private static final long ROW = 4096;

    private final Arena arena = Arena.ofShared();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private MemorySegment t0;
    private MemorySegment t1;
    private FabricEndpoint e0;
    private FabricEndpoint e1;

    /** Members 0 and 1, connected; member 0 writes its row into member 1's table. */
    @BeforeEach
    void endpoints()
    {
        Assumptions.assumeTrue(RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
        t0 = arena.allocate(2 * ROW, 4096);
        t1 = arena.allocate(2 * ROW, 4096);
        e0 = new FabricEndpoint(PROVIDER, "127.0.0.1", t0, 2, ROW, 0, 0x5745_0000L);
        e1 = new FabricEndpoint(PROVIDER, "127.0.0.1", t1, 2, ROW, 1, 0x5745_0100L);
        e0.connect(1, e1.address());
        e1.connect(0, e0.address());
    }

    @AfterEach
    void close()
    {
        try
        {
            if (e1 != null)
            {
                e1.close();
            }
            if (e0 != null)
            {
                e0.close();
            }
        }
        finally
        {
            arena.close();
        }
    }

    @Test
    void aFlushIsOwedUntilItsWritesCompleteAtTheTarget()
    {
        final RingLedger ledger = new RingLedger(e0, new boolean[2], (r, why) -> failures.add(r + ": " + why),
            targets -> failures.add("rang over the control channel, though writes wake their targets"));

        t0.set(ValueLayout.JAVA_LONG, 0, 7);
        write();
        e0.requestCompletion(1);
        ledger.flushed(1, System.nanoTime());
        assertTrue(ledger.owes(new int[] {1}), "a flushed write is owed before it completes");
        assertTrue(ledger.owes(null), "owed, asking for every target");
        assertFalse(ledger.owes(new int[] {0}), "nothing was flushed to member 0");

        Await.until(() ->
        {
            e0.progress(r -> failures.add("write to " + r + " failed"));
            e1.progress(r -> failures.add("member 1 saw a failure of " + r));
            return !ledger.advance(System.nanoTime());
        }, "member 0's flushed write to complete at member 1");
        assertFalse(ledger.owes(new int[] {1}), "owed no more once complete");
        assertTrue(ledger.advances() > 0, "the completion counted as progress of the waits");
        assertEquals(e0.posted(1), ledger.flushedTo(1), "a later flush waits for this mark");
        assertEquals(7, t1.get(ValueLayout.JAVA_LONG, 0), "the bytes are at member 1");
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void aTargetThatNeverCompletesTheWritesFailsAtTheStallBound() throws Exception
    {
        final boolean[] frozen = new boolean[2];
        final RingLedger ledger = new RingLedger(e0, frozen, (r, why) -> failures.add(r + ": " + why),
            targets -> { });

        write();
        e0.requestCompletion(1);
        final long flushedAt = System.nanoTime();
        ledger.flushed(1, flushedAt);
        // member 1 stops polling: under manual progress its provider never acknowledges the delivery
        for (int i = 0; i < 200; i++)
        {
            e0.progress(r -> failures.add("write to " + r + " failed"));
            assertTrue(ledger.advance(System.nanoTime()), "still owed while member 1 is silent");
            Thread.sleep(1);
        }
        assertTrue(e0.completed(1) < e0.posted(1), "the write is really incomplete");
        assertTrue(failures.isEmpty(), failures.toString());

        assertFalse(ledger.advance(flushedAt + RingLedger.FLUSH_TIMEOUT_NANOS + 1),
            "past the stall bound nothing is owed to a failed target");
        assertTrue(frozen[1], "the stalled target is frozen");
        assertEquals(List.of("1: rdma writes to it not completed within 10 s"), failures);
        assertFalse(ledger.owes(null), "a later flush does not wait for it");
    }

    /** Posts one write of member 0's row into member 1's table, polling both until the provider takes it. */
    private void write()
    {
        final long remote = e1.virtualAddresses() ? t1.address() : 0;
        Await.until(() ->
        {
            if (e0.write(t0.address(), 16, 1, remote, e1.key(0)))
            {
                return true;
            }
            e0.progress(r -> { });
            e1.progress(r -> { });
            return false;
        }, "room to post a write");
    }
}

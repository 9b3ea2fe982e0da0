package io.weft.sst.rdma;

import io.weft.config.VerbsOptions;
import io.weft.sst.TransportException;
import io.weft.testkit.NativeBuild;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs backend's queue-pair life cycle, selective signalling and failure reporting, run against the software
 * verbs device (test-kit/src/main/c/verbs_device.c), which checks state transitions, queue-pair wiring, keys and bounds as a NIC
 * does. Two endpoints in one process; the multi-process runs are in the examples module (RdmaTransportTest).
 */
@Timeout(60)
class VerbsEndpointTest
{
    private static final long TABLE = 16384;
    /** Two rows, each registered on its own. */
    private static final long ROW = TABLE / 2;
    private VerbsOptions options;

    @BeforeEach
    void device() throws Exception
    {
        options = new VerbsOptions(NativeBuild.verbsDevice().toString(), "", 1, 0);
    }

    /** Two members' tables and endpoints, connected to each other. */
    private record Pair(Arena arena, MemorySegment t0, MemorySegment t1, VerbsEndpoint e0, VerbsEndpoint e1)
        implements AutoCloseable
    {
        static Pair connected(final VerbsOptions options)
        {
            final Arena arena = Arena.ofShared();
            final MemorySegment t0 = arena.allocate(TABLE, 4096);
            final MemorySegment t1 = arena.allocate(TABLE, 4096);
            final VerbsEndpoint e0 = new VerbsEndpoint(options, t0, 2, ROW, 0);
            final VerbsEndpoint e1 = new VerbsEndpoint(options, t1, 2, ROW, 1);
            e0.connect(1, e1.address());
            e1.connect(0, e0.address());
            return new Pair(arena, t0, t1, e0, e1);
        }

        @Override
        public void close()
        {
            e0.close();
            e1.close(); // closing twice is harmless
            arena.close();
        }
    }

    @Test
    void writesLandInThePeersTableAndOneCompletionRetiresTheUnsignalledOnes()
    {
        try (Pair p = Pair.connected(options))
        {
            final MemorySegment t0 = p.t0();
            final MemorySegment t1 = p.t1();
            final VerbsEndpoint e0 = p.e0();
            final VerbsEndpoint e1 = p.e1();
            final int writes = VerbsEndpoint.SIGNAL_INTERVAL * 3 + 5;
            for (int i = 0; i < writes; i++)
            {
                t0.set(ValueLayout.JAVA_LONG, i * 8L, 1000L + i);
                assertTrue(e0.write(t0.address() + i * 8L, 8, 1, t1.address() + i * 8L, e1.key(0)));
            }
            assertEquals(writes, inFlightTo1(e0));
            progressUntil(e0, () -> inFlightTo1(e0) == 5, "the signalled writes retire the ones before them");
            e0.requestCompletion(1); // the tail was unsignalled: a zero-length signalled write covers it
            progressUntil(e0, () -> inFlightTo1(e0) == 0, "the completion request retires the rest");
            for (int i = 0; i < writes; i++)
            {
                assertEquals(1000L + i, t1.get(ValueLayout.JAVA_LONG, i * 8L), "word " + i);
            }
            assertEquals(0, e0.outstanding());
            // a large write is not inline and still lands whole
            final long big = 4096;
            for (long off = 0; off < big; off += 8)
            {
                t0.set(ValueLayout.JAVA_LONG, off, ~off);
            }
            assertTrue(e0.write(t0.address(), (int)big, 1, t1.address() + 4096, e1.key(0)));
            e0.requestCompletion(1);
            progressUntil(e0, () -> inFlightTo1(e0) == 0, "the large write completes");
            assertEquals(-1, MemorySegment.mismatch(t0, 0, big, t1, 4096, 4096 + big));
        }
    }

    @Test
    void aPeerThatIsGoneIsReportedOnce()
    {
        try (Pair p = Pair.connected(options))
        {
            final MemorySegment t0 = p.t0();
            final MemorySegment t1 = p.t1();
            final VerbsEndpoint e0 = p.e0();
            final long key = p.e1().key(0);
            p.e1().close();
            // its queue pair is destroyed: the device exhausts its retries, the write completes in error
            assertTrue(e0.write(t0.address(), 8, 1, t1.address(), key));
            final List<Integer> failed = new ArrayList<>();
            e0.progress(failed::add);
            e0.progress(failed::add);
            assertEquals(List.of(1), failed);
            assertEquals(0, inFlightTo1(e0));
            assertTrue(e0.write(t0.address(), 8, 1, t1.address(), key), "a write to a failed peer is dropped");
            e0.progress(failed::add);
            assertEquals(List.of(1), failed);
        }
    }

    @Test
    void aRevokedRowTakesNoMoreWritesAndTheWriterSeesAFailure()
    {
        try (Pair p = Pair.connected(options))
        {
            final VerbsEndpoint e0 = p.e0();
            p.t0().set(ValueLayout.JAVA_LONG, 0, 7);
            assertTrue(e0.write(p.t0().address(), 8, 1, p.t1().address(), p.e1().key(0)));
            e0.requestCompletion(1);
            progressUntil(e0, () -> inFlightTo1(e0) == 0, "the write before the freeze completes");
            assertEquals(7, p.t1().get(ValueLayout.JAVA_LONG, 0));
            p.e1().revoke(0); // member 1 freezes member 0's row
            p.t0().set(ValueLayout.JAVA_LONG, 0, 8);
            assertTrue(e0.write(p.t0().address(), 8, 1, p.t1().address(), p.e1().key(0)));
            e0.requestCompletion(1);
            final List<Integer> failed = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (failed.isEmpty())
            {
                assertTrue(System.nanoTime() < deadline, "the write into the revoked row did not fail at the writer");
                e0.progress(failed::add);
            }
            assertEquals(List.of(1), failed);
            assertEquals(7, p.t1().get(ValueLayout.JAVA_LONG, 0), "the frozen row changed after the freeze");
        }
    }

    /**
     * A NIC's deregistration leaves the memory as it was: a member reading the frozen row while it is revoked (its
     * predicate thread does, when a failure is detected) must never see anything but the row's last contents.
     */
    @Test
    void aRowReadsTheSameWhileItIsRevoked() throws Exception
    {
        for (int round = 0; round < 20; round++)
        {
            try (Pair p = Pair.connected(options))
            {
                final MemorySegment row = p.t1().asSlice(0, ROW);
                row.fill((byte)7);
                final long expected = row.get(ValueLayout.JAVA_LONG, 0);
                final AtomicLong seen = new AtomicLong(expected);
                final CountDownLatch reading = new CountDownLatch(1);
                final AtomicBoolean stop = new AtomicBoolean();
                final Thread reader = Thread.ofPlatform().start(() ->
                {
                    reading.countDown();
                    while (!stop.get())
                    {
                        for (long off = 0; off < ROW; off += 512)
                        {
                            final long v = row.get(ValueLayout.JAVA_LONG, off);
                            if (v != expected)
                            {
                                seen.compareAndSet(expected, v);
                            }
                        }
                    }
                });
                assertTrue(reading.await(10, TimeUnit.SECONDS));
                p.e1().revoke(0);
                stop.set(true);
                reader.join(TimeUnit.SECONDS.toMillis(10));
                assertEquals(expected, seen.get(), "round " + round + ": the row read differently while revoked");
                final byte[] sevens = new byte[(int)ROW];
                Arrays.fill(sevens, (byte)7);
                assertEquals(-1, MemorySegment.mismatch(row, 0, ROW, MemorySegment.ofArray(sevens), 0, ROW),
                    "round " + round + ": the row changed");
            }
        }
    }

    @Test
    void aWriteOutsideThePeersRegionFailsThePeer()
    {
        try (Pair p = Pair.connected(options))
        {
            final VerbsEndpoint e0 = p.e0();
            assertTrue(e0.write(p.t0().address(), 64, 1, p.t1().address() + TABLE - 8, p.e1().key(0)));
            final List<Integer> failed = new ArrayList<>();
            e0.progress(failed::add);
            assertEquals(List.of(1), failed, "a remote access error fails the peer");
        }
    }

    @Test
    void setUpErrorsSayWhatWasWrong()
    {
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment t0 = arena.allocate(TABLE, 4096);
            final TransportException noDevice = assertThrows(TransportException.class, () -> new VerbsEndpoint(
                new VerbsOptions(options.library(), "mlx5_9", 1, 0), t0, 2, ROW, 0));
            assertTrue(noDevice.getMessage().contains("no RDMA device named mlx5_9") &&
                noDevice.getMessage().contains("weftsoft0"), noDevice.getMessage());
            final TransportException badPort = assertThrows(TransportException.class, () -> new VerbsEndpoint(
                new VerbsOptions(options.library(), "", 2, 0), t0, 2, ROW, 0));
            assertTrue(badPort.getMessage().contains("ibv_query_port(2)"), badPort.getMessage());
            final TransportException noLibrary = assertThrows(TransportException.class, () -> new VerbsEndpoint(
                new VerbsOptions("/nonexistent/libibverbs.so.1", "", 1, 0), t0, 2, ROW, 0));
            assertTrue(noLibrary.getMessage().contains("/nonexistent/libibverbs.so.1") &&
                noLibrary.getMessage().contains("weft.transport.rdma.verbs.library"), noLibrary.getMessage());
            try (VerbsEndpoint e0 = new VerbsEndpoint(options, t0, 2, ROW, 0))
            {
                final TransportException badAddress = assertThrows(TransportException.class,
                    () -> e0.connect(1, new byte[] {1, 2, 3}));
                assertTrue(badAddress.getMessage().contains("rank 1") &&
                    badAddress.getMessage().contains("3 bytes"), badAddress.getMessage());
            }
        }
    }

    private static void progressUntil(final VerbsEndpoint e, final java.util.function.BooleanSupplier done,
        final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "timed out: " + what);
            e.progress(rank -> { throw new AssertionError("rank " + rank + " reported failed"); });
        }
    }

    /** Writes to rank 1 posted and not known complete (a failed queue pair counts them all complete). */
    private static long inFlightTo1(final VerbsEndpoint e)
    {
        return e.posted(1) - e.completed(1);
    }
}

package io.weft.sst;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fast coverage of the table API with several members in one JVM; the multi-process proofs live in tools. */
@Timeout(60)
class SstInJvmTest
{
    private static final SstLayout LAYOUT = SstLayout.builder().counter("count").bool("flag")
        .counters("array", 3).bytes("payload", 64).build();
    private static final Column COUNT = LAYOUT.column("count");
    private static final Column FLAG = LAYOUT.column("flag");
    private static final Column ARRAY = LAYOUT.column("array");
    private static final Column PAYLOAD = LAYOUT.column("payload");

    private static List<Sst> openAll(final WeftConfig config) throws Exception
    {
        return Async.openAll(config, member -> Sst.open(member, LAYOUT));
    }

    interface ThreeMembers
    {
        void run(Sst s0, Sst s1, Sst s2) throws Exception;
    }

    interface OpenMembers
    {
        void run(List<Sst> ssts) throws Exception;
    }

    /** Opens three members over {@code transport}, runs {@code test}, closes them (also on failure). */
    private static void withThree(final String transport, final ThreeMembers test) throws Exception
    {
        withMembers(config(transport, 3), ssts -> test.run(ssts.get(0), ssts.get(1), ssts.get(2)));
    }

    /** Opens every member of {@code config}, runs {@code test}, closes them (also on failure; twice is harmless). */
    private static void withMembers(final WeftConfig config, final OpenMembers test) throws Exception
    {
        try (Members ignored = new Members(config))
        {
            final List<Sst> ssts = openAll(config);
            try
            {
                test.run(ssts);
            }
            finally
            {
                ssts.forEach(Sst::close);
            }
        }
    }

    /**
     * shm (zero copy), shm-copy, tcp, rdma (libfabric where it is installed, as CI does, over its default software
     * provider) or verbs (the rdma transport's verbs backend over the software verbs device of the test scope).
     */
    static WeftConfig config(final String transport, final int members) throws Exception
    {
        if ("shm-copy".equals(transport))
        {
            return TestGroups.copyingShm(members);
        }
        if ("verbs".equals(transport))
        {
            return TestGroups.config(io.weft.testkit.NativeBuild.verbsDeviceOptions(), members);
        }
        final TransportKind kind = TransportKind.parse("transport", transport);
        org.junit.jupiter.api.Assumptions.assumeTrue(kind != TransportKind.RDMA ||
            io.weft.sst.rdma.RdmaTransport.libfabricInstalled(), "skipped: libfabric1 is not installed");
        return TestGroups.config(kind, members);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "shm-copy", "tcp", "rdma", "verbs"})
    void pushesReachEveryTargetAndOnlyTheOwnersRow(final String transport) throws Exception
    {
        withThree(transport, (s0, s1, s2) ->
        {
            // initial values: counters -1, booleans false
            assertEquals(-1, s1.counter(0, COUNT));
            assertFalse(s1.bool(0, FLAG));

            final MemorySegment payload = s0.myBytes(PAYLOAD);
            for (int i = 0; i < 8; i++)
            {
                payload.set(ValueLayout.JAVA_LONG, i * 8L, 1000 + i);
            }
            s0.push(PAYLOAD, s0.others());
            s0.setCounter(COUNT, 7);
            s0.setCounter(ARRAY, 2, 99);
            s0.setBool(FLAG, true);
            s0.push(0, LAYOUT.column("array").offsetOf(2) + 8, new int[] {1}); // only member 1
            // one push: its bytes may become visible in any order (protocol.md, ordering contract 3), so wait for all
            Await.until(() -> s1.counter(0, COUNT) == 7 && s1.counter(0, ARRAY, 2) == 99 && s1.bool(0, FLAG),
                "member 1 sees the counter, the array element and the flag");
            // the payload went in an earlier push: applied before the one just seen (contract 1)
            assertEquals(1007, s1.segment().get(ValueLayout.JAVA_LONG, s1.offset(0, PAYLOAD, 0) + 56));
            Await.until(() -> s2.segment().get(ValueLayout.JAVA_LONG, s2.offset(0, PAYLOAD, 0)) == 1000,
                "member 2 sees the payload");
            if (transport.equals("shm"))
            {
                // zero copy: member 2 reads member 0's row in place, so it sees the stores without a push
                assertEquals(7, s2.counter(0, COUNT), "member 2 reads member 0's row in place");
            }
            else
            {
                assertEquals(-1, s2.counter(0, COUNT), "member 2 was not a target of the counter push");
            }

            // tracked push completes after the targets applied it
            s2.setCounter(COUNT, 5);
            s2.pushTracked(COUNT.offset(), 8, s2.others()).get(10, TimeUnit.SECONDS);
            assertEquals(5, s0.counter(2, COUNT));
            assertEquals(5, s1.counter(2, COUNT));
        });
    }

    /**
     * Issue 13, item 5: with pushes that copy (shm-copy here), two threads pushing one column can leave a stale value
     * at a target. A column declared with one writer refuses a second thread's set or push in test runs (surefire sets
     * io.weft.sst.checkWriters), while other columns stay free for any thread.
     */
    @org.junit.jupiter.api.Test
    void aOneWriterColumnRefusesASecondThread() throws Exception
    {
        assertTrue(OneWriter.CHECKED, "surefire runs the tests with -Dio.weft.sst.checkWriters=true");
        withThree("shm-copy", (s0, s1, s2) ->
        {
            s0.oneWriter(FLAG);
            s0.setBool(FLAG, true);
            s0.push(FLAG, s0.others());
            final CompletableFuture<Throwable> other = CompletableFuture.<Throwable>supplyAsync(() ->
            {
                final List<Throwable> refused = new ArrayList<>();
                for (final Runnable write : List.<Runnable>of(() -> s0.setBool(FLAG, false),
                    () -> s0.push(FLAG, s0.others()), () -> s0.push(0, LAYOUT.rowSize(), s0.others())))
                {
                    try
                    {
                        write.run();
                    }
                    catch (final IllegalStateException ex)
                    {
                        refused.add(ex);
                    }
                }
                s0.setCounter(COUNT, 7); // not declared: any thread
                s0.push(COUNT, s0.others());
                return refused.size() == 3 ? null : new AssertionError("refused " + refused.size() + " of 3");
            }, runnable -> Thread.ofPlatform().name("second-writer").start(runnable)).exceptionally(ex -> ex);
            final Throwable failure = other.get(20, TimeUnit.SECONDS);
            if (failure != null)
            {
                throw new AssertionError(failure);
            }
            assertTrue(s0.bool(0, FLAG), "the refused write left the value alone");
            Await.until(() -> s1.bool(0, FLAG) && s1.counter(0, COUNT) == 7,
                "the first writer's flag and the free counter");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "shm-copy", "tcp", "rdma", "verbs"})
    void aFrozenRowKeepsWhatItHeldAndTakesNoMorePushes(final String transport) throws Exception
    {
        withThree(transport, (s0, s1, s2) ->
        {
            s1.myBytes(PAYLOAD).set(ValueLayout.JAVA_LONG, 0, 41);
            s1.push(PAYLOAD, s1.others());
            s1.setCounter(COUNT, 3);
            s1.push(COUNT, s1.others());
            Await.until(() -> s0.counter(1, COUNT) == 3, "member 0 sees member 1's counter");
            s0.freeze(1);
            // member 1 still runs and does not know: it goes on writing and pushing to both
            s1.myBytes(PAYLOAD).set(ValueLayout.JAVA_LONG, 0, 42);
            s1.push(PAYLOAD, s1.others());
            s1.setCounter(COUNT, 4);
            s1.push(COUNT, s1.others());
            Await.until(() -> s2.counter(1, COUNT) == 4, "member 2 (not freezing) sees the new counter");
            assertEquals(3, s0.counter(1, COUNT), "the frozen row changed after the freeze");
            assertEquals(41, s0.segment().get(ValueLayout.JAVA_LONG, s0.offset(1, PAYLOAD, 0)),
                "the frozen row's bytes changed after the freeze");
            assertTrue(s0.isFailedOrFrozen(1));
        });
    }

    /**
     * A beat alone, with no push, is a sign of life at its target and at no one else, and never writes the table. On
     * rdma it goes over the control channel's udp socket, beside the writes. (Strangers' datagrams: TcpBadInputTest;
     * beats on a stalled link: FailureDetectionTest.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "rdma", "verbs"})
    void aBeatIsHeardByItsTargetWithoutAnyPush(final String transport) throws Exception
    {
        withThree(transport, (s0, s1, s2) ->
        {
            final long before0 = s0.lastHeardNanos(1);
            final long before2 = s2.lastHeardNanos(1);
            Await.until(() ->
            {
                s1.beat(new int[] {0});
                return s0.lastHeardNanos(1) != before0;
            }, "member 0 to hear member 1's beat");
            assertTrue(s0.lastHeardNanos(1) - (System.nanoTime() - TimeUnit.SECONDS.toNanos(20)) > 0);
            assertEquals(before2, s2.lastHeardNanos(1), "member 2 was not a target of the beat");
            assertEquals(-1, s2.counter(1, COUNT), "a beat never writes the table");
            assertEquals(-1, s0.counter(1, COUNT), "a beat never writes the table");
        });
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void misuseIsRefused(final TransportKind kind) throws Exception
    {
        withMembers(TestGroups.config(kind, 2), ssts ->
        {
            final Sst s0 = ssts.get(0);
            assertThrows(IndexOutOfBoundsException.class, () -> s0.push(LAYOUT.rowSize() - 8, 16, s0.others()));
            assertThrows(IndexOutOfBoundsException.class, () -> s0.push(-8, 8, s0.others()));
            assertThrows(IllegalArgumentException.class, () -> s0.push(0, 8, new int[] {0}));
            assertThrows(IllegalArgumentException.class, () -> s0.push(0, 8, new int[] {5}));
            assertThrows(IndexOutOfBoundsException.class, () -> s0.counter(2, COUNT));
            assertThrows(IllegalArgumentException.class, () -> s0.freeze(0));
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp", "rdma", "verbs"})
    void closingAMemberIsReportedToTheOthers(final String transport) throws Exception
    {
        withMembers(config(transport, 2), ssts ->
        {
            final List<String> failures = new CopyOnWriteArrayList<>();
            ssts.get(0).addFailureListener((rank, reason) -> failures.add(rank + ": " + reason));
            ssts.get(1).close();
            final Sst s0 = ssts.get(0);
            // shm sees an in-JVM peer's close at the next push; tcp at once
            Await.until(() ->
            {
                s0.push(COUNT, s0.others());
                return !failures.isEmpty();
            }, "failure report");
            assertTrue(failures.getFirst().startsWith("1: "), failures.toString());
            assertTrue(s0.isFailedOrFrozen(1));
            final ExecutionException ex = assertThrows(ExecutionException.class,
                () -> s0.pushTracked(0, 8, s0.others()).get(10, TimeUnit.SECONDS));
            assertTrue(ex.getCause() instanceof TransportException, ex.toString());
        });
    }

    /**
     * A failure listener on member 1's table throws an {@link Error} when member 0 closes; the error ends the
     * transport's thread that reported the failure (tcp's selector, rdma's control). The table tells its error handler
     * once, on that thread, and a handler set later at once; member 2 sees member 1 fail, as at a crash. Before, the
     * thread ended silently (tcp: its member went on cut off until its detector found every other member silent).
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "rdma", "verbs"})
    void anErrorThatEndsTheTransportsThreadIsReportedAndThePeersSeeItsMemberFail(final String transport)
        throws Exception
    {
        withThree(transport, (s0, s1, s2) ->
        {
            final AssertionError thrown = new AssertionError("a failure listener's error (test)");
            s1.addFailureListener((rank, reason) ->
            {
                throw thrown;
            });
            final List<String> told = new CopyOnWriteArrayList<>();
            s1.errorHandler(ex -> told.add(Thread.currentThread().getName() + ": " + ex.getMessage()));
            final List<Integer> failedAt2 = new CopyOnWriteArrayList<>();
            s2.addFailureListener((rank, reason) -> failedAt2.add(rank));
            s0.close();
            Await.until(() -> !told.isEmpty(), "member 1's error handler told");
            assertTrue(told.getFirst().matches("weft-(tcp|rdma)-1: " +
                java.util.regex.Pattern.quote(thrown.getMessage())), told.toString());
            Await.until(() -> failedAt2.contains(1), "member 2 sees member 1 fail");
            final AtomicReference<Throwable> late = new AtomicReference<>();
            s1.errorHandler(late::set);
            assertTrue(late.get() == thrown, "a handler set after the failure is told at once: " + late.get());
            assertEquals(1, told.size(), told.toString());
        });
    }

    /**
     * A push begun after close is refused with an exception. Over rdma it would otherwise reach the closed endpoint's
     * freed native objects and crash the process: a sender can commit while its group closes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp", "rdma", "verbs"})
    void aPushAfterCloseIsRefused(final String transport) throws Exception
    {
        withMembers(config(transport, 2), ssts ->
        {
            final Sst s0 = ssts.get(0);
            s0.close();
            final IllegalStateException ex = assertThrows(IllegalStateException.class,
                () -> s0.push(COUNT, s0.others()));
            assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
            assertThrows(IllegalStateException.class, () -> s0.pushTracked(0, 8, s0.others()));
        });
    }

    /**
     * Pushes racing a close fail with an exception that names this table as closed (or complete), never a crash. On
     * rdma a flush that passed its check before the close could ring over the already closed control channel and be
     * told that a tcp table was closed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp", "rdma", "verbs"})
    void pushesRacingACloseFailNamingThisTable(final String transport) throws Exception
    {
        withMembers(config(transport, 2), ssts ->
        {
            final Sst s0 = ssts.get(0);
            final AtomicLong pushes = new AtomicLong();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread pusher = Thread.ofPlatform().start(() ->
            {
                try
                {
                    while (true)
                    {
                        s0.push(COUNT, s0.others());
                        pushes.incrementAndGet();
                    }
                }
                catch (final Throwable t)
                {
                    failure.set(t);
                }
            });
            Await.until(() -> pushes.get() > 1_000, "the pusher to get going");
            s0.close();
            pusher.join(10_000);
            assertFalse(pusher.isAlive(), "a push after the close returned");
            final Throwable t = failure.get();
            assertInstanceOf(IllegalStateException.class, t);
            // shm: its mapped memory refuses the access ("Already closed"); the others check before they start
            final String own = transport.equals("shm") ? "closed" :
                "the " + (transport.equals("verbs") ? "rdma" : transport) + " table of member 0 is closed";
            assertTrue(t.getMessage().contains(own), t.getMessage());
        });
    }

    /** Member 0 of a group of {@code size} over {@code kind} that waits {@code timeout} for the others to connect. */
    private static WeftConfig connectingWithin(final TransportKind kind, final int size,
        final java.time.Duration timeout)
    {
        final WeftConfig base = TestGroups.config(kind, size);
        return WeftConfig.builder().memberId(0).groupName(base.group().name()).members(base.group().members())
            .transport(kind).connectTimeout(timeout).build();
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void openTimesOutNamingTheMissingMember(final TransportKind kind) throws Exception
    {
        final WeftConfig config = connectingWithin(kind, 2, java.time.Duration.ofMillis(500));
        try (Members ignored = new Members(config))
        {
            final TransportException ex = assertThrows(TransportException.class, () -> Sst.open(config, LAYOUT));
            assertTrue(ex.getMessage().contains("member") && ex.getMessage().contains("1"), ex.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void anOpenThatToleratesMissingMembersGivesUpAtOnceOnOneKnownGone(final TransportKind kind) throws Exception
    {
        // a connect timeout far past the test's bound: only giving up on the gone member lets the open return
        final WeftConfig config = connectingWithin(kind, 3, java.time.Duration.ofMinutes(30));
        try (Members ignored = new Members(config))
        {
            final List<Integer> asked = new CopyOnWriteArrayList<>();
            final CompletableFuture<Sst> m1 = io.weft.testkit.Async.open(
                () -> Sst.openTolerating(config.forMember(1), LAYOUT, rank -> asked.add(rank) && rank == 2));
            try (Sst s0 = Sst.openTolerating(config, LAYOUT, rank -> rank == 2); Sst s1 = m1.get(40, TimeUnit.SECONDS))
            {
                assertTrue(s0.isFailedOrFrozen(2) && s1.isFailedOrFrozen(2), "member 2 reported failed");
                assertFalse(s0.isFailedOrFrozen(1) || s1.isFailedOrFrozen(0), "the live members connected");
                assertFalse(asked.contains(1), "a member's own rank is never asked about");
                s0.setCounter(COUNT, 5);
                s0.push(COUNT, s0.others());
                Await.until(() -> s1.counter(0, COUNT) == 5, "member 0's push at member 1");
            }
        }
    }
}
